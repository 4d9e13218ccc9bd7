"""What `athaus serve` says once it listens: one block with where everything is (issue 23).

The block is logged (event `serving`, with its fields; on the console as the German lines of `text`) only once the
server answers HTTP on its bind: a thread of the starting process asks until it does, with one worker or several."""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
from urllib.parse import urlsplit

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from contract.servers import SERVERS
from shared.db.models import Listing, User
from shared.db.session import Database
from shared.german import number, plural
from shared.settings import Settings, bind_url

log = logging.getLogger("athaus.cli")

DEMO_LOGINS = "README.md, Abschnitt „Demo logins“"
LISTENING_WAIT_SECONDS = 600.0


def database_label(url: str) -> str:
    """The database in use, never its password: `SQLite var/athaus.sqlite3`, `PostgreSQL athaus@db:5432/athaus`."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"SQLite {parsed.database or '(im Arbeitsspeicher)'}"
    user = f"{parsed.username}@" if parsed.username else ""
    port = f":{parsed.port}" if parsed.port else ""
    return f"PostgreSQL {user}{parsed.host or ''}{port}/{parsed.database or ''}"


def demo_state(db: Database) -> tuple[bool, int]:
    """Whether the demo logins are in this database, and how many listings the catalog has."""
    from shared.demo import DEMO_ACCOUNTS

    with db.read_only() as session:
        demo = bool(session.scalar(select(func.count()).select_from(User).where(User.email.in_([a.email for a in DEMO_ACCOUNTS]))))
        listings = int(session.scalar(select(func.count()).select_from(Listing)) or 0)
    return demo, listings


def start_block(settings: Settings, db: Database, only: str | None, workers: int) -> dict[str, object]:
    """The fields of the start block and its German text."""
    base = settings.public_url.rstrip("/")
    servers = {spec.title: f"{base}{spec.path}" for name, spec in SERVERS.items() if only in (None, name.value)}
    demo, listings = demo_state(db)
    fields: dict[str, object] = {
        "event": "serving",
        "bind": f"{settings.host}:{settings.port}",
        "public_url": settings.public_url,
        "mcp": list(servers.values()),
        "docs": f"{base}/docs/",
        "app": f"{base}/app/",
        "health": f"{base}/healthz",
        "database": database_label(settings.database_url),
        "demo_seeded": demo,
        "listings": listings,
        "workers": workers,
        "development": settings.development,
    }
    width = max(len(title) for title in [*servers, "Datenbank"]) + 2
    lines = [f"Athaus läuft auf {bind_url(settings.host, settings.port)} ({plural(workers, 'Prozess', 'Prozesse')}):"]
    lines += [f"  {(title + ':').ljust(width)} {url}" for title, url in servers.items()]
    lines += [
        f"  {'Doku:'.ljust(width)} {fields['docs']}",
        f"  {'Web-App:'.ljust(width)} {fields['app']}",
        f"  {'Zustand:'.ljust(width)} {fields['health']}",
        f"  {'Datenbank:'.ljust(width)} {fields['database']}, {number(listings)} Inserate",
        f"  {'Demodaten:'.ljust(width)} "
        + (f"angelegt; Demo-Anmeldungen: {DEMO_LOGINS}" if demo else "keine (`athaus demo seed` legt sie an)"),
    ]
    if settings.development:
        lines += [
            "  Achtung, Entwicklungsmodus: `athaus token` stellt Tokens ohne Anmeldung aus, Cookies gehen ohne Secure.",
            "  Nur auf diesem Rechner verwenden, nie öffentlich (im Betrieb: ATHAUS_PUBLIC_URL=https://…).",
        ]
    fields["text"] = "\n".join(lines)
    return fields


def announce_when_listening(settings: Settings, db: Database, only: str | None, workers: int) -> threading.Thread:
    """Logs the start block once the server answers on its bind (any HTTP answer: a worker has started)."""
    bound = urlsplit(bind_url(settings.host, settings.port))
    host, port = bound.hostname or "127.0.0.1", bound.port

    def wait_and_say() -> None:
        until = time.monotonic() + LISTENING_WAIT_SECONDS
        while time.monotonic() < until:
            connection = http.client.HTTPConnection(host, port, timeout=2)
            try:
                connection.request("GET", "/healthz")
                connection.getresponse().read()
            except OSError:
                time.sleep(0.1)
                continue
            finally:
                connection.close()
            try:
                block = start_block(settings, db, only, workers)
            except Exception:  # the database went away meanwhile: the server says so itself
                log.exception(json.dumps({"event": "start_block_failed"}))
                return
            log.info(json.dumps(block, ensure_ascii=False))
            return

    thread = threading.Thread(target=wait_and_say, name="athaus-start-block", daemon=True)
    thread.start()
    return thread

