"""Handlers of what an office sends: draft_reply, send_reply, decide_proposal and the card's click.

Everything that is not MCP lives in `shared.confirmations`: the payload, the stored draft, the token, the execution."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from contract.broker_outbound import DecideProposalInput, DraftReplyInput
from contract.confirmations import DecideConfirmationInput, OutboundResult, SendInput
from contract.envelope import WithMeta
from contract.vocabulary import PendingActionKind, ProposalDecision
from shared import confirmations
from shared.db.models import PendingAction
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler

KINDS = (PendingActionKind.send_reply.value, PendingActionKind.decide_proposal.value)


def _user(ctx: ToolContext) -> int:
    ctx.office()  # a member of an office, or MISSING_RIGHT
    assert ctx.caller is not None
    return ctx.caller.user_id


def _ttl(ctx: ToolContext) -> dt.timedelta:
    return dt.timedelta(hours=ctx.settings.confirmation_ttl_hours)


def draft_reply(args: DraftReplyInput, ctx: ToolContext) -> WithMeta:
    office, user_id, now = ctx.office(), _user(ctx), ctx.now()

    def make(session: Session) -> PendingAction:
        payload = confirmations.reply_payload(session, office_id=office.office_id, author_id=user_id, inquiry_ref=args.inquiry_id, text=args.text)
        return confirmations.prepare(
            session, payload=payload, user_id=user_id, office_id=office.office_id, subject_ref=args.inquiry_id, now=now, ttl=_ttl(ctx), revise=args.confirmation_id
        )

    return confirmations.draft_once(
        ctx.db, user_id=user_id, operation="draft_reply", key=args.request_id, request=args.model_dump(mode="json", exclude={"request_id"}),
        now=now, app_url=ctx.settings.public_url, token=ctx.app_host, make=make,
    )


def send_reply(args: SendInput, ctx: ToolContext) -> WithMeta:
    user_id, now = _user(ctx), ctx.now()
    with ctx.db.unit_of_work() as session:
        action = confirmations.own_action(session, args.confirmation_id, user_id=user_id, kinds=(PendingActionKind.send_reply.value,))
        return confirmations.send_or_show(
            session, action, user_id=user_id, now=now, app_url=ctx.settings.public_url, token=ctx.app_host, page_answers=ctx.page_answers
        )


def decide_proposal(args: DecideProposalInput, ctx: ToolContext) -> WithMeta | OutboundResult:
    office, user_id, now = ctx.office(), _user(ctx), ctx.now()
    with ctx.db.unit_of_work() as session:
        if args.decision is ProposalDecision.reject:
            proposal_ref = args.proposal_id
            _, payload = confirmations.proposal_payload(session, office_id=office.office_id, proposal_ref=proposal_ref, message=None)
            confirmations.reject_proposal(session, office_id=office.office_id, proposal_ref=proposal_ref, now=now)
            return OutboundResult(
                outcome=f"Vorschlag {proposal_ref} abgelehnt; das gilt sofort, ohne Klick. Die/der Suchende erfährt nichts davon.",
                recipient=payload["recipient"],
                sender=payload["sender"],
                subject=payload["subject"],
                text=None,
                shared_contact=[],
                inquiry_id=None,
                confirmation=None,
            )
        _, payload = confirmations.proposal_payload(session, office_id=office.office_id, proposal_ref=args.proposal_id, message=args.message)
        waiting = session.scalar(
            select(PendingAction.ref).where(
                PendingAction.user_id == user_id,
                PendingAction.kind == PendingActionKind.decide_proposal.value,
                PendingAction.subject_ref == args.proposal_id,
                PendingAction.status == "pending",
                PendingAction.expires_at > now,
            )
        )
        action = confirmations.prepare(
            session, payload=payload, user_id=user_id, office_id=office.office_id, subject_ref=args.proposal_id, now=now, ttl=_ttl(ctx), revise=waiting
        )
        return confirmations.send_or_show(
            session, action, user_id=user_id, now=now, app_url=ctx.settings.public_url, token=ctx.app_host, page_answers=ctx.page_answers
        )


def decide_confirmation(args: DecideConfirmationInput, ctx: ToolContext) -> WithMeta:
    user_id, now = _user(ctx), ctx.now()
    with ctx.db.unit_of_work() as session:
        outcome = confirmations.execute(
            session,
            confirmation_id=args.confirmation_id,
            user_id=user_id,
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
    user_id, now = _user(ctx), ctx.now()
    with ctx.db.unit_of_work() as session:
        return confirmations.current_state(session, args.confirmation_id, user_id=user_id, kinds=KINDS, now=now, app_url=ctx.settings.public_url)


HANDLERS: dict[str, Handler] = {
    "draft_reply": draft_reply,
    "send_reply": send_reply,
    "decide_proposal": decide_proposal,
    "decide_confirmation": decide_confirmation,
    "get_confirmation": get_confirmation,
}
