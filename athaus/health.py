"""Liveness and readiness of one instance.

`/healthz` (liveness): the process answers, nothing else. It does not ask the database: in an outage every instance
would fail it at once and be restarted together, which fixes nothing (issue 34); an outage is readiness's to say.
`/healthz/ready` (readiness): the instance is not draining (athaus/draining.py: 503 from SIGTERM on), the database
answers and its schema is the one this code was written for (`alembic current` equals the head of the migrations), so
an instance started before `athaus db upgrade` (or an old instance after it) takes no traffic. The database is asked
in a worker thread under its own short deadline: a hung database never holds the event loop, and no answer carries
the error's detail (it goes to the log)."""

from __future__ import annotations

import logging
from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse

from athaus.draining import Drain
from shared.db.migrate import applied_revisions, head_revisions, known_revisions
from shared.db.session import Database
from shared.identity import version
from shared.routing import HeadRoute
from shared.runtime.edge import RETRY_AFTER_SECONDS
from shared.runtime.failures import in_worker

log = logging.getLogger("athaus.app")
HEALTH_DEADLINE_SECONDS = 3.0

UNREACHABLE = "Die Datenbank antwortet nicht; diese Instanz nimmt keine Anfragen an, bis sie wieder erreichbar ist."
BEHIND = "Die Datenbank ist nicht auf dem Stand dieser Version: bitte `athaus db upgrade` ausführen."
DRAINING = "Diese Instanz wird beendet und nimmt gleich keine Anfragen mehr an; die anderen Instanzen übernehmen."
AHEAD = "Die Datenbank ist auf einem Stand, den diese Version nicht kennt (neuer oder fremd): bitte diese Instanz aktualisieren."


class Health(BaseModel):
    status: Literal["ok"] = Field(description="ok whenever the process answers (the database is readiness's to check)")
    version: str
    servers: list[str] = []


class Readiness(BaseModel):
    status: Literal["ready", "unavailable", "draining"] = Field(
        description="ready; unavailable: database or schema; draining: stopping after SIGTERM (ATHAUS_DRAIN_SECONDS)"
    )
    database: Literal["ok", "unreachable"] | None = None
    migrations: Literal["current", "behind", "unknown"] | None = Field(
        default=None, description="current: the schema is this code's; behind: `athaus db upgrade` is due; unknown: "
        "the database is at a revision this code does not have"
    )
    message: str | None = Field(default=None, description="Why not ready, in German")


def health_router(db: Database, served: list[str], drain: Drain | None = None) -> APIRouter:
    router = APIRouter(route_class=HeadRoute, tags=["Betrieb"])
    heads, known = head_revisions(db.engine), known_revisions(db.engine)

    def applied() -> frozenset[str]:
        with db.engine.connect() as connection:
            return applied_revisions(connection)

    @router.get("/healthz", response_model=Health, response_model_exclude_none=True, summary="Lebt der Dienst?")
    async def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok", "version": version(), "servers": served})

    @router.get(
        "/healthz/ready",
        response_model=Readiness,
        response_model_exclude_none=True,
        responses={503: {"model": Readiness, "description": "Nicht bereit: läuft aus, Datenbank nicht erreichbar oder Schema nicht aktuell"}},
        summary="Bereit für Anfragen? (läuft nicht aus, Datenbank erreichbar, Migrationen aktuell)",
    )
    async def ready() -> JSONResponse:
        if drain is not None and drain.draining:
            return _not_ready(Readiness(status="draining", message=DRAINING))
        try:
            current = await in_worker(HEALTH_DEADLINE_SECONDS, applied)
        except Exception as error:
            log.warning('{"event": "readiness_check_failed", "error": "%s"}', type(error).__name__)
            return _not_ready(Readiness(status="unavailable", database="unreachable", message=UNREACHABLE))
        if current == heads:
            return JSONResponse(Readiness(status="ready", database="ok", migrations="current").model_dump(exclude_none=True))
        unknown = not current <= known
        log.warning('{"event": "readiness_check_failed", "error": "migrations_%s"}', "unknown" if unknown else "behind")
        state = Readiness(
            status="unavailable", database="ok", migrations="unknown" if unknown else "behind", message=AHEAD if unknown else BEHIND
        )
        return _not_ready(state)

    return router


def _not_ready(state: Readiness) -> JSONResponse:
    return JSONResponse(state.model_dump(exclude_none=True), status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
