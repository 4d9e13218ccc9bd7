"""Offices and their people: an operator creates an office and invites its owner (`athaus office create`); the owner
invites staff by e-mail, sets their role (owner, staff) and removes them. A removed person is signed out everywhere
in the same transaction: their tokens get 401 at once. Each step writes its audit line."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from shared.accounts.links import link, new_token, normal_email, office_ref, use, user_by_email, user_ref, valid
from shared.accounts.signup import email_problem, name_problem
from shared.auth.models import AccountToken
from shared.auth.sessions import sign_out_everywhere
from shared.db.models import Office, OfficeMember, User
from shared.outbox import enqueue
from shared.write_log import audit

ROLES = {"owner": "Inhaber/in", "staff": "Mitarbeiter/in"}


@dataclass(frozen=True)
class Member:
    user_id: int
    name: str
    email: str
    role: str


@dataclass(frozen=True)
class OpenInvitation:
    email: str
    role: str
    expires_at: dt.datetime


@dataclass(frozen=True)
class Invitation:
    """What the invitation page shows."""

    office_name: str
    email: str
    role: str
    has_account: bool
    refusal: str | None  # why this address cannot join (a seeker's account, another office)


def create_office(session: Session, *, name: str, city: str, owner_email: str, public_url: str, now: dt.datetime) -> tuple[int, str]:
    """A new office and the invitation of its owner (e-mailed through the outbox); its id and the link."""
    problems = [p for p in (_text_problem(name, "Name des Büros"), _text_problem(city, "Ort"), email_problem(owner_email)) if p]
    if problems:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, " ".join(problems))
    office = Office(name=name.strip(), city=city.strip(), send_without_click=[])
    session.add(office)
    session.flush()
    audit(
        session, now=now, user_id=None, client_id=None, office_id=office.id, action="office.create", subject_ref=office_ref(office.id),
        before=None, after={"name": office.name, "city": office.city},
    )
    return office.id, _invite(session, office, None, owner_email, "owner", public_url, now)


def create_office_for_external_sign_in(session: Session, *, name: str, city: str, owner_email: str, now: dt.datetime) -> int:
    """With an external authorization server (ATHAUS_OAUTH_ISSUER) its accounts are matched by e-mail address: the
    owner's account is created at once, without a password here (the external server signs people in)."""
    problems = [p for p in (_text_problem(name, "Name des Büros"), _text_problem(city, "Ort"), email_problem(owner_email)) if p]
    existing = user_by_email(session, owner_email)
    if not problems and existing is not None:
        problems.append(_refusal(session, existing) or "")
    if [p for p in problems if p]:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, " ".join(p for p in problems if p))
    office = Office(name=name.strip(), city=city.strip(), send_without_click=[])
    session.add(office)
    session.flush()
    user = existing or User(email=normal_email(owner_email), name=normal_email(owner_email), password_hash="!", kind="broker", created_at=now)
    session.add(user)
    session.flush()
    session.add(OfficeMember(office_id=office.id, user_id=user.id, role="owner"))
    audit(
        session, now=now, user_id=None, client_id=None, office_id=office.id, action="office.create", subject_ref=office_ref(office.id),
        before=None, after={"name": office.name, "city": office.city, "owner": user_ref(user.id)},
    )
    return office.id


def invite(session: Session, *, office_id: int, by_user_id: int, email: str, role: str, public_url: str, now: dt.datetime) -> str:
    """The owner invites someone by e-mail with a role; the link goes out through the outbox and is returned."""
    office = _owned(session, office_id, by_user_id)
    problem = email_problem(email) or (None if role in ROLES else "Bitte eine Rolle wählen: Inhaber/in oder Mitarbeiter/in.")
    if problem:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, problem)
    existing = user_by_email(session, email)
    if existing is not None and _membership(session, existing.id) is not None:
        member = _membership(session, existing.id)
        where = "diesem Büro" if member is not None and member.office_id == office_id else "einem anderen Büro"
        raise ToolFailure(ErrorCode.CONFLICT, f"{normal_email(email)} gehört schon zu {where}. Bitte eine andere Adresse einladen.")
    return _invite(session, office, by_user_id, email, role, public_url, now)


def invitation(session: Session, token: str | None, now: dt.datetime) -> Invitation | None:
    row = valid(session, token, "invitation", now)
    office = session.get(Office, row.office_id) if row is not None and row.office_id is not None else None
    if row is None or office is None:
        return None
    user = user_by_email(session, row.email)
    return Invitation(office.name, row.email, row.role or "staff", user is not None, _refusal(session, user))


def accept_invitation(session: Session, token: str | None, *, name: str, password_hash: str | None, now: dt.datetime) -> int:
    """Joins the office of an invitation: a new broker account (name, password) or an existing one without an office.
    Returns the account id; raises ToolFailure with the German reason otherwise."""
    row = valid(session, token, "invitation", now)
    if row is None or row.office_id is None:
        raise ToolFailure(ErrorCode.CONFIRMATION_EXPIRED, "Diese Einladung ist abgelaufen oder wurde schon angenommen. Bitte um eine neue Einladung.")
    user = user_by_email(session, row.email)
    refusal = _refusal(session, user)
    if refusal:
        raise ToolFailure(ErrorCode.CONFLICT, refusal)
    if user is None:
        problem = name_problem(name)
        if problem or password_hash is None:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, problem or "Bitte ein Passwort wählen.")
        user = User(email=row.email, name=name.strip(), password_hash=password_hash, kind="broker", created_at=now)
        session.add(user)
        session.flush()
    if not use(session, row, now):
        raise ToolFailure(ErrorCode.CONFIRMATION_EXPIRED, "Diese Einladung wurde gerade schon angenommen.")
    session.add(OfficeMember(office_id=row.office_id, user_id=user.id, role=row.role or "staff"))
    audit(
        session, now=now, user_id=user.id, client_id=None, office_id=row.office_id, action="staff.join", subject_ref=user_ref(user.id),
        before=None, after={"role": row.role},
    )
    return user.id


