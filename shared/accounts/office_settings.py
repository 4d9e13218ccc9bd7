"""An office's own settings, set by its owner in the web app or by an operator with `athaus office set`: name, town,
contact details (phone, e-mail, website: shown with every listing), the e-mail that inquiry notices go to, and the
OpenImmo feed address import_listings fetches from. The feed address is checked when it is saved as every outbound
address is (shared/outbound.py): https (http only in development), a host that resolves to public addresses only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from shared.accounts.signup import email_problem
from shared.db.models import Office
from shared.outbound import resolve_global


@dataclass(frozen=True)
class SettingField:
    name: str  # the Office column and the form field
    label: str  # German
    limit: int
    required: bool = False
    kind: str = "text"  # text | email | url | feed


FIELDS: tuple[SettingField, ...] = (
    SettingField("name", "Name des Büros", 200, required=True),
    SettingField("city", "Ort", 100, required=True),
    SettingField("phone", "Telefon", 50),
    SettingField("email", "E-Mail für Interessenten", 200, kind="email"),
    SettingField("inquiry_email", "E-Mail für Benachrichtigungen über Anfragen", 200, kind="email"),
    SettingField("website", "Website", 200, kind="url"),
    SettingField("openimmo_feed_url", "OpenImmo-Feed-Adresse", 500, kind="feed"),
)
BY_NAME = {f.name: f for f in FIELDS}
_PHONE = re.compile(r"^[+0-9 ()/.\-]{3,50}$")


def read_settings(session: Session, office_id: int) -> dict[str, str]:
    office = session.get(Office, office_id)
    if office is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Ein Büro mit der Nummer {office_id} gibt es nicht: bitte die Nummer prüfen.")
    return {f.name: getattr(office, f.name) or "" for f in FIELDS}


def feed_problem(url: str, *, allow_http: bool) -> str | None:
    """Why the feed address cannot be fetched from (German), or None: the outbound rules, checked now."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return "OpenImmo-Feed-Adresse: das ist keine gültige Adresse."
    if parts.scheme not in (("https", "http") if allow_http else ("https",)) or not host:
        return "OpenImmo-Feed-Adresse: bitte eine https-Adresse mit Rechnernamen angeben, etwa https://crm.example.de/export.zip."
    if anyio.run(resolve_global, host, port) is None:
        return (f"OpenImmo-Feed-Adresse: der Rechner {host} ist nicht erreichbar oder kein öffentlicher Rechner "
                "(interne Adressen sind gesperrt); bitte die Adresse prüfen.")
    return None


def _problem(field: SettingField, value: str, allow_http: bool) -> str | None:
    if not value:
        return f"{field.label}: bitte angeben." if field.required else None
    if len(value) > field.limit or any(ord(ch) < 32 for ch in value):
        return f"{field.label}: bitte höchstens {field.limit} Zeichen ohne Steuerzeichen."
    if field.kind == "email":
        problem = email_problem(value)
        return f"{field.label}: {problem}" if problem else None
    if field.kind == "url" and not re.match(r"^https?://[^\s/]+\.[^\s]+$", value):
        return f"{field.label}: bitte eine Adresse mit https:// angeben, etwa https://www.example.de."
    if field.name == "phone" and not _PHONE.match(value):
        return f"{field.label}: bitte nur Ziffern, Leerzeichen und + ( ) / - verwenden."
    if field.kind == "feed":
        return feed_problem(value, allow_http=allow_http)
    return None


def save_settings(session: Session, office_id: int, sent: dict[str, str | None], *, allow_http: bool = False) -> list[str]:
    """Apply the sent fields (others stay; "" clears an optional one); the German labels of what changed. Every problem
    is named at once (INVALID_ARGUMENT); nothing is saved then."""
    unknown = sorted(set(sent) - set(BY_NAME))
    if unknown:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Unbekannte Einstellung: {', '.join(unknown)}.")
    current = read_settings(session, office_id)
    values = {name: (value or "").strip() for name, value in sent.items()}
    changed = [name for name, value in values.items() if value != current[name]]
    problems = [p for f in FIELDS if f.name in changed and (p := _problem(f, values[f.name], allow_http))]
    if problems:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, " ".join(problems) + " Nichts wurde gespeichert.")
    office = session.get(Office, office_id)
    assert office is not None
    for name in changed:
        setattr(office, name, values[name] or None)
    return [BY_NAME[name].label for name in changed]
