"""What an operator does to offices and people from the command line (athaus/admin.py), without HTTP.

Every change writes one line to `audit_log` naming the operator (`client_id` = "operator:<name>", no user): who
deactivated, revoked, deleted or unlocked what, and when. A deactivated account keeps its rows; its password no longer
matches (the stored hash is kept behind a marker, so nothing is lost) and it is signed out everywhere; a reset link
does not bring it back. Deleting an account is the same erasure as a person's own deletion
(`shared.accounts.personal_data.delete_account`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import ListingStatus
from shared.accounts.links import office_ref, user_ref
from shared.accounts.personal_data import delete_account
from shared.accounts.reset import DEACTIVATED
from shared.auth import throttle
from shared.auth.models import AccountToken, OAuthCode, OAuthGrant, ThrottleCounter, WebSession
from shared.auth.sessions import sign_out_everywhere
from shared.catalog.indexing import bump_revision
from shared.db.models import Listing, Office, OfficeMember, User
from shared.stock_writes import change_status
from shared.write_log import audit

def operator_client(operator: str) -> str:
    return f"operator:{operator}"[:200]


def is_deactivated(user: User) -> bool:
    return user.password_hash.startswith(DEACTIVATED)


def record(session: Session, operator: str, action: str, subject: str, now: dt.datetime, office_id: int | None = None,
         after: dict[str, Any] | None = None) -> None:
    audit(session, now=now, user_id=None, client_id=operator_client(operator), office_id=office_id, action=action,
          subject_ref=subject, before=None, after=after)


def _office(session: Session, office_id: int) -> Office:
    office = session.get(Office, office_id)
    if office is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Ein Büro mit der Nummer {office_id} gibt es nicht; `athaus admin office list` zeigt alle.")
    return office


def find_person(session: Session, who: str) -> User:
    """A person by account number or e-mail address."""
    user = session.get(User, int(who)) if who.isdigit() else session.scalar(select(User).where(func.lower(User.email) == who.strip().lower()))
    if user is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Kein Konto „{who}“; `athaus admin person list` zeigt alle.")
    return user


def office_summary(session: Session, office: Office) -> dict[str, Any]:
    people = list(session.scalars(select(User).join(OfficeMember, OfficeMember.user_id == User.id).where(OfficeMember.office_id == office.id)))
    return {
        "id": office.id, "name": office.name, "city": office.city, "members": len(people),
        "active": any(not is_deactivated(user) for user in people) if people else True,
    }


def list_offices(session: Session) -> list[dict[str, Any]]:
    return [office_summary(session, office) for office in session.scalars(select(Office).order_by(Office.id))]


def show_office(session: Session, office_id: int) -> dict[str, Any]:
    office = _office(session, office_id)
    members = session.execute(
        select(User, OfficeMember.role).join(OfficeMember, OfficeMember.user_id == User.id).where(OfficeMember.office_id == office_id).order_by(User.id)
    ).all()
    listings = session.scalar(select(func.count()).select_from(Listing).where(Listing.office_id == office_id))
    return {
        **office_summary(session, office), "email": office.email, "phone": office.phone, "website": office.website,
        "inquiry_email": office.inquiry_email, "openimmo_feed_url": office.openimmo_feed_url, "listings": listings,
        "people": [{**person_summary(session, user), "role": role} for user, role in members],
    }


def person_summary(session: Session, user: User) -> dict[str, Any]:
    membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user.id))
    return {
        "id": user.id, "email": user.email, "name": user.name, "kind": user.kind,
        "office_id": membership.office_id if membership else None, "active": not is_deactivated(user) and user.password_hash != "!",
    }


def list_people(session: Session, office_id: int | None = None) -> list[dict[str, Any]]:
    query = select(User).order_by(User.id)
    if office_id is not None:
        query = query.join(OfficeMember, OfficeMember.user_id == User.id).where(OfficeMember.office_id == office_id)
    return [person_summary(session, user) for user in session.scalars(query)]


def show_person(session: Session, who: str, now: dt.datetime) -> dict[str, Any]:
    user = find_person(session, who)
    grants = session.execute(
        select(OAuthGrant.client_id, func.count()).where(OAuthGrant.user_id == user.id, OAuthGrant.revoked_at.is_(None)).group_by(OAuthGrant.client_id)
    ).all()
    sessions = session.scalar(select(func.count()).select_from(WebSession).where(WebSession.user_id == user.id, WebSession.expires_at > now))
    locked = session.scalar(select(ThrottleCounter).where(ThrottleCounter.key == throttle.LOGIN_PER_ACCOUNT.key(user.email)))
    return {
        **person_summary(session, user), "created_at": user.created_at.isoformat(),
        "grants": {client: count for client, count in grants}, "web_sessions": sessions,
        "locked_out": bool(locked and locked.count >= throttle.LOGIN_PER_ACCOUNT.attempts and locked.window_start > now - throttle.LOGIN_PER_ACCOUNT.window),
    }


def deactivate_person(session: Session, who: str, operator: str, now: dt.datetime) -> dict[str, Any]:
    user = find_person(session, who)
    if not is_deactivated(user):
        user.password_hash = DEACTIVATED + user.password_hash
    sign_out_everywhere(session, user.id, now)
    record(session, operator, "admin.person.deactivate", user_ref(user.id), now)
    return person_summary(session, user)


ON_THE_MARKET = (ListingStatus.published.value, ListingStatus.reserved.value)  # what seekers may still ask about
WITHDRAWN_BY_OPERATOR = "Büro im Betrieb deaktiviert"


def deactivate_office(session: Session, office_id: int, operator: str, now: dt.datetime, *, withdraw_listings: bool = False) -> dict[str, Any]:
    """Deactivates every person of the office and voids its invitations not yet followed; with `withdraw_listings` also withdraws its listings on the market
    (published or reserved), each with its status history and the listing event its seekers' matches read. Without it
    they stay public, and the result says how many: nobody of the office can answer an inquiry about them any more."""
    office = _office(session, office_id)
    for user in session.scalars(select(User).join(OfficeMember, OfficeMember.user_id == User.id).where(OfficeMember.office_id == office_id)):
        if not is_deactivated(user):
            user.password_hash = DEACTIVATED + user.password_hash
        sign_out_everywhere(session, user.id, now)
    # An invitation not yet followed would let its person into the deactivated office: it is void now
    voided = session.execute(
        delete(AccountToken).where(AccountToken.purpose == "invitation", AccountToken.office_id == office_id, AccountToken.used_at.is_(None))
    ).rowcount
    on_market = list(session.scalars(select(Listing.ref).where(Listing.office_id == office_id, Listing.status.in_(ON_THE_MARKET)).order_by(Listing.ref)))
    withdrawn = on_market if withdraw_listings else []
    for ref in withdrawn:
        change_status(session, office_id=office_id, user_id=None, client_id=operator_client(operator), listing_ref=ref,
                      status=ListingStatus.withdrawn, reason=WITHDRAWN_BY_OPERATOR, now=now, revise=False)
    if withdrawn:
        bump_revision(session, now)
    record(session, operator, "admin.office.deactivate", office_ref(office_id), now, office_id=office_id,
           after={"listings_withdrawn": withdrawn, "invitations_voided": voided})
    left = len(on_market) - len(withdrawn)
    return {**office_summary(session, office), "invitations_voided": voided, "listings_withdrawn": withdrawn, "listings_on_market": left}


def revoke_person(session: Session, who: str, operator: str, now: dt.datetime) -> dict[str, Any]:
    """Ends every web session, grant (with its tokens) and unused code of a person."""
    user = find_person(session, who)
    grants = session.scalar(select(func.count()).select_from(OAuthGrant).where(OAuthGrant.user_id == user.id, OAuthGrant.revoked_at.is_(None)))
    sessions = session.scalar(select(func.count()).select_from(WebSession).where(WebSession.user_id == user.id))
    sign_out_everywhere(session, user.id, now)
    record(session, operator, "admin.person.revoke", user_ref(user.id), now, after={"grants": grants, "web_sessions": sessions})
    return {"id": user.id, "grants_revoked": grants, "web_sessions_ended": sessions}


def revoke_client(session: Session, client_id: str, operator: str, now: dt.datetime) -> dict[str, Any]:
    """Ends every grant (with its tokens) and unused code of one OAuth client, for every person."""
    grants = session.execute(
        update(OAuthGrant).where(OAuthGrant.client_id == client_id, OAuthGrant.revoked_at.is_(None)).values(revoked_at=now)
    ).rowcount
    session.execute(delete(OAuthCode).where(OAuthCode.client_id == client_id, OAuthCode.used_at.is_(None)))
    record(session, operator, "admin.client.revoke", "client", now, after={"client_id": client_id, "grants": grants})
    return {"client_id": client_id, "grants_revoked": grants}


def delete_person(session: Session, who: str, operator: str, now: dt.datetime) -> dict[str, Any]:
    """The erasure of a person's own deletion; a broker must have left (or been removed from) their office first."""
    user = find_person(session, who)
    delete_account(session, user.id, now, brokers_without_office=True)
    record(session, operator, "admin.person.delete", user_ref(user.id), now)
    return {"id": user.id, "deleted": True}


def unlock_person(session: Session, who: str, operator: str, now: dt.datetime) -> dict[str, Any]:
    """Clears the lock-out by wrong passwords (the per-account counter; per-address counters stay)."""
    user = find_person(session, who)
    cleared = session.execute(delete(ThrottleCounter).where(ThrottleCounter.key == throttle.LOGIN_PER_ACCOUNT.key(user.email))).rowcount
    record(session, operator, "admin.person.unlock", user_ref(user.id), now, after={"cleared": bool(cleared)})
    return {"id": user.id, "unlocked": True}