def members(session: Session, office_id: int, now: dt.datetime) -> tuple[list[Member], list[OpenInvitation]]:
    people = session.execute(
        select(User.id, User.name, User.email, OfficeMember.role)
        .join(OfficeMember, OfficeMember.user_id == User.id)
        .where(OfficeMember.office_id == office_id)
        .order_by(OfficeMember.role.desc(), func.lower(User.name), User.id)
    )
    invited = session.scalars(
        select(AccountToken)
        .where(AccountToken.purpose == "invitation", AccountToken.office_id == office_id, AccountToken.used_at.is_(None), AccountToken.expires_at > now)
        .order_by(AccountToken.created_at)
    )
    return [Member(*row) for row in people], [OpenInvitation(row.email, row.role or "staff", row.expires_at) for row in invited]


def set_role(session: Session, *, office_id: int, by_user_id: int, user_id: int, role: str, now: dt.datetime) -> None:
    _owned(session, office_id, by_user_id)
    if role not in ROLES:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "Bitte eine Rolle wählen: Inhaber/in oder Mitarbeiter/in.")
    member = _member_of(session, office_id, user_id)
    if member.role == "owner" and role != "owner":
        _keep_an_owner(session, office_id)
    before = member.role
    member.role = role
    audit(
        session, now=now, user_id=by_user_id, client_id=None, office_id=office_id, action="staff.role", subject_ref=user_ref(user_id),
        before={"role": before}, after={"role": role},
    )


def remove_member(session: Session, *, office_id: int, by_user_id: int, user_id: int, now: dt.datetime) -> str:
    """Removes a person from the office and signs them out everywhere (their tokens get 401 at once); their name."""
    _owned(session, office_id, by_user_id)
    member = _member_of(session, office_id, user_id)
    if member.role == "owner":
        _keep_an_owner(session, office_id)
    user = session.get(User, user_id)
    session.delete(member)
    sign_out_everywhere(session, user_id, now)
    audit(
        session, now=now, user_id=by_user_id, client_id=None, office_id=office_id, action="staff.remove", subject_ref=user_ref(user_id),
        before={"role": member.role}, after=None,
    )
    return user.name if user is not None else user_ref(user_id)


def _invite(session: Session, office: Office, by_user_id: int | None, email: str, role: str, public_url: str, now: dt.datetime) -> str:
    address = normal_email(email)
    token = new_token(session, purpose="invitation", email=address, office_id=office.id, role=role, invited_by=by_user_id, now=now)
    url = link(public_url, "invitation", token)
    enqueue(
        session,
        kind="account",
        recipient=address,
        subject=f"Einladung zu {office.name} bei Athaus",
        body=(
            f"Hallo,\n\ndu bist als {ROLES[role]} zum Maklerbüro {office.name} bei Athaus eingeladen. Über diesen Link "
            f"nimmst du die Einladung an und legst, falls nötig, dein Konto an:\n\n{url}\n\nDer Link gilt 7 Tage und nur einmal.\n"
        ),
        now=now,
        sender_office_id=office.id,
    )
    audit(
        session, now=now, user_id=by_user_id, client_id=None, office_id=office.id, action="staff.invite", subject_ref=office_ref(office.id),
        before=None, after={"role": role},
    )
    return url


def _owned(session: Session, office_id: int | None, user_id: int) -> Office:
    member = _membership(session, user_id)
    office = session.get(Office, office_id) if office_id is not None else None
    if office is None or member is None or member.office_id != office_id or member.role != "owner":
        raise ToolFailure(ErrorCode.MISSING_RIGHT, "Das dürfen nur Inhaberinnen und Inhaber des Büros.")
    return office


def _membership(session: Session, user_id: int) -> OfficeMember | None:
    return session.scalar(select(OfficeMember).where(OfficeMember.user_id == user_id))


def _member_of(session: Session, office_id: int, user_id: int) -> OfficeMember:
    member = session.get(OfficeMember, (office_id, user_id))
    if member is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, "Diese Person gehört nicht zum Büro. Bitte die Liste neu laden.")
    return member


def _keep_an_owner(session: Session, office_id: int) -> None:
    owners = session.scalar(select(func.count()).select_from(OfficeMember).where(OfficeMember.office_id == office_id, OfficeMember.role == "owner"))
    if (owners or 0) <= 1:
        raise ToolFailure(ErrorCode.CONFLICT, "Das Büro braucht mindestens eine Inhaberin oder einen Inhaber. Bitte zuerst eine andere Person dazu machen.")


def _refusal(session: Session, user: User | None) -> str | None:
    if user is None:
        return None
    if user.kind != "broker":
        return (
            f"{user.email} gehört zu einem Konto für die Immobiliensuche und kann keinem Büro beitreten. "
            "Bitte um eine Einladung an eine andere Adresse."
        )
    if _membership(session, user.id) is not None:
        return f"{user.email} gehört schon zu einem Büro. Bitte um eine Einladung an eine andere Adresse."
    return None


def _text_problem(value: str, label: str) -> str | None:
    cleaned = value.strip()
    if not cleaned or len(cleaned) > 200 or any(ord(ch) < 32 for ch in cleaned):
        return f"{label}: bitte 1 bis 200 Zeichen ohne Steuerzeichen."
    return None
