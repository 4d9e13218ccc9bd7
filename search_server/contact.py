"""Handlers of the seeker's inquiries that go out: draft_inquiry, send_inquiry and the card's click.

Everything that is not MCP lives in `shared.confirmations`: the payload, the stored draft, the token, the execution."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from contract.confirmations import DecideConfirmationInput, SendInput
from contract.envelope import WithMeta
from contract.seeker_contact import DraftInquiryInput
from contract.vocabulary import PendingActionKind
from shared import confirmations
from shared.db.models import PendingAction
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler

KINDS = (PendingActionKind.send_inquiry.value,)


def _ttl(ctx: ToolContext) -> dt.timedelta:
    return dt.timedelta(hours=ctx.settings.confirmation_ttl_hours)


def draft_inquiry(args: DraftInquiryInput, ctx: ToolContext) -> WithMeta:
    seeker = ctx.seeker()
    now = ctx.now()

    def make(session: Session) -> PendingAction:
        payload = confirmations.inquiry_payload(
            session, seeker_id=seeker.user_id, listing_ref=args.listing_id, message=args.message, share=[s.value for s in args.share], about=args.about
        )
        return confirmations.prepare(
            session, payload=payload, user_id=seeker.user_id, office_id=None, subject_ref=args.listing_id, now=now, ttl=_ttl(ctx), revise=args.confirmation_id
        )

    return confirmations.draft_once(
        ctx.db, user_id=seeker.user_id, operation="draft_inquiry", key=args.request_id, request=args.model_dump(mode="json", exclude={"request_id"}),
        now=now, app_url=ctx.settings.public_url, token=ctx.app_host, make=make,
    )


def send_inquiry(args: SendInput, ctx: ToolContext) -> WithMeta:
    seeker = ctx.seeker()
    now = ctx.now()
    with ctx.db.unit_of_work() as session:
        action = confirmations.own_action(session, args.confirmation_id, user_id=seeker.user_id, kinds=KINDS)
        return confirmations.send_or_show(
            session, action, user_id=seeker.user_id, now=now, app_url=ctx.settings.public_url, token=ctx.app_host, page_answers=ctx.page_answers
        )


def decide_confirmation(args: DecideConfirmationInput, ctx: ToolContext) -> WithMeta:
    seeker = ctx.seeker()
    now = ctx.now()
    with ctx.db.unit_of_work() as session:
        outcome = confirmations.execute(
            session,
            confirmation_id=args.confirmation_id,
            user_id=seeker.user_id,
            decision=args.decision,
            token=args.token,
            shown_payload_hash=args.payload_hash,
            via="card",
            now=now,
            app_url=ctx.settings.public_url,
            kinds_here=KINDS,
            from_app_host=ctx.app_host,
        )
        return WithMeta(outcome.result, {})


def get_confirmation(args: SendInput, ctx: ToolContext) -> WithMeta:
    seeker, now = ctx.seeker(), ctx.now()
    with ctx.db.unit_of_work() as session:
        return confirmations.current_state(session, args.confirmation_id, user_id=seeker.user_id, kinds=KINDS, now=now, app_url=ctx.settings.public_url)


HANDLERS: dict[str, Handler] = {
    "draft_inquiry": draft_inquiry,
    "send_inquiry": send_inquiry,
    "decide_confirmation": decide_confirmation,
    "get_confirmation": get_confirmation,
}
