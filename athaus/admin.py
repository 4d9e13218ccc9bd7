"""`athaus admin …`: the operator's commands over offices, people, OAuth clients and the stored secrets.

Thin over `shared.accounts.admin` and `shared.secrets`: parse, run in one transaction, print German lines or (with
`--json`) one JSON document. Every change names the operator (`--operator`, else $USER) in the audit log."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from contract.errors import ToolFailure
from shared.accounts import admin
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.secrets import DEFAULT_OVERLAP, ROTATABLE, rotate_secret
from shared.settings import Settings

Action = Callable[[Session, argparse.Namespace, str, dt.datetime], Any]


def _yes(value: bool) -> str:
    return "ja" if value else "nein"


def _person_line(p: dict[str, Any]) -> str:
    office = f", Büro {p['office_id']}" if p.get("office_id") else ""
    role = f" ({p['role']})" if p.get("role") else ""
    return f"{p['id']}: {p['name']} <{p['email']}>, {p['kind']}{office}{role}, aktiv: {_yes(p['active'])}"


def _office_line(o: dict[str, Any]) -> str:
    return f"{o['id']}: {o['name']}, {o['city']}, {o['members']} Personen, aktiv: {_yes(o['active'])}"


def _text(kind: str, result: Any) -> str:
    """The German lines of a result (the JSON form carries the same fields)."""
    if kind == "office list":
        return "\n".join(_office_line(o) for o in result) or "Noch kein Büro angelegt."
    if kind == "person list":
        return "\n".join(_person_line(p) for p in result) or "Keine Konten."
    if kind == "office show":
        lines = [_office_line(result), f"Inserate: {result['listings']}"]
        lines += [f"{label}: {result[key]}" for key, label in (("email", "E-Mail"), ("inquiry_email", "E-Mail für Anfragen"),
                  ("phone", "Telefon"), ("website", "Website"), ("openimmo_feed_url", "OpenImmo-Feed")) if result[key]]
        return "\n".join(lines + ["Personen:"] + ["  " + _person_line(p) for p in result["people"]])
    if kind == "person show":
        grants = ", ".join(f"{client} ({count})" for client, count in result["grants"].items()) or "keine"
        return "\n".join([_person_line(result), f"Angelegt: {result['created_at']}", f"Verbundene Anwendungen: {grants}",
                          f"Web-Sitzungen: {result['web_sessions']}", f"Gesperrt nach Fehlversuchen: {_yes(result['locked_out'])}"])
    if kind == "office deactivate":
        lines = [f"Büro {result['id']} ({result['name']}) deaktiviert: alle {result['members']} Personen abgemeldet und gesperrt."]
        if result["invitations_voided"]:
            lines.append(f"{result['invitations_voided']} noch nicht angenommene Einladungen ungültig gemacht.")
        if result["listings_withdrawn"]:
            lines.append(f"{len(result['listings_withdrawn'])} Inserate zurückgezogen: {', '.join(result['listings_withdrawn'])}.")
        if result["listings_on_market"]:
            lines.append(f"{result['listings_on_market']} Inserate sind weiter öffentlich, aber niemand im Büro kann Anfragen dazu "
                         f"beantworten; zurückziehen mit: athaus admin office deactivate {result['id']} --withdraw-listings")
        return "\n".join(lines)
    if kind == "person deactivate":
        return f"Konto {result['id']} ({result['email']}) deaktiviert und überall abgemeldet."
    if kind == "person revoke":
        return f"Konto {result['id']}: {result['grants_revoked']} Zugriffe widerrufen, {result['web_sessions_ended']} Web-Sitzungen beendet."
    if kind == "client revoke":
        return f"Anwendung {result['client_id']}: {result['grants_revoked']} Zugriffe widerrufen."
    if kind == "person delete":
        return f"Konto {result['id']} gelöscht (wie bei der Löschung durch die Person selbst)."
    if kind == "person unlock":
        return f"Konto {result['id']} entsperrt: Anmelden geht wieder."
    if kind == "secret list":
        return "\n".join(f"{name}: {meaning}" for name, meaning in result.items())
    if kind == "secret rotate":
        return (f"Geheimnis {result['name']} erneuert. Bitte alle Instanzen neu starten; der alte Wert gilt noch bis "
                f"{result['previous_accepted_until']} (UTC), wer angemeldet ist, bleibt es.")
    raise KeyError(kind)


def _operator(args: argparse.Namespace) -> str | None:
    name = (args.operator or os.environ.get("USER") or "").strip()
    return name or None


def _rotate(session: Session, args: argparse.Namespace, operator: str, now: dt.datetime) -> dict[str, Any]:
    retire_at = rotate_secret(session, args.name, dt.timedelta(hours=args.overlap_hours), now)
    admin.record(session, operator, "admin.secret.rotate", "secret", now, after={"name": args.name, "retires": retire_at.isoformat()})
    return {"name": args.name, "previous_accepted_until": retire_at.isoformat(timespec="seconds")}


ACTIONS: dict[str, tuple[Action, bool]] = {  # (what it does, whether it changes something)
    "office list": (lambda s, a, o, n: admin.list_offices(s), False),
    "office show": (lambda s, a, o, n: admin.show_office(s, a.office), False),
    "office deactivate": (lambda s, a, o, n: admin.deactivate_office(s, a.office, o, n, withdraw_listings=a.withdraw_listings), True),
    "person list": (lambda s, a, o, n: admin.list_people(s, a.office), False),
    "person show": (lambda s, a, o, n: admin.show_person(s, a.person, n), False),
    "person deactivate": (lambda s, a, o, n: admin.deactivate_person(s, a.person, o, n), True),
    "person revoke": (lambda s, a, o, n: admin.revoke_person(s, a.person, o, n), True),
    "person delete": (lambda s, a, o, n: admin.delete_person(s, a.person, o, n), True),
    "person unlock": (lambda s, a, o, n: admin.unlock_person(s, a.person, o, n), True),
    "client revoke": (lambda s, a, o, n: admin.revoke_client(s, a.client, o, n), True),
    "secret list": (lambda s, a, o, n: dict(ROTATABLE), False),
    "secret rotate": (_rotate, True),
}


def cmd_admin(args: argparse.Namespace, settings: Settings) -> int:
    kind = f"{args.group} {args.action}"
    run, changes = ACTIONS[kind]
    operator = _operator(args)
    if changes and operator is None:
        print("Bitte mit --operator NAME sagen, wer das tut (steht im Protokoll); ohne Angabe gilt $USER.", file=sys.stderr)
        return 2
    if kind == "secret rotate" and settings.secret_key is not None:
        print("ATHAUS_SECRET_KEY ist gesetzt: dieses Geheimnis wechselt man dort, nicht in der Datenbank.", file=sys.stderr)
        return 1
    db = Database.from_url(settings.database_url)
    upgrade(db.engine)
    try:
        with db.unit_of_work() as session:
            result = run(session, args, operator or "", dt.datetime.now(dt.UTC))
    except ToolFailure as refused:
        if args.json:
            print(json.dumps({"error": refused.code.value, "message": refused.message}, ensure_ascii=False))
        print(f"Nicht ausgeführt: {refused.message}", file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else _text(kind, result))
    return 0


def _action(groups: Any, name: str, help_text: str, example: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = groups.add_parser(name, help=help_text, description=help_text + ".", example=example)
    parser.add_argument("--json", action="store_true", help="Ausgabe als JSON statt als Text")
    parser.add_argument("--operator", metavar="NAME", help="wer das tut, für das Protokoll (Standard: $USER)")
    return parser


def add_admin(commands: Any) -> None:
    """`athaus admin GRUPPE AKTION`: German help with an example on every level."""
    root = commands.add_parser(
        "admin", help="Betrieb: Büros, Personen, Anwendungen und Geheimnisse verwalten",
        description="Verwaltung für den Betrieb. Jede Änderung steht mit dem Namen der ausführenden Person im Protokoll (audit_log).",
        example="athaus admin person list --json\nathaus admin person unlock anna@example.de --operator jonas",
    )
    root.set_defaults(run=cmd_admin)
    groups = root.add_subparsers(dest="group", required=True, title="Bereiche", metavar="BEREICH")

    office = groups.add_parser("office", help="Maklerbüros", description="Maklerbüros auflisten, zeigen, deaktivieren.",
                               example="athaus admin office show 3")
    actions = office.add_subparsers(dest="action", required=True, title="Aktionen", metavar="AKTION")
    _action(actions, "list", "Alle Büros auflisten", "athaus admin office list --json")
    _action(actions, "show", "Ein Büro mit seinen Personen zeigen", "athaus admin office show 3").add_argument(
        "office", type=int, metavar="NUMMER", help="Nummer des Büros")
    deactivate = _action(actions, "deactivate", "Alle Personen eines Büros abmelden und sperren, auf Wunsch seine Inserate zurückziehen",
                         "athaus admin office deactivate 3 --withdraw-listings --operator jonas")
    deactivate.add_argument("office", type=int, metavar="NUMMER", help="Nummer des Büros")
    deactivate.add_argument("--withdraw-listings", action="store_true",
                            help="auch seine veröffentlichten und reservierten Inserate zurückziehen (Suchende sehen sie nicht mehr)")

    person = groups.add_parser("person", help="Konten von Personen", description="Konten auflisten, zeigen, deaktivieren, "
                               "abmelden, löschen, entsperren.", example="athaus admin person show anna@example.de")
    actions = person.add_subparsers(dest="action", required=True, title="Aktionen", metavar="AKTION")
    _action(actions, "list", "Alle Konten auflisten (oder die eines Büros)", "athaus admin person list --office 3").add_argument(
        "--office", type=int, metavar="NUMMER", help="nur die Personen dieses Büros")
    for name, text, example in (
        ("show", "Ein Konto zeigen: Anwendungen, Sitzungen, Sperre", "athaus admin person show anna@example.de --json"),
        ("deactivate", "Ein Konto sperren und überall abmelden (kein Passwort, kein Reset-Link passt mehr)",
         "athaus admin person deactivate 42 --operator jonas"),
        ("revoke", "Alle Zugriffe eines Kontos widerrufen: verbundene Anwendungen (OAuth) und Web-Sitzungen",
         "athaus admin person revoke anna@example.de --operator jonas"),
        ("delete", "Ein Konto löschen wie bei der Löschung durch die Person selbst (Makler: erst aus dem Büro entfernen)",
         "athaus admin person delete 42 --operator jonas"),
        ("unlock", "Die Sperre nach falschen Passwörtern aufheben", "athaus admin person unlock anna@example.de --operator jonas"),
    ):
        _action(actions, name, text, example).add_argument("person", metavar="KONTO", help="Nummer oder E-Mail-Adresse des Kontos")

    client = groups.add_parser("client", help="Verbundene Anwendungen (OAuth-Clients)", description="Zugriffe einer Anwendung widerrufen.",
                               example="athaus admin client revoke https://claude.ai/oauth/claude-code-client-metadata")
    actions = client.add_subparsers(dest="action", required=True, title="Aktionen", metavar="AKTION")
    _action(actions, "revoke", "Alle Zugriffe einer Anwendung bei allen Personen widerrufen",
            "athaus admin client revoke 4f1c2d --operator jonas").add_argument("client", metavar="CLIENT_ID", help="client_id der Anwendung")

    secret = groups.add_parser("secret", help="Geheimnisse in der Datenbank (server_secrets)",
                               description="Die Geheimnisse, die Athaus selbst anlegt, auflisten und erneuern.",
                               example="athaus admin secret rotate oauth --overlap-hours 24 --operator jonas")
    actions = secret.add_subparsers(dest="action", required=True, title="Aktionen", metavar="AKTION")
    _action(actions, "list", "Die Geheimnisse und wofür sie signieren", "athaus admin secret list")
    rotate = _action(actions, "rotate", "Ein Geheimnis erneuern; der alte Wert gilt noch für die Überlappung",
                     "athaus admin secret rotate oauth --overlap-hours 24 --operator jonas")
    rotate.add_argument("name", choices=sorted(ROTATABLE), help="welches Geheimnis")
    rotate.add_argument("--overlap-hours", type=float, default=DEFAULT_OVERLAP.total_seconds() / 3600, metavar="STUNDEN",
                        help="so lange gilt der alte Wert noch (Standard: 24)")
