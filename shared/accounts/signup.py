"""A seeker signs up: e-mail, name, password; the account exists only once the link in the e-mail is followed.

`start_signup` answers the same whatever the address (the page always says "check your mailbox"): an unknown address
gets the confirmation link, a known one an e-mail saying there already is an account (with the way to a new
password), so nobody learns from the page which addresses have accounts. Nothing is stored under a known address.
`confirm_signup` creates the account from the link (single use); a second link for the same address finds it taken.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from sqlalchemy.orm import Session

from shared.accounts.links import link, new_token, normal_email, use, user_by_email, user_ref, valid
from shared.db.models import User
from shared.outbox import enqueue
from shared.write_log import audit

EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s.]+(\.[^@\s.]+)+$")
NAME_MAX = 200


def email_problem(email: str) -> str | None:
    if not EMAIL.match(email.strip()) or len(email.strip()) > 200:
        return "Bitte eine gültige E-Mail-Adresse eingeben, etwa name@example.de."
    return None


def name_problem(name: str) -> str | None:
    cleaned = name.strip()
    if not cleaned:
        return "Bitte deinen Namen eingeben; Maklerbüros sehen ihn, wenn du eine Anfrage stellst."
    if len(cleaned) > NAME_MAX or any(ord(ch) < 32 for ch in cleaned):
        return f"Der Name darf höchstens {NAME_MAX} Zeichen haben und keine Steuerzeichen."
    return None


def start_signup(
    session: Session, *, email: str, name: str, password_hash: str, public_url: str, now: dt.datetime, continue_with: str | None = None
) -> None:
    """Queues the e-mail of a sign-up. `continue_with` is the sign-in (sealed authorization request) to go on with
    once the address is confirmed."""
    address = normal_email(email)
    if user_by_email(session, address) is not None:
        enqueue(
            session,
            kind="account",
            recipient=address,
            subject="Dein Athaus-Konto gibt es schon",
            body=(
                "Hallo,\n\njemand (vermutlich du) wollte mit dieser E-Mail-Adresse ein Athaus-Konto anlegen. Es gibt schon "
                "ein Konto mit dieser Adresse; melde dich damit an. Falls du das Passwort nicht mehr weißt, wähle auf der "
                "Anmeldeseite „Passwort vergessen“.\n\nWarst du das nicht, kannst du diese E-Mail ignorieren.\n"
            ),
            now=now,
        )
        return
    token = new_token(
        session,
        purpose="signup",
        email=address,
        now=now,
        payload={"name": name.strip(), "password_hash": password_hash, "continue": continue_with},
    )
    enqueue(
        session,
        kind="account",
        recipient=address,
        subject="Bitte bestätige deine E-Mail-Adresse für Athaus",
        body=(
            f"Hallo {name.strip()},\n\nbitte bestätige deine E-Mail-Adresse, dann ist dein Athaus-Konto angelegt:\n\n"
            f"{link(public_url, 'signup', token)}\n\nDer Link gilt 24 Stunden und nur einmal. Hast du kein Konto angelegt, "
            "ignoriere diese E-Mail; ohne Bestätigung entsteht kein Konto.\n"
        ),
        now=now,
    )


@dataclass(frozen=True)
class Confirmed:
    user_id: int | None  # None: the address already had an account (log in with it)
    continue_with: str | None


def confirm_signup(session: Session, token: str | None, now: dt.datetime) -> Confirmed | None:
    """Creates the seeker account of a sign-up link; None if the link is unknown, used or expired."""
    row = valid(session, token, "signup", now)
    if row is None:
        return None
    payload = dict(row.payload or {})
    if not use(session, row, now):
        return None
    continue_with = payload.get("continue")
    if user_by_email(session, row.email) is not None:
        return Confirmed(None, continue_with)
    user = User(email=row.email, name=payload["name"], password_hash=payload["password_hash"], kind="seeker", created_at=now)
    session.add(user)
    session.flush()
    audit(
        session, now=now, user_id=user.id, client_id=None, office_id=None, action="account.signup", subject_ref=user_ref(user.id),
        before=None, after={"kind": "seeker"},
    )
    return Confirmed(user.id, continue_with)

