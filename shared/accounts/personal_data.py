"""Leaving with one's data (DSGVO Art. 15, 17, 20): everything Athaus holds about an account as JSON, and deleting a
seeker's account in one transaction.

Deletion erases what is personal and signs the account out everywhere: search orders with their Treffer and
proposals, prepared actions, e-mail links, idempotency records and the account's sessions go; the account row stays
as an anonymous placeholder (no name, no address, no usable password) that the office's records point to. Inquiries
and their messages stay with the office, because business letters must be kept (§ 257 HGB, § 147 AO), but without
the person: their name, address and phone are removed from the shared profile, the messages and the e-mail copies.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from shared.accounts.links import normal_email, user_ref
from shared.accounts.reset import DELETED_DOMAIN
from shared.audit import PersonalDataRead
from shared.auth.models import AccountToken, OAuthGrant
from shared.auth.sessions import sign_out_everywhere
from shared.db.models import (
    AuditEntry,
    IdempotencyKey,
    Inquiry,
    InquiryMessage,
    Listing,
    ListingFeature,
    Match,
    Office,
    OfficeMember,
    OutboxMessage,
    PendingAction,
    Proposal,
    SearchOrder,
    User,
)
from shared.openimmo.writer import transfer_chunks
from shared.write_log import audit, json_safe

ERASED = "[gelöscht]"
KEPT_FOR_OFFICES = (
    "Anfragen an Maklerbüros und ihre Nachrichten bleiben beim jeweiligen Büro, weil Geschäftsbriefe aufbewahrt werden "
    "müssen (§ 257 HGB, § 147 AO); dein Name, deine E-Mail-Adresse und deine Telefonnummer werden daraus entfernt."
)


def row_dict(row: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    return {column.key: json_safe(getattr(row, column.key)) for column in row.__table__.columns if column.key not in leave_out}


def export_account(session: Session, user_id: int) -> dict[str, Any]:
    """Everything about the account, as JSON-safe data (Art. 15 and 20)."""
    user = session.get(User, user_id)
    if user is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Konto gibt es nicht mehr.")
    searches = list(session.scalars(select(SearchOrder).where(SearchOrder.user_id == user_id).order_by(SearchOrder.id)))
    search_ids = [search.id for search in searches]
    inquiries = list(session.scalars(select(Inquiry).where(Inquiry.seeker_id == user_id).order_by(Inquiry.id)))
    messages = {
        inquiry.id: [row_dict(m) for m in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry.id).order_by(InquiryMessage.id))]
        for inquiry in inquiries
    }
    refs = [inquiry.ref for inquiry in inquiries]
    membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user_id))
    return {
        "konto": {**row_dict(user, ("password_hash",)), "buero": row_dict(membership) if membership else None},
        "suchauftraege": [row_dict(s) for s in searches],
        "treffer": [row_dict(m) for m in session.scalars(select(Match).where(Match.search_order_id.in_(search_ids)).order_by(Match.id))],
        "vorschlaege": [row_dict(p) for p in session.scalars(select(Proposal).where(Proposal.search_order_id.in_(search_ids)).order_by(Proposal.id))],
        "anfragen": [{**row_dict(inquiry), "nachrichten": messages[inquiry.id]} for inquiry in inquiries],
        "vorbereitete_aktionen": [
            row_dict(p, ("token_hash", "token_salt")) for p in session.scalars(select(PendingAction).where(PendingAction.user_id == user_id).order_by(PendingAction.id))
        ],
        "e_mails": [
            row_dict(o, ("message_id", "claimed_until"))
            for o in session.scalars(
                select(OutboxMessage).where(or_(OutboxMessage.recipient == user.email, OutboxMessage.sender_user_id == user_id)).order_by(OutboxMessage.id)
            )
        ],
        "verbundene_anwendungen": [
            row_dict(g) for g in session.scalars(select(OAuthGrant).where(OAuthGrant.user_id == user_id).order_by(OAuthGrant.id))
        ],
        "wer_deine_daten_gesehen_hat": [
            row_dict(r, ("user_id",)) for r in session.scalars(select(PersonalDataRead).where(PersonalDataRead.record_ref.in_(refs)).order_by(PersonalDataRead.id))
        ],
        "protokoll": [row_dict(a) for a in session.scalars(select(AuditEntry).where(AuditEntry.user_id == user_id).order_by(AuditEntry.id))],
        "hinweis": KEPT_FOR_OFFICES,
    }


def office_stock(session: Session, office_id: int, now: dt.datetime) -> Iterator[str]:
    """The office's whole stock (every listing, any status) as an OpenImmo transfer, in text chunks (DSGVO Art. 20 for
    the office's data; `shared.openimmo.writer`)."""
    office = session.get(Office, office_id)
    if office is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Büro gibt es nicht.")
    features: dict[int, list[str]] = {}
    for listing_id, feature in session.execute(
        select(ListingFeature.listing_id, ListingFeature.feature)
        .join(Listing, Listing.id == ListingFeature.listing_id)
        .where(Listing.office_id == office_id)
        .order_by(ListingFeature.listing_id, ListingFeature.feature)
    ):
        features.setdefault(listing_id, []).append(feature)
    listings = session.scalars(select(Listing).where(Listing.office_id == office_id).order_by(Listing.id)).yield_per(500)
    return transfer_chunks(office, listings, features, now=now)


