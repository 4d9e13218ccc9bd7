"""The demo only on purpose: a production start (development mode off) on an empty database seeds nothing and says
how the first office is created; a development start (scripts/serve) seeds the demo; `athaus office create` makes
the first office and its owner's invitation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import func, select

from athaus import cli
from shared.db.models import Listing, Office, OfficeMember, OutboxMessage, User
from shared.db.session import Database
from shared.settings import Settings


def counts(db: Database) -> tuple[int, int]:
    with db.read_only() as session:
        return session.scalar(select(func.count()).select_from(Listing)) or 0, session.scalar(select(func.count()).select_from(User)) or 0


def test_a_production_start_seeds_nothing_and_says_how_the_first_office_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ATHAUS_DEMO_SEED", "true")  # even asked for: production never seeds
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'prod.sqlite3'}", public_url="https://athaus.example.org")
    assert not settings.development and not settings.seeds_demo
    db = Database.from_url(settings.database_url)
    cli.prepare(settings, db)
    assert counts(db) == (0, 0)
    said = caplog.text  # logged (the start's lines are log lines: JSON in production)
    assert "athaus office create --name" in said and "ATHAUS_DEMO_SEED gilt nur im Entwicklungsmodus" in said


def test_a_development_start_seeds_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATHAUS_DEMO_SEED", raising=False)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'dev.sqlite3'}", demo_listings=40)
    assert settings.development and settings.seeds_demo
    db = Database.from_url(settings.database_url)
    cli.prepare(settings, db)
    listings, users = counts(db)
    assert listings == 40 and users > 0


def test_scripts_serve_asks_for_the_demo() -> None:
    assert 'export ATHAUS_DEMO_SEED="${ATHAUS_DEMO_SEED:-true}"' in Path("scripts/serve").read_text()


def test_office_create_makes_the_office_and_invites_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'office.sqlite3'}"
    monkeypatch.setenv("ATHAUS_DATABASE_URL", url)
    monkeypatch.setenv("ATHAUS_PUBLIC_URL", "https://athaus.example.org")
    monkeypatch.setenv("ATHAUS_LOG_LEVEL", "WARNING")
    assert cli.main(["office", "create", "--name", "Immobilien Kranich", "--city", "Leipzig", "--owner-email", "Chefin@Kranich.de"]) == 0
    out = capsys.readouterr().out
    link = re.search(r"https://athaus\.example\.org/oauth/einladung\?t=[\w-]+", out)
    assert link and "Büro Immobilien Kranich angelegt (Nummer 1)." in out and "Einladung an chefin@kranich.de als Inhaber/in" in out
    db = Database.from_url(url)
    with db.read_only() as session:
        assert [(o.name, o.city) for o in session.scalars(select(Office))] == [("Immobilien Kranich", "Leipzig")]
        [mail] = session.scalars(select(OutboxMessage))
        assert mail.recipient == "chefin@kranich.de" and link.group(0) in mail.body
    assert cli.main(["office", "create", "--name", " ", "--city", "Leipzig", "--owner-email", "keine-adresse"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (
        "Nicht angelegt: Name des Büros: bitte 1 bis 200 Zeichen ohne Steuerzeichen. "
        "Bitte eine gültige E-Mail-Adresse eingeben, etwa name@example.de."
    )


def test_with_an_external_issuer_office_create_makes_the_owner_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'external.sqlite3'}"
    for name, value in {
        "ATHAUS_DATABASE_URL": url, "ATHAUS_PUBLIC_URL": "https://athaus.example.org", "ATHAUS_LOG_LEVEL": "WARNING",
        "ATHAUS_OAUTH_ISSUER": "https://login.example", "ATHAUS_OAUTH_JWKS_URL": "https://login.example/jwks.json",
    }.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["office", "create", "--name", "Immobilien Kranich", "--city", "Leipzig", "--owner-email", "Chefin@Kranich.de"]) == 0
    assert "keinen Einladungslink" in capsys.readouterr().out
    db = Database.from_url(url)
    with db.read_only() as session:
        owner = session.scalar(select(User).where(User.email == "chefin@kranich.de"))
        assert owner is not None and owner.kind == "broker" and owner.password_hash == "!"
        assert session.scalar(select(OfficeMember.role).where(OfficeMember.user_id == owner.id)) == "owner"
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 0
