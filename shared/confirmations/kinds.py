"""What each kind of prepared action carries and does when it is executed.

A payload is plain JSON with the same keys for every kind (what the card shows: `recipient`, `sender`, `subject`,
`text`, `shared_contact`) and the references the execution needs. `prepare_*` builds it from the database; `run`
executes it inside the caller's transaction: it writes the message into the conversation (the other side sees it
at once) and an outbox row for the e-mail. A world that changed since the draft (listing offline, inquiry closed,
proposal decided) raises CONFLICT with the next step.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from contract.confirmations import Refusal
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import SHARED_PROFILE_LABELS, InquiryStatus, MessageAuthor, PendingActionKind, ProposalStatus
from shared import german
from shared.db.models import Inquiry, InquiryMessage, Listing, Match, Office, PendingAction, Proposal, SearchOrder, User
from shared.outbox import enqueue
from shared.runtime.render import framed

PUBLISHED = "published"


def _profile_lines(profile: dict[str, Any]) -> list[list[str]]:
    return [[SHARED_PROFILE_LABELS.get(key, key), str(value)] for key, value in profile.items() if value not in (None, "", [])]


# --- preparing ---------------------------------------------------------------------------------------------------


def inquiry_payload(session: Session, *, seeker_id: int, listing_ref: str, message: str, share: list[str], about: str | None) -> dict[str, Any]:
    listing = session.scalar(select(Listing).where(Listing.ref == listing_ref))
    if listing is None or listing.status != PUBLISHED:
        raise ToolFailure(
            ErrorCode.NOT_FOUND,
            f"Ein veröffentlichtes Inserat {listing_ref} gibt es nicht: bitte die Nummer prüfen oder mit search_listings suchen.",
        )
    seeker = session.get(User, seeker_id)
    assert seeker is not None
    office = session.get(Office, listing.office_id)
    assert office is not None
    values = {"name": seeker.name, "email": seeker.email, "phone": seeker.phone}
    profile: dict[str, Any] = {key: values[key] for key in ("name", "email", "phone") if key in share and values.get(key)}
    if about:
        profile["about"] = about
    existing = session.scalar(
        select(Inquiry.ref)
        .where(Inquiry.seeker_id == seeker_id, Inquiry.listing_id == listing.id, Inquiry.status != InquiryStatus.closed.value)
        .order_by(Inquiry.id.desc())
        .limit(1)
    )
    return {
        "kind": PendingActionKind.send_inquiry.value,
        "listing_id": listing.ref,
        "office_id": office.id,
        "inquiry_id": existing,
        "recipient": f"{office.name} (Anbieter von {listing.ref})",
        "sender": str(profile.get("name") or "du (ohne Namen)"),
        "subject": f"Anfrage zu {framed(listing.title)} ({listing.ref})",
        "text": message,
        "shared_profile": profile,
        "shared_contact": _profile_lines(profile),
    }


# The inquiry with its listing, office and the reply's author, in one statement (was four)
_REPLY_FACTS = (
    select(
        Inquiry.ref,
        Inquiry.status,
        Inquiry.shared_profile,
        Listing.ref.label("listing_ref"),
        Listing.title.label("listing_title"),
        Office.name.label("office_name"),
        User.name.label("author_name"),
    )
    .outerjoin(Listing, Listing.id == Inquiry.listing_id)
    .outerjoin(Office, Office.id == Inquiry.office_id)
    .outerjoin(User, User.id == bindparam("author_id"))
    .where(Inquiry.ref == bindparam("inquiry_ref"), Inquiry.office_id == bindparam("office_id"))
)


def reply_payload(session: Session, *, office_id: int, author_id: int, inquiry_ref: str, text: str) -> dict[str, Any]:
    inquiry = session.execute(_REPLY_FACTS, {"inquiry_ref": inquiry_ref, "office_id": office_id, "author_id": author_id}).first()
    if inquiry is None:
        raise ToolFailure(
            ErrorCode.NOT_FOUND, "Diese Anfrage gibt es bei deinem Büro nicht: bitte die Anfragenummer prüfen oder mit search_inquiries suchen."
        )
    if inquiry.status == InquiryStatus.closed.value:
        raise ToolFailure(ErrorCode.CONFLICT, f"Die Anfrage {inquiry_ref} ist geschlossen: eine Antwort geht nicht mehr hinaus.", Refusal.inquiry_closed)
    if (inquiry.shared_profile or {}).get("geloescht"):
        raise ToolFailure(ErrorCode.CONFLICT, seeker_gone(inquiry.ref), Refusal.inquiry_closed)
    assert inquiry.office_name is not None and inquiry.author_name is not None and inquiry.listing_ref is not None
    seeker_name = (inquiry.shared_profile or {}).get("name") or "die/der Suchende (Name nicht freigegeben)"
    return {
        "kind": PendingActionKind.send_reply.value,
        "inquiry_id": inquiry.ref,
        "listing_id": inquiry.listing_ref,
        "office_id": office_id,
        "author_id": author_id,
        "recipient": f"{seeker_name} (Anfrage {inquiry.ref})",
        "sender": f"{inquiry.author_name}, {inquiry.office_name}",
        "subject": f"Antwort zu {framed(inquiry.listing_title)} ({inquiry.listing_ref})",
        "text": text,
        "shared_contact": [],
    }


def decided(proposal_ref: str, status: str) -> str:
    """The refusal of a decision on a proposal that is no longer open, saying which way it went."""
    if status == ProposalStatus.accepted.value:
        return f"Der Vorschlag {proposal_ref} wurde inzwischen angenommen und das Exposé verschickt; ablehnen geht nicht mehr. list_proposals zeigt seinen Status."
    if status == ProposalStatus.rejected.value:
        return f"Der Vorschlag {proposal_ref} wurde inzwischen abgelehnt; das Exposé ist nicht hinausgegangen. list_proposals zeigt seinen Status."
    return f"Der Vorschlag {proposal_ref} ist inzwischen entschieden: list_proposals zeigt seinen Status."


def locked_proposal(session: Session, *, office_id: int, proposal_ref: str) -> Proposal | None:
    """The office's proposal, locked for this transaction (PostgreSQL FOR UPDATE; SQLite's unit of work holds the
    write lock already) and read afresh.

    Lock order: every writer of a proposal and of its accept drafts takes the proposal first, then the drafts
    (`proposal_payload`, `reject_proposal`, and the click through `lock_subject`). A click that claimed the draft first
    and a reject that updated the proposal first waited on each other: a deadlock in 20 of 20 rounds on PostgreSQL."""
    return session.scalar(
        select(Proposal).where(Proposal.ref == proposal_ref, Proposal.office_id == office_id).with_for_update().execution_options(populate_existing=True)
    )


def lock_subject(session: Session, action: PendingAction) -> bool:
    """Before a click claims `action`: lock the row its execution writes besides the draft (a proposal), in the one
    order of `locked_proposal`; whether it locked one. Replies and inquiries need none: no writer holds an inquiry
    while it waits for a draft."""
    if action.kind == PendingActionKind.decide_proposal.value and action.office_id is not None:
        locked_proposal(session, office_id=action.office_id, proposal_ref=action.subject_ref)
        return True
    return False


def seeker_gone(inquiry_ref: str) -> str:
    """The refusal of a reply to a seeker who deleted their account (shared.accounts.personal_data)."""
    return (
        f"Die suchende Person der Anfrage {inquiry_ref} hat ihr Konto gelöscht: eine Antwort geht nicht mehr hinaus, "
        "der Entwurf ist verworfen. Die Anfrage bleibt zur Aufbewahrung beim Büro."
    )


def discarded_with_subject(action: PendingAction) -> str | None:
    """Why a draft was discarded without a click (its proposal was rejected, its seeker deleted their account), for
    the person who clicks „Senden“ on it."""
    if action.status != "discarded" or action.via:
        return None
    if action.kind == PendingActionKind.decide_proposal.value:
        return decided(action.subject_ref, ProposalStatus.rejected.value)
    if action.kind == PendingActionKind.send_reply.value:
        return seeker_gone(action.subject_ref)
    return None


def proposal_payload(session: Session, *, office_id: int, proposal_ref: str, message: str | None) -> tuple[Proposal, dict[str, Any]]:
    # Locked: a reject and accepts of one proposal run one after the other, so no accept draft is left waiting on a
    # rejected proposal.
    proposal = locked_proposal(session, office_id=office_id, proposal_ref=proposal_ref)
    if proposal is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Einen Vorschlag {proposal_ref} gibt es bei deinem Büro nicht: list_proposals nennt die offenen.")
    if proposal.status != ProposalStatus.open.value:
        raise ToolFailure(ErrorCode.CONFLICT, decided(proposal_ref, proposal.status), Refusal.proposal_decided)
    listing = session.get(Listing, proposal.listing_id)
    order = session.get(SearchOrder, proposal.search_order_id)
    office = session.get(Office, office_id)
    assert listing is not None and order is not None and office is not None
    return proposal, {
        "kind": PendingActionKind.decide_proposal.value,
        "proposal_id": proposal.ref,
        "listing_id": listing.ref,
        "office_id": office_id,
        "search_order_id": order.ref,
        "recipient": f"Suchende/r {order.ref}",
        "sender": office.name,
        "subject": f"Exposé {framed(listing.title)} ({listing.ref}), vorgeschlagen von {office.name}",
        "text": message,
        "shared_contact": [],
    }


def summary_of(payload: dict[str, Any]) -> str:
    kind = PendingActionKind(payload["kind"])
    if kind is PendingActionKind.send_inquiry:
        what = f"Anfrage zu {payload['listing_id']} an {payload['recipient'].split(' (')[0]}"
    elif kind is PendingActionKind.send_reply:
        what = f"Antwort auf {payload['inquiry_id']} an {payload['recipient'].split(' (')[0]}"
    else:
        what = f"Exposé {payload['listing_id']} an {payload['recipient']} (Vorschlag {payload['proposal_id']} annehmen)"
    return f"{what}, von {payload['sender']}"[:500]


# --- executing ---------------------------------------------------------------------------------------------------


def _ref(prefix: str, row_id: int) -> str:
    return f"{prefix}-{row_id:06d}"


def _body(payload: dict[str, Any], intro: str) -> str:
    lines = [intro, "", payload.get("text") or ""]
    contact = payload.get("shared_contact") or []
    if contact:
        lines += ["", "Freigegebene Angaben:", *(f"- {label}: {value}" for label, value in contact)]
    return "\n".join(lines).strip() + "\n"


def _send_inquiry(session: Session, action: PendingAction, payload: dict[str, Any], now: dt.datetime) -> str:
    listing = session.scalar(select(Listing).where(Listing.ref == payload["listing_id"]))
    inquiry = None
    if payload.get("inquiry_id"):
        inquiry = session.scalar(select(Inquiry).where(Inquiry.ref == payload["inquiry_id"], Inquiry.seeker_id == action.user_id))
        if inquiry is not None and inquiry.status == InquiryStatus.closed.value:
            inquiry = None
    if listing is None or (inquiry is None and listing.status != PUBLISHED):
        raise ToolFailure(ErrorCode.CONFLICT, "Das Inserat ist nicht mehr veröffentlicht: die Anfrage geht nicht hinaus. Bitte ein anderes Inserat wählen.", Refusal.listing_withdrawn)
    if inquiry is None:
        inquiry = Inquiry(
            ref=f"tmp-{action.ref}",
            listing_id=listing.id,
            office_id=listing.office_id,
            seeker_id=action.user_id,
            status=InquiryStatus.open.value,
            shared_profile=payload.get("shared_profile") or {},
            created_at=now,
            last_message_at=now,
        )
        session.add(inquiry)
        session.flush()
        inquiry.ref = _ref("I", inquiry.id)
    else:
        inquiry.shared_profile = {**(inquiry.shared_profile or {}), **(payload.get("shared_profile") or {})}
        inquiry.status = InquiryStatus.open.value
        inquiry.last_message_at = now
    session.add(InquiryMessage(inquiry_id=inquiry.id, author=MessageAuthor.seeker.value, author_user_id=action.user_id, body=payload["text"], created_at=now))
    office = session.get(Office, listing.office_id)
    enqueue(
        session,
        kind="inquiry",
        recipient=(office.inquiry_email or office.email) if office else None,
        subject=f"Neue Anfrage {inquiry.ref}: {payload['subject']}",
        body=_body(payload, f"Über Athaus ist eine Anfrage zu Ihrem Inserat {listing.ref} eingegangen ({inquiry.ref}):"),
        now=now,
        pending_action_id=action.id,
        inquiry_id=inquiry.id,
        sender_user_id=action.user_id,
    )
    return inquiry.ref


def _send_reply(session: Session, action: PendingAction, payload: dict[str, Any], now: dt.datetime) -> str:
    inquiry = session.scalar(select(Inquiry).where(Inquiry.ref == payload["inquiry_id"], Inquiry.office_id == action.office_id))
    if inquiry is None or inquiry.status == InquiryStatus.closed.value:
        raise ToolFailure(ErrorCode.CONFLICT, f"Die Anfrage {payload['inquiry_id']} ist inzwischen geschlossen: die Antwort geht nicht hinaus.", Refusal.inquiry_closed)
    if (inquiry.shared_profile or {}).get("geloescht"):
        raise ToolFailure(ErrorCode.CONFLICT, seeker_gone(inquiry.ref), Refusal.inquiry_closed)
    session.add(InquiryMessage(inquiry_id=inquiry.id, author=MessageAuthor.office.value, author_user_id=action.user_id, body=payload["text"], created_at=now))
    inquiry.status = InquiryStatus.answered.value
    inquiry.last_message_at = now
    seeker = session.get(User, inquiry.seeker_id)
    enqueue(
        session,
        kind="reply",
        recipient=seeker.email if seeker else None,
        subject=payload["subject"],
        body=_body(payload, f"{payload['sender']} hat auf Ihre Anfrage {inquiry.ref} geantwortet:"),
        now=now,
        pending_action_id=action.id,
        inquiry_id=inquiry.id,
        sender_user_id=action.user_id,
        sender_office_id=action.office_id,
    )
    return inquiry.ref


def _accept_proposal(session: Session, action: PendingAction, payload: dict[str, Any], now: dt.datetime) -> None:
    # locked already (`lock_subject`, before the draft was claimed)
    proposal = session.scalar(select(Proposal).where(Proposal.ref == payload["proposal_id"], Proposal.office_id == action.office_id))
    if proposal is None or proposal.status != ProposalStatus.open.value:
        raise ToolFailure(ErrorCode.CONFLICT, decided(payload["proposal_id"], proposal.status if proposal else ""), Refusal.proposal_decided)
    listing = session.get(Listing, proposal.listing_id)
    order = session.get(SearchOrder, proposal.search_order_id)
    office = session.get(Office, proposal.office_id)
    assert listing is not None and order is not None and office is not None
    if listing.status != PUBLISHED:
        raise ToolFailure(ErrorCode.CONFLICT, f"Das Objekt {listing.ref} ist nicht mehr veröffentlicht: das Exposé geht nicht hinaus.", Refusal.listing_withdrawn)
    updated = session.execute(
        Proposal.__table__.update()
        .where(Proposal.id == proposal.id, Proposal.status == ProposalStatus.open.value)
        .values(status=ProposalStatus.accepted.value, decided_at=now)
    )
    if updated.rowcount != 1:
        session.refresh(proposal)
        raise ToolFailure(ErrorCode.CONFLICT, decided(proposal.ref, proposal.status), Refusal.proposal_decided)
    detail: dict[str, Any] = {"office": office.name}
    if payload.get("text"):
        detail["note"] = payload["text"]
    match = Match(
        ref=f"tmp-{action.ref}", search_order_id=order.id, listing_id=listing.id, kind="proposal", detail=detail, state="new", created_at=now,
        alerted_at=now,  # the exposé e-mail below is its alert
    )
    session.add(match)
    session.flush()
    match.ref = _ref("T", match.id)
    seeker = session.get(User, order.user_id)
    price = german.euro(listing.price) if listing.price is not None else "Preis auf Anfrage"
    enqueue(
        session,
        kind="expose",
        recipient=seeker.email if seeker else None,
        subject=payload["subject"],
        body=_body(
            payload,
            f"{office.name} schlägt Ihnen zu Ihrem Suchauftrag {order.ref} ein Objekt vor: „{listing.title}“ ({listing.ref}), "
            f"{listing.postal_code} {listing.city}, {price}. Sie finden es bei Athaus unter Ihren Treffern ({match.ref}).",
        ),
        now=now,
        pending_action_id=action.id,
        sender_user_id=action.user_id,
        sender_office_id=action.office_id,
    )


def run(session: Session, action: PendingAction, now: dt.datetime) -> str | None:
    """Execute `action` (already marked sent) in the caller's transaction; the inquiry it wrote into, if any."""
    payload = action.payload
    kind = PendingActionKind(action.kind)
    if kind is PendingActionKind.send_inquiry:
        return _send_inquiry(session, action, payload, now)
    if kind is PendingActionKind.send_reply:
        return _send_reply(session, action, payload, now)
    _accept_proposal(session, action, payload, now)
    return None


