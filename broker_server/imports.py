"""Handler of import_listings: an OpenImmo transfer, passed or fetched from the office's feed, into the stock."""

from __future__ import annotations

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
from shared.stock_import.fetch import too_large


def import_listings(args: ImportListingsInput, ctx: ToolContext) -> ImportListingsOutput:
    office = ctx.office()
    assert ctx.caller is not None
    limit = ctx.settings.openimmo_max_bytes
    if (args.xml is None) == (not args.from_feed):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "Bitte genau eine Quelle angeben: die Übertragung als xml oder from_feed true für die Feed-Adresse des Büros.",
        )
    source: IO[bytes]
    if args.xml is not None:
        data = args.xml.encode("utf-8")
        if len(data) > limit:
            raise too_large(limit)
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
            progress=ctx.report_progress, preview=args.preview,
        )


HANDLERS: dict[str, Handler] = {"import_listings": import_listings}  # type: ignore[dict-item]
