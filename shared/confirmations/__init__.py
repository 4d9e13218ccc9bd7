"""Confirmations: what a tool prepares and a person's click executes (SPEC section 7). Used by both MCP servers (the
draft_/send_/decide_ tools and the card's click tool `decide_confirmation`) and by the web app (/app/).

Interface (stable):

`execute(session, *, confirmation_id, user_id, decision, token, shown_payload_hash, via, now, app_url="",
kinds_here=None) -> Outcome`
    Sends (decision "send") or discards ("discard") the pending action `confirmation_id` of `user_id`, inside the
    caller's transaction (`db.unit_of_work()`; commit = done, an exception rolls everything back).
    - via="card": the card's click; `token` (from the result's `_meta["athaus/confirmation"]`) is required.
    - via="app": the web app, authenticated by login session and CSRF; pass token=None.
    - via="no_click": a send_/decide_ call where the office owner allowed the kind without a click.
    `shown_payload_hash` is the hash the card or page showed (required for card and app).
    Raises `contract.errors.ToolFailure` with a German sentence naming the next step: CONFIRMATION_INVALID
    (unknown, another user's or another office's, forged token, a kind of the other server: nothing executed),
    CONFIRMATION_EXPIRED, CONFLICT (payload changed since shown, or inquiry closed / listing offline / proposal decided).
    A repeated call for a decided action executes nothing and returns it as it is (`Outcome.replayed` True).
    `Outcome`: confirmation_id, status (ConfirmationStatus: pending | sent | discarded | expired | sent_without_click),
    replayed, result (the `OutboundResult` the tools return, German), inquiry_id (the thread written into, if any).

`current_state(session, ref, *, user_id, kinds, now, app_url) -> WithMeta`
    The card's question when it starts (`get_confirmation`): the confirmation as it is now, `_meta` with its current
    payload hash and never the token.

`list_pending(session, *, user_id, now) -> list[PendingView]`
    The user's actions still waiting for a click, oldest first, with what the card shows: summary, action_label,
    recipient (to whom), sender (from whom), subject, text, shared_contact, expires_at / expires_text, payload_hash.

Also: `prepare` (store a draft), `card_result` (a tool's answer with the token only in `_meta`),
`allowed_without_click` / `set_without_click` (the office owner's setting), `reject_proposal`.
"""

from __future__ import annotations

from shared.confirmations.execute import Outcome, Via, allowed_without_click, execute, send_or_show, set_without_click
from shared.confirmations.kinds import inquiry_payload, proposal_payload, reject_proposal, reply_payload
from shared.confirmations.store import CardResult, card_result, draft_once, own_action, prepare, status_of
from shared.confirmations.views import PendingView, current_state, list_pending, one_for_page

__all__ = [
    "CardResult",
    "Outcome",
    "PendingView",
    "Via",
    "allowed_without_click",
    "card_result",
    "current_state",
    "draft_once",
    "execute",
    "inquiry_payload",
    "list_pending",
    "one_for_page",
    "own_action",
    "prepare",
    "proposal_payload",
    "reject_proposal",
    "reply_payload",
    "send_or_show",
    "set_without_click",
    "status_of",
]
