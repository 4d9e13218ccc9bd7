"""The stored images at stable URLs under the public address: `GET /bilder/<name>` (a name is the digest of the stored
bytes, so it never changes and never collides; it is handed out only in the listings that show the photo)."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter
from starlette.responses import PlainTextResponse, Response

from shared.images.store import ImageStore
from shared.routing import HeadRoute

IMAGE_ROUTE = "/bilder/{name}"
NOT_FOUND = "Dieses Bild gibt es nicht (mehr): bitte das Inserat neu laden."


def image_router(store: ImageStore) -> APIRouter:
    router = APIRouter(route_class=HeadRoute, tags=["Bilder"])

    @router.get(IMAGE_ROUTE, summary="Gespeichertes Bild eines Inserats", response_class=Response)
    async def image(name: str) -> Response:
        found = await anyio.to_thread.run_sync(store.get, name)
        if found is None:
            return PlainTextResponse(NOT_FOUND, status_code=404)
        data, content_type = found
        return Response(data, media_type=content_type, headers={
            "Cache-Control": "public, max-age=31536000, immutable",  # the name is the content's digest
            "X-Content-Type-Options": "nosniff",
        })

    return router
