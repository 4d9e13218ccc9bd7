"""The confirmation card's states that are not a plain click, in the official MCP Apps host (@modelcontextprotocol/
ext-apps AppBridge with the TypeScript client in Chromium, tests/mcp_host.py and tests/test_mcp_apps_host.py): a draft
of only invisible characters offers no "Senden", a click the host refuses for a missing right names that right, a tool
call the host cancels ends the loading state with the host's reason, and each refusal of the click has its own heading.

Each state is photographed at a desktop's and a phone's width into the test's temp folder; the one the docs page
"Bestätigungskarte" shows (a missing right, on a phone) also into the folder named by ATHAUS_SCREENSHOTS."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from shared.db.models import Inquiry, Listing, PendingAction, Proposal
from tests.confirmation_helpers import open_inquiry, open_proposal
from tests.conftest import LiveServer
from tests.mcp_host import host_site, sandbox_url  # noqa: F401  (the page's fixtures)
from tests.test_confirmation_browser import OWNER, access_token, keep_screenshot
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)
from tests.test_mcp_apps_host import Card, messages, pending_status, published, server  # noqa: F401  (server: the module's app)

INVISIBLE = "\u200b\u2060\u00ad\u2800\ufeff\u3164"  # zero-width space, word joiner, soft hyphen, Braille blank, BOM, Hangul filler
WIDTHS = {"desktop": 1280, "telefon": 390}  # desktop first: the host keeps a frame at the width the card last reported
SEND_RIGHT = "Hinausgehen lassen (mit deinem Klick)"  # contract.rights.BROKER_SEND.label


def key() -> str:
    """A request_id of its own for each draft (a retry of the same call would return the first draft)."""
    return str(uuid.uuid4())


@pytest.fixture
def card(browser: Any, host_site: str, sandbox_url: str, server: LiveServer) -> Iterator[Any]:  # noqa: F811
    opened: list[Card] = []

    def open_card(**options: Any) -> Card:
        tab = Card(browser, host_site, sandbox_url, server, **options)
        opened.append(tab)
        return tab

    yield open_card
    for tab in opened:
        tab.close()


def photograph(tab: Card, folder: Path, name: str, docs: str | None = None) -> None:
    """The card as the host shows it at a desktop's and then at a phone's width (the host's column follows the window);
    the tab stays at the phone's. `docs`: the width whose picture the docs page shows."""
    page = tab.host.page
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("width => { document.getElementById('slot').style.width = width < 800 ? 'auto' : '760px'; }", width)
        page.wait_for_timeout(300)  # the card reports its new size, the host resizes the frame
        inner = tab.frame.locator("main").evaluate("node => Math.ceil(node.getBoundingClientRect().width)")
        assert inner <= width - 40, (label, inner)  # fits the window: no sideways scrolling on a phone
        shot = folder / f"karte-{name}-{label}.png"
        page.locator("iframe").screenshot(path=str(shot))
        if label == docs:
            keep_screenshot(shot, shot.name)
        assert shot.stat().st_size > 5_000, shot.name  # a rendered card, not a blank one


def state(tab: Card) -> dict[str, Any]:
    """What the card shows: heading, status box, hint, buttons, and whether it says it is still loading."""
    tab.frame.locator("#status").wait_for(state="visible")
    return {
        "h1": tab.frame.locator("h1").inner_text(),
        "status": tab.status(),
        "busy": tab.frame.locator("main").get_attribute("aria-busy"),
        "buttons": tab.buttons(),
    }


def test_a_draft_of_only_invisible_characters_is_never_offered_for_sending(card: Any, server: LiveServer, tmp_path: Path) -> None:
    """The server refuses such a draft now (tests/test_confirmations_http.py); a card of one that got through (drafted
    before, or a host that altered the result) shows no text and offers only "Verwerfen"."""
    arguments = {"inquiry_id": open_inquiry(server.db), "text": "Wird gleich unsichtbar.", "request_id": key()}  # type: ignore[attr-defined]
    drafted = card(broker=True).show("draft_reply", arguments)
    invisible = json.loads(json.dumps(drafted))
    invisible["structuredContent"]["text"] = f" {INVISIBLE}\n{INVISIBLE} "
    tab = card(broker=True)
    tab.show("draft_reply", result=invisible)
    tab.frame.get_by_role("button", name="Verwerfen").wait_for(state="visible")
    assert tab.buttons() == ["Verwerfen"]
    assert tab.frame.locator("#hint").inner_text() == "Dieser Entwurf hat keinen Text; gesendet wird so nichts. Lass ihn mit Text neu vorbereiten."
    assert tab.frame.locator("#body").is_hidden() and tab.frame.locator("#body-label").is_hidden()
    assert tab.frame.locator("main").get_attribute("aria-busy") == "false"
    photograph(tab, tmp_path, "unsichtbarer-text")
    assert tab.calls("decide_confirmation") == []
    assert tab.host.problems == []


def test_a_click_refused_for_a_missing_right_names_the_right(card: Any, server: LiveServer, tmp_path: Path) -> None:
    """A token without makler:senden: the host's client gets 403 insufficient_scope for decide_confirmation and passes
    the error on to the card, which names the missing right in German instead of "Keine Verbindung"."""
    tab = card(broker=True)
    tab.token = access_token(server, OWNER.email, "makler", ["makler:lesen", "makler:schreiben"])
    text = "Diese Antwort darf ohne das Recht zum Senden nicht hinausgehen. (Kartentest Recht fehlt)"
    draft = tab.show("draft_reply", {"inquiry_id": open_inquiry(server.db), "text": text, "request_id": key()})  # type: ignore[attr-defined]
    send = tab.frame.get_by_role("button", name="Senden")
    send.wait_for(state="visible")
    send.click()
    tab.frame.get_by_role("alert").wait_for(state="visible")
    (click,) = tab.calls("decide_confirmation")
    assert "Insufficient scope" in click["error"]  # the official client's error for the 403, as the host saw it
    shown = state(tab)
    assert shown["status"] == (
        "Recht fehlt",
        f"Dir fehlt das Recht „{SEND_RIGHT}“; es ging nichts hinaus. Verbinde Athaus in deinem Chat neu, erlaube dabei "
        "dieses Recht und klicke dann noch einmal.",
    )
    assert shown["busy"] == "false" and shown["buttons"] == ["Senden", "Verwerfen"]  # with the right, the same click works
    assert tab.frame.locator(":focus").get_attribute("id") == "status"
    photograph(tab, tmp_path, "recht-fehlt", docs="telefon")
    assert messages(server, text) == 0 and pending_status(server, draft["structuredContent"]["confirmation"]["confirmation_id"]) == ("pending", None)
    assert [problem for problem in tab.host.problems if "403" not in problem] == [], tab.host.problems  # the refused request itself


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ("user action", "Grund laut deinem Chat: von dir abgebrochen."),
        ("timeout", "Grund laut deinem Chat: Zeitüberschreitung."),
        ("Unterhaltung geschlossen", "Grund laut deinem Chat: „Unterhaltung geschlossen“."),
        (None, "Dein Chat hat keinen Grund genannt."),
    ],
)
def test_a_cancelled_call_ends_the_loading_state_and_says_the_hosts_reason(
    card: Any, server: LiveServer, tmp_path: Path, reason: str | None, said: str
) -> None:
    tab = card(broker=True)
    setup = {"url": f"{server.base_url}/makler/mcp", "token": tab.token, "tool": "draft_reply", "sandboxUrl": tab.sandbox, "cancelled": reason}
    setup["args"] = {"inquiry_id": open_inquiry(server.db), "text": "Wird abgebrochen.", "request_id": key()}  # type: ignore[attr-defined]
    assert tab.host.js("setup => window.athausHost.showCard(setup)", setup) is None
    shown = state(tab)
    assert shown == {
        "h1": "Nichts vorbereitet",
        "status": ("Abgebrochen", f"Der Aufruf wurde abgebrochen, bevor ein Entwurf fertig war; es geht nichts hinaus. {said}"),
        "busy": "false",
        "buttons": [],
    }
    assert "wird geladen" not in tab.frame.locator("main").inner_text()
    if reason == "user action":
        photograph(tab, tmp_path, "abgebrochen")
    assert tab.calls() == [] and tab.host.problems == []