def delete_account(session: Session, user_id: int, now: dt.datetime, *, brokers_without_office: bool = False) -> None:
    """Erases a seeker's personal data in the caller's transaction (Art. 17); see the module's docstring. The operator
    (`brokers_without_office`) erases a broker's account the same way once they belong to no office."""
    user = session.get(User, user_id)
    if user is None or user.email.endswith("@" + DELETED_DOMAIN):
        raise ToolFailure(ErrorCode.NOT_FOUND, "Dieses Konto gibt es nicht mehr.")
    if (user.kind != "seeker" and not brokers_without_office) or session.scalar(select(OfficeMember).where(OfficeMember.user_id == user_id)) is not None:
        raise ToolFailure(
            ErrorCode.MISSING_RIGHT,
            "Konten von Maklerinnen und Maklern entfernt die Inhaberin oder der Inhaber des Büros; danach können sie hier gelöscht werden.",
        )
    scrub = _scrubber(user)
    sign_out_everywhere(session, user_id, now)
    search_ids = select(SearchOrder.id).where(SearchOrder.user_id == user_id)
    session.execute(delete(Match).where(Match.search_order_id.in_(search_ids)))
    session.execute(delete(Proposal).where(Proposal.search_order_id.in_(search_ids)))
    session.execute(delete(SearchOrder).where(SearchOrder.user_id == user_id))
    actions = select(PendingAction.id).where(PendingAction.user_id == user_id)
    session.execute(update(OutboxMessage).where(OutboxMessage.pending_action_id.in_(actions)).values(pending_action_id=None))
    session.execute(delete(PendingAction).where(PendingAction.user_id == user_id))
    session.execute(delete(OutboxMessage).where(OutboxMessage.recipient == user.email, OutboxMessage.status.in_(("queued", "sending"))))
    for mail in session.scalars(select(OutboxMessage).where(or_(OutboxMessage.recipient == user.email, OutboxMessage.sender_user_id == user_id))):
        mail.recipient = None if mail.recipient == user.email else mail.recipient
        mail.subject, mail.body = scrub(mail.subject), scrub(mail.body)
    for inquiry in session.scalars(select(Inquiry).where(Inquiry.seeker_id == user_id)):
        inquiry.shared_profile = {"geloescht": True}
        for message in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry.id)):
            message.body = scrub(message.body)
        for mail in session.scalars(select(OutboxMessage).where(OutboxMessage.inquiry_id == inquiry.id)):
            mail.subject, mail.body = scrub(mail.subject), scrub(mail.body)
    session.execute(update(AuditEntry).where(AuditEntry.user_id == user_id).values(before=None, after=None))
    session.execute(delete(IdempotencyKey).where(IdempotencyKey.user_id == user_id))
    session.execute(delete(AccountToken).where(or_(AccountToken.user_id == user_id, AccountToken.email == normal_email(user.email))))
    user.email = f"geloescht-{user_id}@{DELETED_DOMAIN}"
    user.name = "Gelöschtes Konto"
    user.phone = None
    user.password_hash = "!"  # no scheme: no password ever matches
    audit(
        session, now=now, user_id=user_id, client_id=None, office_id=None, action="account.delete", subject_ref=user_ref(user_id),
        before=None, after=None,
    )


def _scrubber(user: User) -> Any:
    values = [value for value in (user.email, user.name, user.phone) if value and len(value.strip()) >= 3]
    pattern = re.compile("|".join(re.escape(value.strip()) for value in sorted(values, key=len, reverse=True)), re.IGNORECASE)

    def scrub(text: str | None) -> str:
        return pattern.sub(ERASED, text or "") if values else (text or "")

    return scrub
