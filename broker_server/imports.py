"""Handler of import_listings: an OpenImmo transfer, passed or fetched from the office's feed, into the stock."""

from __future__ import annotations

import base64
import binascii
import io
from typing import IO

from sqlalchemy import select

from contract.broker_import import ImportListingsInput, ImportListingsOutput
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import TransferSource
from shared.db.models import Office
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.stock_import import fetch_feed, import_transfer
from shared.images import FolderStore
from shared.stock_import.fetch import too_large
from shared.stock_import.transfer_zip import ZIP_MAGIC


def import_listings(args: ImportListingsInput, ctx: ToolContext) -> ImportListingsOutput:
    office = ctx.office()
    assert ctx.caller is not None
    limit = ctx.settings.openimmo_max_bytes
    if [args.xml is not None, args.zip_base64 is not None, args.from_feed].count(True) != 1:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "Bitte genau eine Quelle angeben: die Übertragung als xml, als zip_base64 oder from_feed true für die "
            "Feed-Adresse des Büros.",
        )
    source: IO[bytes]
    if args.xml is not None:
        data = args.xml.encode("utf-8")
        if len(data) > limit:
            raise too_large(limit)
        source, kind = io.BytesIO(data), TransferSource.upload
    elif args.zip_base64 is not None:
        try:
            data = base64.b64decode(args.zip_base64, validate=True)
        except (binascii.Error, ValueError):
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "zip_base64 ist kein gültiges Base64: bitte die ZIP-Datei "
                              "Base64-kodiert (ohne Zeilenumbrüche) senden.") from None
        if not data.startswith(ZIP_MAGIC):
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "zip_base64 enthält keine ZIP-Datei: bitte die ZIP-Übertragung "
                              "des Maklerprogramms senden oder die XML als xml.")
        source, kind = io.BytesIO(data), TransferSource.upload
    else:
        with ctx.db.read_only() as session:
            url = session.scalar(select(Office.openimmo_feed_url).where(Office.id == office.office_id))
        if not url:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                "Für dein Büro ist keine OpenImmo-Feed-Adresse eingestellt: bitte die Übertragung als xml übergeben "
                "oder die Feed-Adresse in den Büro-Einstellungen eintragen lassen.",
            )
        source = fetch_feed(
            url, max_bytes=limit, timeout=ctx.settings.openimmo_fetch_timeout_seconds, allow_http=ctx.settings.development
        )
        kind = TransferSource.feed
    with source:
        return import_transfer(
            ctx.db, source, source_kind=kind, office_id=office.office_id, user_id=ctx.caller.user_id,
            client_id=ctx.caller.client_id, max_bytes=limit, publish=args.publish, now=ctx.now(),
            progress=ctx.report_progress, preview=args.preview, images=FolderStore(ctx.settings.images_dir),
            public_url=ctx.settings.public_url,
        )


HANDLERS: dict[str, Handler] = {"import_listings": import_listings}  # type: ignore[dict-item]
