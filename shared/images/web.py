"""The stored images at stable URLs under the public address: `GET /bilder/<name>` (the stored image) and
`GET /bilder/<size>/<name>` (klein, mittel, gross: a card's thumbnail, the exposé's gallery, the enlarged photo). A
name is the digest of the stored bytes, so it never changes and never collides: cached for good (immutable), with an
ETag for a revalidating client.

An image is served only for a listing the caller may see: a published listing's photos for anyone; a draft's or a
withdrawn listing's only to a signed-in person of its office (web-app session). Anything else is answered exactly as an
unknown name, so a draft never shows that its photo exists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio.to_thread
from fastapi import APIRouter, Request
from sqlalchemy import Text, cast, select
from starlette.responses import PlainTextResponse, Response

from contract.vocabulary import ListingStatus
from shared.db.models import Listing
from shared.db.session import Database
from shared.images.store import NAME, SIZES, ImageStore
from shared.routing import HeadRoute

IMAGE_PATH = "/bilder/"
IMAGE_ROUTE = "/bilder/{name}"
SIZED_ROUTE = "/bilder/{size}/{name}"
NOT_FOUND = "Dieses Bild gibt es nicht (mehr): bitte das Inserat neu laden."
HEADERS = {
    "Cache-Control": "public, max-age=31536000, immutable",  # the name is the content's digest
    "X-Content-Type-Options": "nosniff",
}
PRIVATE_HEADERS = {  # a draft's photo: for its office only, never kept by a shared cache
    "Cache-Control": "private, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    "Vary": "Cookie",
}

OfficeOf = Callable[[Request], Awaitable[int | None]]


def visibility(db: Database, name: str, office_id: int | None) -> str | None:
    """'public' (a published listing shows it), 'office' (only the caller's office's unpublished listing does), or None.
    The listings' photo lists hold the image's URL, which ends in `/bilder/<name>`; the name is hex digits and one
    extension, so it is safe in a LIKE pattern."""
    pattern = f'%{IMAGE_PATH}{name}"%'
    with db.read_only() as session:
        rows = session.execute(select(Listing.status, Listing.office_id).where(cast(Listing.photos, Text).like(pattern))).all()
    if any(status == ListingStatus.published.value for status, _ in rows):
        return "public"
    if office_id is not None and any(office == office_id for _, office in rows):
        return "office"
    return None


def image_router(store: ImageStore, db: Database, office_of: OfficeOf) -> APIRouter:
    router = APIRouter(route_class=HeadRoute, tags=["Bilder"])

    async def answer(request: Request, name: str, size: str | None) -> Response:
        missing = PlainTextResponse(NOT_FOUND, status_code=404, headers={"X-Content-Type-Options": "nosniff"})
        if not NAME.fullmatch(name) or (size is not None and size not in SIZES):
            return missing
        seen = await anyio.to_thread.run_sync(visibility, db, name, None)
        if seen is None:  # not public: only a signed-in person of the listing's office
            office_id = await office_of(request)
            if office_id is None:
                return missing
            seen = await anyio.to_thread.run_sync(visibility, db, name, office_id)
            if seen is None:
                return missing
        found = await anyio.to_thread.run_sync(store.get, name) if size is None else await anyio.to_thread.run_sync(store.sized, name, size)
        if found is None:
            return missing
        headers = {**(HEADERS if seen == "public" else PRIVATE_HEADERS), "ETag": f'"{name.split(".")[0]}-{size or "original"}"'}
        if headers["ETag"] in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]:
            return Response(status_code=304, headers=headers)
        data, content_type = found
        return Response(data, media_type=content_type, headers=headers)

    @router.get(IMAGE_ROUTE, summary="Gespeichertes Bild eines Inserats", response_class=Response)
    async def image(request: Request, name: str) -> Response:
        return await answer(request, name, None)

    @router.get(SIZED_ROUTE, summary="Gespeichertes Bild eines Inserats in einer Größe (klein, mittel, gross)", response_class=Response)
    async def sized(request: Request, size: str, name: str) -> Response:
        return await answer(request, name, size)

    return router
