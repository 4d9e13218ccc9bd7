"""What every FastAPI router of the HTTP side stands on (shared/auth/server.py, shared/auth/resource.py, shared/web/,
shared/webapp/; assembled by athaus/app.py), so the wire stays what the pages and the OAuth clients know:

- `Answer`: a dependency that decides the request itself (a CSRF refusal, a body too large, a client that failed to
  authenticate) raises it with the finished response; the app answers with exactly that response.
- `HeadRoute`: a GET route answers HEAD too, as every Starlette route did (FastAPI's own routes do not).
- `read_form`: the url-encoded or multipart form of a POST as a pydantic model, read at most up to a limit. Values a
  model field cannot take (a file where text belongs) count as missing, never as a 422 of FastAPI's own.
- `plain_http_error` / `refused_input`: Starlette's plain 404/405 instead of FastAPI's JSON `{"detail": …}`, and no
  422 validation body ever (the routes declare nothing FastAPI could refuse; this is the last guard).
- `openapi_document`: the OpenAPI document of the HTTP routes (GET without its HEAD twin).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, TypeVar

from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute

M = TypeVar("M", bound="FormModel")


class Answer(Exception):
    """Raised by a dependency that has the answer already: the app sends `response` as it is."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


async def answer(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Answer)
    return exc.response


async def plain_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's answer to its own HTTP errors (unknown path, method not allowed): plain text, as before FastAPI. A
    405 names every method of the path (FastAPI names only those of the first route that has the path)."""
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    allowed = getattr(request.app.state, "allowed_methods", {}).get(request.url.path) if exc.status_code == 405 else None
    if allowed:
        headers["Allow"] = ", ".join(allowed)
    if exc.status_code in {204, 304}:
        return Response(status_code=exc.status_code, headers=headers)
    return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=headers)


def allowed_methods(routers: Sequence[Any]) -> dict[str, list[str]]:
    """Path → the methods its routes take, over the routers' routes (for `plain_http_error`'s Allow header)."""
    methods: dict[str, set[str]] = {}
    for router in routers:
        for route in router.routes:
            if isinstance(route, APIRoute):
                methods.setdefault(route.path, set()).update(route.methods)
    return {path: sorted(names) for path, names in methods.items()}


async def refused_input(request: Request, exc: Exception) -> Response:
    """Never FastAPI's 422 with its validation details: a short German 400 (the OAuth error form, readable as JSON)."""
    return JSONResponse(
        {"error": "invalid_request", "error_description": "Die Anfrage ist unvollständig oder fehlerhaft."}, status_code=400
    )


EXCEPTION_HANDLERS: dict[Any, Any] = {Answer: answer, HTTPException: plain_http_error, RequestValidationError: refused_input}


class HeadRoute(APIRoute):
    """A route whose GET also answers HEAD (Starlette's routes do that; FastAPI's do not)."""

    def __init__(self, path: str, endpoint: Any, **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        if "GET" in self.methods:
            self.methods.add("HEAD")


class FormModel(BaseModel):
    """A form's fields: text fields `str | None`, repeated fields `list[str]`; anything else sent is ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def of(cls: type[M], form: FormData | None) -> M:
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            if form is None:
                continue
            if field.annotation == list[str]:
                values[name] = [value for value in form.getlist(name) if isinstance(value, str)]
            else:
                value = form.get(name)
                if isinstance(value, str):
                    values[name] = value
        return cls.model_validate(values)

    @classmethod
    def openapi_body(cls) -> dict[str, Any]:
        """The form as the OpenAPI request body of a route that reads it itself (`read_form`)."""
        schema = cls.model_json_schema()
        return {"requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": schema}}}}


async def bounded_body(request: Request, max_bytes: int) -> bytes | None:
    """The request body, or None past `max_bytes` (never read beyond it; a declared length over it is not read at all)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > max_bytes:
                return None
        except ValueError:
            pass
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            return None
    # Kept on the request (Starlette's cache of Request.body()), so the form parser reads the body read here.
    request._body = bytes(body)
    return request._body


async def read_form(request: Request, max_bytes: int) -> FormData:
    """The POST's form (url-encoded or multipart), read at most up to `max_bytes`: beyond, `Answer` 413 in the MCP
    SDK's words, as these endpoints said before."""
    if await bounded_body(request, max_bytes) is None:
        raise Answer(Response("Request body too large", status_code=413))
    return await request.form()


def openapi_document(title: str, version: str, description: str, routes: Sequence[BaseRoute]) -> dict[str, Any]:
    with warnings.catch_warnings():
        # A GET route's HEAD twin has the same operation id; it is dropped below.
        warnings.filterwarnings("ignore", message="Duplicate Operation ID")
        document = get_openapi(title=title, version=version, description=description, routes=list(routes))
    for operations in document.get("paths", {}).values():
        operations.pop("head", None)
    return document
