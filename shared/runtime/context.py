"""What a handler gets besides its arguments (dependency injection instead of globals)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contract.errors import ErrorCode, ToolFailure
from shared.auth.principal import Principal
from shared.db.scoped import OfficeData, SeekerData
from shared.db.session import Database
from shared.paging.cursor import CursorCodec
from shared.settings import Settings

if TYPE_CHECKING:
    from shared.catalog.search import Snapshot


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


# progress so far, the total when known, a German message; sends an MCP progress notification when the client
# asked for them (a progressToken in the request's _meta) and does nothing otherwise
ProgressReporter = Callable[[float, float | None, str | None], None]


@dataclass(frozen=True)
class ToolContext:
    db: Database
    settings: Settings
    cursors: CursorCodec
    now: Callable[[], dt.datetime] = field(default=utc_now)
    caller: Principal | None = None  # set per call by the runtime after the right check
    progress: ProgressReporter | None = None  # set per call by the runtime; see report_progress
    # set per call by the runtime: the caller's client is registered as a card host and the request (or its 2025-11-25
    # session) declares MCP Apps (shared/runtime/hosts.py, shows_card); only then does a result carry the card's token,
    # and only then does the card's click execute
    app_host: bool = False
    # set per call by the runtime: the client declared URL-mode elicitation in this request (2026-07-28), and its
    # answers to earlier ones (PageVisit.key → accept, decline or cancel), sent with the retry
    opens_pages: bool = False
    page_answers: Mapping[str, str] = field(default_factory=dict)
    # set per call by the runtime for a public read it may keep: the catalog's revision as it read it for the read
    # cache, so the handler's snapshot is that one and not a second read (shared.catalog.search.snapshot)
    catalog: Snapshot | None = None

    def report_progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far a long call is (from the handler's worker thread); a no-op without a reporter."""
        if self.progress is not None:
            self.progress(done, total, message)

    def office(self) -> OfficeData:
        """The caller's office data; the runtime has checked the right, this checks the membership."""
        if self.caller is None or self.caller.office_id is None:
            raise ToolFailure(
                ErrorCode.MISSING_RIGHT,
                "Dieses Werkzeug braucht die Anmeldung als Mitglied eines Maklerbüros: bitte mit einem Makler-Konto verbinden.",
            )
        return OfficeData(self.caller.office_id)

    def seeker(self) -> SeekerData:
        if self.caller is None:
            raise ToolFailure(ErrorCode.MISSING_RIGHT, "Dieses Werkzeug braucht eine Anmeldung: bitte das Konto verbinden.")
        return SeekerData(self.caller.user_id)