def test_each_refusal_of_the_click_has_its_own_heading(card: Any, server: LiveServer, tmp_path: Path) -> None:
    """The click refused because the listing was withdrawn, the inquiry closed, the proposal decided, the draft changed
    since the card showed it (each CONFLICT, told apart by `_meta["athaus/reason"]`), or with a token that is not this
    draft's: each under a heading of its own with the server's sentence, and nothing goes out."""
    db = server.db  # type: ignore[attr-defined]

    def refused(tab: Card, change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        tab.frame.get_by_role("button", name="Senden").wait_for(state="visible")
        change()
        tab.frame.get_by_role("button", name="Senden").click()
        tab.frame.get_by_role("alert").wait_for(state="visible")
        (click,) = tab.calls("decide_confirmation")
        return click["result"], state(tab)

    # the listing withdrawn after the seeker's inquiry was drafted
    seeker = card()
    listing = published(server)
    text = "Ist die Wohnung noch zu haben? (Kartentest zurückgezogenes Inserat)"
    draft = seeker.show("draft_inquiry", {"listing_id": listing, "message": text, "request_id": key()})

    def withdraw() -> None:
        with db.unit_of_work() as session:
            session.execute(update(Listing).where(Listing.ref == listing).values(status="withdrawn"))

    try:
        result, shown = refused(seeker, withdraw)
    finally:
        with db.unit_of_work() as session:
            session.execute(update(Listing).where(Listing.ref == listing).values(status="published"))
    assert (result["_meta"]["athaus/code"], result["_meta"]["athaus/reason"]) == ("CONFLICT", "listing_withdrawn")
    assert shown["status"] == ("Inserat nicht mehr veröffentlicht", result["content"][0]["text"]) and shown["buttons"] == []
    photograph(seeker, tmp_path, "inserat-zurueckgezogen")
    assert messages(server, text) == 0 and pending_status(server, draft["structuredContent"]["confirmation"]["confirmation_id"])[0] == "pending"

    # the inquiry closed after the reply was drafted
    office = card(broker=True)
    inquiry = open_inquiry(db)
    answer = "Gern, kommen Sie am Freitag vorbei. (Kartentest geschlossene Anfrage)"
    office.show("draft_reply", {"inquiry_id": inquiry, "text": answer, "request_id": key()})

    def close() -> None:
        with db.unit_of_work() as session:
            session.execute(update(Inquiry).where(Inquiry.ref == inquiry).values(status="closed"))

    try:
        result, shown = refused(office, close)
    finally:
        with db.unit_of_work() as session:
            session.execute(update(Inquiry).where(Inquiry.ref == inquiry).values(status="open"))
    assert result["_meta"]["athaus/reason"] == "inquiry_closed"
    assert shown["status"] == ("Anfrage geschlossen", result["content"][0]["text"]) and shown["buttons"] == []
    assert messages(server, answer) == 0

    # the proposal decided (elsewhere) after its acceptance was drafted
    deciding = card(broker=True)
    proposal, _ = open_proposal(db)
    deciding.show("decide_proposal", {"proposal_id": proposal, "decision": "accept"})

    def decide_elsewhere() -> None:
        with db.unit_of_work() as session:
            session.execute(update(Proposal).where(Proposal.ref == proposal).values(status="rejected"))

    try:
        result, shown = refused(deciding, decide_elsewhere)
    finally:
        with db.unit_of_work() as session:
            session.execute(update(Proposal).where(Proposal.ref == proposal).values(status="open"))
    assert result["_meta"]["athaus/reason"] == "proposal_decided"
    assert shown["status"] == ("Vorschlag schon entschieden", result["content"][0]["text"]) and shown["buttons"] == []

    # the draft changed after the card showed it
    changed = card(broker=True)
    answer = "Diese Fassung ist überholt. (Kartentest geänderter Inhalt)"
    draft = changed.show("draft_reply", {"inquiry_id": open_inquiry(db), "text": answer, "request_id": key()})
    ref = draft["structuredContent"]["confirmation"]["confirmation_id"]

    def revise() -> None:
        with db.unit_of_work() as session:
            session.execute(update(PendingAction).where(PendingAction.ref == ref).values(payload_hash="0" * 64))

    result, shown = refused(changed, revise)
    assert result["_meta"]["athaus/reason"] == "changed"
    assert shown["status"] == ("Inhalt geändert", result["content"][0]["text"]) and shown["buttons"] == []
    assert messages(server, answer) == 0

    # a token that is not this draft's: no reason, its code's heading; the buttons stay (the newest card may work)
    forged = card(broker=True)
    answer = "Mit falschem Token darf nichts hinausgehen. (Kartentest ungültige Bestätigung)"
    draft = forged.show("draft_reply", {"inquiry_id": open_inquiry(db), "text": answer, "request_id": key()})
    wrong = json.loads(json.dumps(draft))
    wrong["_meta"]["athaus/confirmation"]["token"] = "gefaelscht-" + "x" * 32
    shown_again = card(broker=True)
    shown_again.show("draft_reply", result=wrong)
    result, shown = refused(shown_again, lambda: None)
    assert result["_meta"]["athaus/code"] == "CONFIRMATION_INVALID" and "athaus/reason" not in result["_meta"]
    assert shown["status"] == ("Bestätigung ungültig", result["content"][0]["text"]) and shown["buttons"] == ["Senden", "Verwerfen"]
    assert messages(server, answer) == 0
    assert [tab.host.problems for tab in (seeker, office, deciding, changed, forged, shown_again)] == [[]] * 6
