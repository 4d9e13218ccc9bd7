"""The `athaus` command: serve, db upgrade|backup, demo seed, office create, docs build|check, outbox run, import, token."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select

from athaus.german_cli import GermanParser
from athaus.german_cli import install as install_german
from shared.db.migrate import MigrationFailed, upgrade
from shared.db.models import Listing
from shared.db.session import Database
from shared.identity import version
from shared.german import number
from shared.logging import configure, console_wanted
from shared.settings import Settings

log = logging.getLogger("athaus.cli")


def _database(settings: Settings) -> Database:
    return Database.from_url(settings.database_url)


FIRST_OFFICE_HINT = (
    "Noch kein Maklerbüro angelegt. Das erste Büro und seine Inhaberin legt an: "
    'athaus office create --name "Name des Büros" --city Ort --owner-email inhaberin@example.de '
    "(die Einladung geht per E-Mail hinaus und steht in der Ausgabe). Suchende legen ihr Konto bei der ersten Anmeldung selbst an."
)


def tell(level: int, event: str, text: str, **fields: object) -> None:
    """A log line that a person reads too: on the console its German `text`, in JSON with the fields."""
    log.log(level, json.dumps({"event": event, **fields, "text": text}, ensure_ascii=False))


def prepare(settings: Settings, db: Database) -> None:
    """Bring the schema to head; in development mode seed the demo catalog once into an empty catalog. A production
    start never seeds (its demo accounts have published passwords); on an empty database it says how the first office
    is created."""
    from shared.db.models import Office

    upgrade(db.engine)
    with db.read_only() as session:
        empty = not session.scalar(select(func.count()).select_from(Listing))
        offices = session.scalar(select(func.count()).select_from(Office))
    if empty and settings.seeds_demo:
        from shared.demo import seed_demo

        started = time.monotonic()
        summary = seed_demo(db.engine, listings=settings.demo_listings)
        seconds = time.monotonic() - started
        text = f"Demodaten angelegt: {number(summary.listings)} Inserate, {number(summary.users)} Konten in {number(seconds, 1)} s"
        log.info(json.dumps({"event": "demo_seeded", "listings": summary.listings, "seconds": round(seconds, 3), "text": text}, ensure_ascii=False))
        return
    if not settings.development and "demo_seed" in settings.model_fields_set and settings.demo_seed:
        tell(logging.WARNING, "demo_seed_ignored", "ATHAUS_DEMO_SEED gilt nur im Entwicklungsmodus; Demodaten legt im Betrieb nur `athaus demo seed` an.")
    if not offices:
        tell(logging.WARNING, "no_office", FIRST_OFFICE_HINT, next_step="athaus office create")


def run_supervised(app: str, **options: Any) -> None:
    """uvicorn.run's own path for several workers (same arguments), with a supervisor that lets go of the socket as
    its workers drain (athaus/draining.py)."""
    import uvicorn

    from athaus.draining import Supervisor

    config = uvicorn.Config(app, **options)
    Supervisor(config, sockets=[config.bind_socket()]).run()


def default_workers(settings: Settings) -> int:
    """One worker process per core on PostgreSQL; one on SQLite (a single writer: more processes only queue on its lock)."""
    if settings.workers is not None:
        return settings.workers
    return 1 if settings.database_url.startswith("sqlite") else max(1, os.cpu_count() or 1)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from athaus.app import SERVE_ONLY_ENV, WORKERS_ENV, create_app
    from shared.telemetry.processes import register as register_process
    from athaus.connections import uvicorn_options
    from athaus.start import announce_when_listening

    try:
        settings = settings.serving(args.host, args.port)
    except ValueError as refused:  # --host off loopback in development mode, or without https in production
        print(f"{SETTINGS_REFUSED} {refused}", file=sys.stderr)
        return 2
    announce(settings)
    db = _database(settings)
    prepare(settings, db)
    host, port = settings.host, settings.port
    workers = args.workers or default_workers(settings)
    announce_when_listening(settings, db, args.server, workers)  # the start block, once the socket answers
    if workers == 1:
        app = create_app(settings, db, only=args.server)
        uvicorn.run(app, host=host, port=port, **uvicorn_options(settings))
        return 0
    db.engine.dispose()  # each worker opens its own pool (the start block's one query opens it here again)
    # the workers read their settings from the environment: the bind goes with them, so an unset public URL
    # follows it there too
    os.environ.update({SERVE_ONLY_ENV: args.server or "", WORKERS_ENV: str(workers), "ATHAUS_HOST": host, "ATHAUS_PORT": str(port)})
    metrics_dir = shared_metrics_dir()
    register_process("supervisor")
    with contextlib.suppress(KeyboardInterrupt):
        run_supervised("athaus.app:app_from_environment", factory=True, workers=workers, host=host, port=port, **uvicorn_options(settings))
    if metrics_dir is not None:
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


METRICS_PREFIX = "athaus-metrics-"
_METRICS_FOLDER = re.compile(re.escape(METRICS_PREFIX) + r"(\d+)-[a-z0-9_]+")  # mkdtemp's suffix has no "-"


def shared_metrics_dir(root: str | None = None) -> str | None:
    """Several workers: their Prometheus values meet in a fresh folder (any worker's /metrics sums them). One made
    here is removed when serving ends; PROMETHEUS_MULTIPROC_DIR set by the operator is used as it is. The folder
    names the serving process, so a start removes those of earlier starts that were killed (SIGKILL leaves no end)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    root = root or tempfile.gettempdir()
    remove_orphaned_metrics_dirs(root)
    folder = tempfile.mkdtemp(prefix=f"{METRICS_PREFIX}{os.getpid()}-", dir=root)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


def remove_orphaned_metrics_dirs(root: str) -> list[str]:
    """Removes this user's metrics folders whose serving process is gone; returns their names. Folders of another
    name, of another user or of a process still running are left alone."""
    removed = []
    for entry in os.scandir(root):
        match = _METRICS_FOLDER.fullmatch(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
            continue
        if not _running(int(match.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
    return sorted(removed)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: running
        return True
    return True


def announce(settings: Settings) -> None:
    """Says at start what in the settings does not fit (where everything is, athaus/start.py says once it listens)."""
    mismatch = settings.bind_mismatch()
    if mismatch:
        tell(logging.WARNING, "public_url_mismatch", f"ATHAUS_PUBLIC_URL passt nicht zur Bindung ({mismatch}).", detail=mismatch)
    if settings.development_forced_off:
        tell(
            logging.WARNING, "development_mode_off",
            f"Entwicklungsmodus ist aus, weil die öffentliche Adresse {settings.public_url} nicht auf Loopback liegt.",
            public_url=settings.public_url,
        )


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "backup":
        return cmd_db_backup(args, settings)
    upgrade(_database(settings).engine)
    print("Datenbank ist auf dem neuesten Stand.")
    return 0


def cmd_db_backup(args: argparse.Namespace, settings: Settings) -> int:
    from shared.db.backup import BackupRefused, backup_sqlite

    if not args.target:
        print("Wohin? Eine Zieldatei angeben, etwa: athaus db backup athaus-$(date -u +%Y%m%dT%H%MZ).sqlite3", file=sys.stderr)
        return 2
    try:
        size = backup_sqlite(settings.database_url, Path(args.target))
    except BackupRefused as refused:
        print(f"Nicht gesichert: {refused}", file=sys.stderr)
        return 1
    print(f"Gesichert: {args.target} ({number(size / 1_000_000, 1)} MB).")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from shared.demo import seed_demo

    db = _database(settings)
    upgrade(db.engine)
    started = time.monotonic()
    try:
        summary = seed_demo(db.engine, listings=args.listings, seed=args.seed)
    except ValueError as refused:
        print(f"Nicht geladen: {refused}", file=sys.stderr)
        return 1
    seconds = time.monotonic() - started
    # Peak resident memory of this process (Linux reports KiB); the term index workers are processes of their own.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"Demodaten geladen: {summary.listings} Inserate ({summary.published} veröffentlicht), {summary.offices} Büros, "
        f"{summary.places} Orte, {summary.users} Konten; {seconds:.0f} s, höchstens {peak_mb:.0f} MB Arbeitsspeicher."
    )
    return 0


def cmd_docs(args: argparse.Namespace, settings: Settings) -> int:
    from athaus.docs import build_docs, check_docs, write_docs
    from athaus.docs.examples import run_examples
    from athaus.docs.site import SITE_DIR, SiteBuildError, build_site, check_site, require_generator

    root, site = Path(args.root), Path(args.site) if args.site else SITE_DIR
    try:
        require_generator()
        pages = build_docs(run_examples())
        if args.action == "build":
            removed = write_docs(root, pages)
            build_site(root, site)
            gone = f" Entfernt: {', '.join(removed)}." if removed else ""
            print(f"Doku erzeugt: Markdown unter {root}/, Website unter {site}/.{gone}")
            return 0
        stale = check_docs(root, pages)
        if stale:
            print("Veraltet (bitte `athaus docs build` ausführen): " + ", ".join(stale), file=sys.stderr)
            return 1
        stale = check_site(root, site)
    except SiteBuildError as failed:
        print(f"Die Website ließ sich nicht bauen:\n{failed}", file=sys.stderr)
        return 1
    if stale:
        print(f"Website unter {site}/ veraltet (bitte `athaus docs build` ausführen): " + ", ".join(stale), file=sys.stderr)
        return 1
    print("Doku und Website entsprechen dem Vertrag.")
    return 0


def cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    from contract.rights import ServerName
    from contract.servers import SERVERS
    from shared.auth.access import account_by_email, allowed_scopes
    from shared.auth.tokens import DEVELOPMENT_CLIENT_ID, mint_access_token

    # the server the token is for: its port or public URL as `athaus serve` was started with them
    overrides = {key: value for key, value in (("port", args.port), ("public_url", args.public_url)) if value}
    if overrides:
        try:
            settings = Settings(**overrides)
        except ValidationError as invalid:
            print(f"Die Angaben passen nicht: {_problems(invalid)}", file=sys.stderr)
            return 2
    if not settings.development:
        print("Tokens gibt `athaus token` nur im Entwicklungsmodus aus (ATHAUS_DEVELOPMENT=true).", file=sys.stderr)
        return 1
    if settings.oauth_issuer:
        print("Mit ATHAUS_OAUTH_ISSUER stellt der externe Autorisierungsserver die Tokens aus, nicht `athaus token`.", file=sys.stderr)
        return 1
    server = SERVERS[ServerName(args.server)]
    db = _database(settings)
    upgrade(db.engine)
    with db.unit_of_work() as session:
        account = account_by_email(session, args.user)
        if account is None:
            print(f"Kein Konto mit der E-Mail-Adresse {args.user}.", file=sys.stderr)
            return 1
        allowed = allowed_scopes(account, server.name)
        rights = args.rights or [scope for scope in server.scopes if scope in allowed]
        refused = [right for right in rights if right not in allowed]
        if not allowed or refused:
            wanted = " ".join(refused or server.scopes)
            print(f"Das Konto {account.email} kann auf {server.title} diese Rechte nicht erhalten: {wanted}.", file=sys.stderr)
            return 1
        issued = mint_access_token(
            session, user_id=account.user_id, client_id=DEVELOPMENT_CLIENT_ID, resource=settings.resource_url(server.name.value), scopes=rights
        )
    print(issued.access_token)
    print(
        f"Token für {settings.resource_url(server.name.value)} (Konto {account.email}; Rechte: {' '.join(rights)}). Ein Server "
        "auf anderem Port oder unter anderer Adresse lehnt es ab: dann --port oder --public-url wie beim Start angeben.",
        file=sys.stderr,
    )
    return 0


def cmd_outbox(args: argparse.Namespace, settings: Settings) -> int:
    import datetime as dt
    import time

    from shared.outbox.alerts import queue_alerts
    from shared.outbox.worker import SmtpMailer, deliver_due

    mailer = SmtpMailer.from_settings(settings)
    if mailer is None:
        print("Kein SMTP-Server eingestellt (ATHAUS_SMTP_HOST): es gibt nichts zuzustellen.", file=sys.stderr)
        return 1
    db = _database(settings)
    while True:
        now = dt.datetime.now(dt.UTC)
        queue_alerts(db, now)
        done = deliver_due(db, settings, mailer, now)
        if args.once:
            print(f"Zugestellt: {len(done.sent)}, später erneut: {len(done.retried)}, nicht zustellbar: {len(done.failed)}.")
            return 0
        time.sleep(settings.outbox_poll_seconds)


def cmd_office_set(args: argparse.Namespace, settings: Settings, db: Database) -> int:
    """An operator sets an office's own settings (what its owner sets in the web app); the feed address is checked."""
    from contract.errors import ToolFailure
    from shared.accounts.office_settings import FIELDS, save_settings

    sent = {f.name: getattr(args, f.name) for f in FIELDS if getattr(args, f.name, None) is not None}
    if args.office is None or not sent:
        print("Bitte --office NUMMER und mindestens eine Einstellung angeben (etwa --feed-url).", file=sys.stderr)
        return 2
    try:
        with db.unit_of_work() as session:
            changed = save_settings(session, args.office, sent, allow_http=settings.development)
    except ToolFailure as refused:
        print(f"Nicht gespeichert: {refused.message}", file=sys.stderr)
        return 1
    print(f"Büro {args.office}: " + (("gespeichert: " + ", ".join(changed) + ".") if changed else "nichts geändert."))
    return 0


def cmd_office(args: argparse.Namespace, settings: Settings) -> int:
    """An operator creates an office and invites its owner (the link goes out by e-mail and is printed), or sets an
    office's settings."""
    import datetime as dt

    from contract.errors import ToolFailure
    from shared.accounts.offices import create_office

    db = _database(settings)
    upgrade(db.engine)
    if args.action == "set":
        return cmd_office_set(args, settings, db)
    if not (args.name and args.city and args.owner_email):
        print("Zum Anlegen bitte --name, --city und --owner-email angeben.", file=sys.stderr)
        return 2
    if settings.oauth_issuer:
        from shared.accounts.offices import create_office_for_external_sign_in

        try:
            with db.unit_of_work() as session:
                office_id = create_office_for_external_sign_in(
                    session, name=args.name, city=args.city, owner_email=args.owner_email, now=dt.datetime.now(dt.UTC)
                )
        except ToolFailure as refused:
            print(f"Nicht angelegt: {refused.message}", file=sys.stderr)
            return 1
        print(f"Büro {args.name.strip()} angelegt (Nummer {office_id}).")
        print(
            f"Inhaber/in: {args.owner_email.strip().lower()}; die Anmeldung läuft über {settings.oauth_issuer} "
            f"(Konto über {settings.oauth_user_claim} zugeordnet), daher gibt es keinen Einladungslink."
        )
        return 0
    try:
        with db.unit_of_work() as session:
            office_id, link = create_office(
                session, name=args.name, city=args.city, owner_email=args.owner_email, public_url=settings.public_url,
                now=dt.datetime.now(dt.UTC),
            )
    except ToolFailure as refused:
        print(f"Nicht angelegt: {refused.message}", file=sys.stderr)
        return 1
    mail = "sie geht per E-Mail hinaus" if settings.smtp_host else "kein SMTP-Server eingestellt (ATHAUS_SMTP_HOST), bitte selbst weitergeben"
    print(f"Büro {args.name.strip()} angelegt (Nummer {office_id}).")
    print(f"Einladung an {args.owner_email.strip().lower()} als Inhaber/in, 7 Tage gültig; {mail}:")
    print(link)
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    import datetime as dt

    from contract.errors import ToolFailure
    from contract.vocabulary import TransferSource
    from shared.stock_import import import_transfer

    db = _database(settings)
    upgrade(db.engine)
    try:
        with Path(args.file).open("rb") as source:
            result = import_transfer(
                db, source, source_kind=TransferSource.upload, office_id=args.office, user_id=None, client_id="athaus-cli",
                max_bytes=settings.openimmo_max_bytes, publish=not args.drafts, now=dt.datetime.now(dt.UTC),
            )
    except (ToolFailure, OSError) as refused:
        print(f"Nicht importiert: {getattr(refused, 'message', refused)}", file=sys.stderr)
        return 1
    for item in result.results:
        reason = "" if not isinstance(item.reason, str) else f" – {item.reason}"
        print(f"{item.objektnr_extern if isinstance(item.objektnr_extern, str) else '(ohne Nummer)'}: {item.outcome_label}{reason}")
    for warning in result.warnings:
        print(f"Hinweis: {warning}")
    print(result.summary)
    return 0


def parser() -> argparse.ArgumentParser:
    install_german()
    root = GermanParser(
        prog="athaus", description="Athaus MCP-Server: Athaus für Makler und Athaus Immobiliensuche, ihre Datenbank, Doku und Demodaten.",
        example="athaus serve --port 8741\nathaus serve suche --help",
    )
    root.add_argument("--version", action="version", version=f"athaus {version()}", help="Version zeigen und beenden")
    commands = root.add_subparsers(dest="command", required=True, title="Befehle", metavar="BEFEHL")

    serve = commands.add_parser(
        "serve", help="Server starten (ohne Angabe: beide in einem Prozess)", description="Startet die MCP-Server, die Anmeldung, "
        "die Web-App und die Doku; bringt die Datenbank vorher auf den neuesten Stand.",
        example="athaus serve --port 8741          # beide Server, http://127.0.0.1:8741\nathaus serve suche --workers 2    # nur die Immobiliensuche",
    )
    serve.add_argument("server", nargs="?", choices=["makler", "suche"], default=None, help="nur diesen Server (Standard: beide)")
    serve.add_argument("--host", default=None, metavar="ADRESSE", help="Adresse, auf der er lauscht (Standard: ATHAUS_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="Port (Standard: ATHAUS_PORT, 8000)")
    serve.add_argument("--workers", type=int, default=None, metavar="ANZAHL", help="Arbeitsprozesse (ohne Angabe: je CPU-Kern mit PostgreSQL, 1 mit SQLite)")
    serve.set_defaults(run=cmd_serve)

    db = commands.add_parser(
        "db", help="Datenbank auf den neuesten Stand bringen oder (SQLite) sichern",
        description="Wendet die fehlenden Migrationen an, oder sichert eine SQLite-Datenbank im laufenden Betrieb "
        "(PostgreSQL: pg_dump, siehe docs/betrieb.md).",
        example="athaus db upgrade\nathaus db backup athaus-$(date -u +%Y%m%dT%H%MZ).sqlite3",
    )
    db.add_argument("action", choices=["upgrade", "backup"], help="upgrade: alle fehlenden Migrationen anwenden; backup: SQLite sichern")
    db.add_argument("target", nargs="?", default=None, metavar="ZIEL", help="backup: Datei der Sicherung (darf es noch nicht geben)")
    db.set_defaults(run=cmd_db)

    demo = commands.add_parser(
        "demo", help="Demodaten anlegen", description="Legt Demokatalog und Demokonten (mit veröffentlichten Passwörtern, "
        "siehe README) in eine leere Datenbank.", example="athaus demo seed --listings 10000",
    )
    demo.add_argument("action", choices=["seed"], help="seed: Demodaten anlegen")
    demo.add_argument("--listings", type=int, default=2400, metavar="ANZAHL", help="Zahl der Inserate (Standard: 2400)")
    demo.add_argument("--seed", type=int, default=7, metavar="ZAHL", help="Startwert des Zufalls: gleicher Wert, gleiche Daten (Standard: 7)")
    demo.set_defaults(run=cmd_demo)

    docs = commands.add_parser(
        "docs", help="Doku aus dem Vertrag: Markdown unter docs/ und die Website daraus",
        description="Erzeugt oder prüft die Doku-Seiten und die Website.", example="athaus docs build\nathaus docs check",
    )
    docs.add_argument("action", choices=["build", "check"], help="build: erzeugen; check: prüfen, ob sie dem Vertrag entsprechen")
    docs.add_argument("--root", default="docs", metavar="ORDNER", help="Markdown-Quellen (Standard: docs)")
    docs.add_argument("--site", default=None, metavar="ORDNER", help="Ziel der Website (Standard: athaus/docs/site, das Paket liefert sie aus)")
    docs.set_defaults(run=cmd_docs)

    outbox = commands.add_parser(
        "outbox", help="Postausgang: fällige E-Mails zustellen (statt im Server mit ATHAUS_OUTBOX_WORKER)",
        description="Stellt fällige E-Mails über ATHAUS_SMTP_HOST zu.", example="athaus outbox run --once",
    )
    outbox.add_argument("action", choices=["run"], help="run: zustellen, bis beendet (mit --once: eine Runde)")
    outbox.add_argument("--once", action="store_true", help="Eine Runde, dann beenden")
    outbox.set_defaults(run=cmd_outbox)

    office = commands.add_parser(
        "office", help="Maklerbüros: ein Büro anlegen und seine Inhaberin oder seinen Inhaber einladen",
        description="Legt ein Maklerbüro an und lädt die Inhaberin oder den Inhaber per E-Mail ein, oder ändert die "
        "Einstellungen eines Büros (Kontakt, E-Mail für Anfragen, OpenImmo-Feed-Adresse).",
        example='athaus office create --name "Hoffmann Immobilien" --city Leipzig --owner-email inhaberin@example.de\n'
        "athaus office set --office 1 --feed-url https://crm.example.de/openimmo.zip --inquiry-email anfragen@example.de",
    )
    office.add_argument("action", choices=["create", "set"], help="create: Büro anlegen; set: Einstellungen eines Büros ändern")
    office.add_argument("--office", type=int, metavar="NUMMER", help="set: Nummer des Büros")
    office.add_argument("--name", metavar="NAME", help="Name des Büros")
    office.add_argument("--city", metavar="ORT", help="Ort des Büros")
    office.add_argument("--owner-email", metavar="E-MAIL", help="create: E-Mail-Adresse der Inhaberin oder des Inhabers (bekommt die Einladung)")
    office.add_argument("--phone", metavar="TELEFON", help="set: Telefon (leer: entfernen)")
    office.add_argument("--email", metavar="E-MAIL", help="set: E-Mail für Interessenten, steht bei jedem Inserat")
    office.add_argument("--inquiry-email", dest="inquiry_email", metavar="E-MAIL", help="set: E-Mail für Benachrichtigungen über Anfragen")
    office.add_argument("--website", metavar="ADRESSE", help="set: Website")
    office.add_argument("--feed-url", dest="openimmo_feed_url", metavar="ADRESSE",
                        help="set: OpenImmo-Feed-Adresse (https, öffentlich; wird beim Speichern geprüft)")
    office.set_defaults(run=cmd_office)

    imports = commands.add_parser(
        "import", help="OpenImmo-Übertragung in den Bestand eines Büros importieren",
        description="Liest eine OpenImmo-Datei und übernimmt ihre Objekte in den Bestand eines Büros.",
        example="athaus import openimmo uebertragung.xml --office 1 --drafts",
    )
    imports.add_argument("format", choices=["openimmo"], help="Format der Datei")
    imports.add_argument("file", metavar="DATEI", help="OpenImmo-XML-Datei (Version 1.2.x)")
    imports.add_argument("--office", type=int, required=True, metavar="NUMMER", help="Nummer des Büros")
    imports.add_argument("--drafts", action="store_true", help="neue Objekte als Entwurf lassen, nicht veröffentlichen")
    imports.set_defaults(run=cmd_import)

    token = commands.add_parser(
        "token", help="Zugangstoken für ein Konto ausgeben (nur im Entwicklungsmodus)",
        description="Gibt ein Zugangstoken für den Server aus, der unter dem angegebenen Port oder der angegebenen Adresse "
        "läuft (ohne Angabe: ATHAUS_PORT/ATHAUS_PUBLIC_URL). Das Token steht auf stdout, für wen es gilt auf stderr.",
        example="athaus token --user suchende@athaus-demo.example --server suche --port 8741",
    )
    token.add_argument("--user", required=True, metavar="E-MAIL", help="E-Mail-Adresse des Kontos")
    token.add_argument("--server", required=True, choices=["makler", "suche"], help="für welchen Server")
    token.add_argument("--rights", nargs="+", metavar="RECHT", help="Rechte (Standard: alle, die das Konto dort haben kann)")
    token.add_argument("--port", type=int, default=None, help="Port, mit dem `athaus serve --port` gestartet wurde")
    token.add_argument("--public-url", default=None, metavar="URL", help="öffentliche Adresse des Servers (wie ATHAUS_PUBLIC_URL beim Start)")
    token.set_defaults(run=cmd_token)

    from athaus.admin import add_admin

    add_admin(commands)
    return root


SETTINGS_REFUSED = "Die Einstellungen (ATHAUS_*) passen nicht zusammen:"


def _problems(invalid: ValidationError) -> str:
    return "; ".join(str(error["msg"]).removeprefix("Value error, ") for error in invalid.errors())


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as invalid:
        print(f"{SETTINGS_REFUSED} {_problems(invalid)}", file=sys.stderr)
        return 2
    configure(settings.log_level, console_wanted(settings.log_format, settings.development))
    try:
        return int(args.run(args, settings))
    except MigrationFailed as failed:  # one German sentence, never a traceback (the detail is in the log line)
        print(failed, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
