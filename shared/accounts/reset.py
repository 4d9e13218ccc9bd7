"""A new password by e-mail link: single use, one hour; on change every session and token of the account ends.

`start_reset` answers the same for a known and an unknown address (the page always says "if there is an account,
the e-mail is on its way"); only a known address gets an e-mail."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete
from sqlalchemy.orm import Session

from shared.accounts.links import link, new_token, normal_email, use, user_by_email, user_ref, valid
from shared.auth import throttle
from shared.auth.models import ThrottleCounter
from shared.auth.sessions import sign_out_everywhere
from shared.db.models import User
from shared.outbox import enqueue
from shared.write_log import audit

DELETED_DOMAIN = "konto.invalid"  # a deleted account's placeholder address (shared.accounts.personal_data)
DEACTIVATED = "!deactivated!"  # prefix of a deactivated account's password hash (shared.accounts.admin): no link revives it


def start_reset(session: Session, *, email: str, public_url: str, now: dt.datetime) -> None:
    user = user_by_email(session, email)
    if user is None or user.email.endswith("@" + DELETED_DOMAIN) or user.password_hash.startswith(DEACTIVATED):
        return
    token = new_token(session, purpose="reset", email=normal_email(email), user_id=user.id, now=now)
    enqueue(
        session,
        kind="account",
        recipient=user.email,
        subject="Neues Passwort für dein Athaus-Konto",
        body=(
            f"Hallo {user.name},\n\nüber diesen Link wählst du ein neues Passwort für dein Athaus-Konto:\n\n"
            f"{link(public_url, 'reset', token)}\n\nDer Link gilt eine Stunde und nur einmal. Danach bist du überall "
            "abgemeldet, auch in verbundenen Anwendungen wie ChatGPT oder Claude; verbinde sie dann neu.\n\n"
            "Hast du das nicht angefordert, ignoriere diese E-Mail; dein Passwort bleibt, wie es ist.\n"
        ),
        now=now,
    )


def reset_link_valid(session: Session, token: str | None, now: dt.datetime) -> bool:
    return valid(session, token, "reset", now) is not None


def finish_reset(session: Session, token: str | None, password_hash: str, now: dt.datetime) -> int | None:
    """Sets the new password of a reset link and signs the account out everywhere; the account id, or None if the
    link is unknown, used or expired."""
    row = valid(session, token, "reset", now)
    if row is None or row.user_id is None or not use(session, row, now):
        return None
    user = session.get(User, row.user_id)
    if user is None or user.password_hash.startswith(DEACTIVATED):
        return None
    user.password_hash = password_hash
    sign_out_everywhere(session, user.id, now)
    # the link proves the mailbox: strangers' wrong passwords no longer keep the person out
    session.execute(delete(ThrottleCounter).where(ThrottleCounter.key == throttle.LOGIN_PER_ACCOUNT.key(user.email)))
    audit(
        session, now=now, user_id=user.id, client_id=None, office_id=None, action="account.password_reset",
        subject_ref=user_ref(user.id), before=None, after=None,
    )
    return user.id