def reject_proposal(session: Session, *, office_id: int, proposal_ref: str, now: dt.datetime) -> Proposal:
    """Reject an open proposal at once (nothing goes out); waiting accept drafts for it are discarded (the proposal
    first, then its drafts: the order of `locked_proposal`)."""
    proposal = locked_proposal(session, office_id=office_id, proposal_ref=proposal_ref)
    if proposal is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Einen Vorschlag {proposal_ref} gibt es bei deinem Büro nicht: list_proposals nennt die offenen.")
    updated = session.execute(
        Proposal.__table__.update()
        .where(Proposal.id == proposal.id, Proposal.status == ProposalStatus.open.value)
        .values(status=ProposalStatus.rejected.value, decided_at=now)
    )
    if updated.rowcount != 1:
        session.refresh(proposal)
        raise ToolFailure(ErrorCode.CONFLICT, decided(proposal_ref, proposal.status), Refusal.proposal_decided)
    session.execute(
        PendingAction.__table__.update()
        .where(
            PendingAction.office_id == office_id,
            PendingAction.kind == PendingActionKind.decide_proposal.value,
            PendingAction.subject_ref == proposal_ref,
            PendingAction.status == "pending",
        )
        .values(status="discarded", decision="discard", executed_at=now)
    )
    session.refresh(proposal)
    return proposal
