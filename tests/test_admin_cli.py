"""The operator's command line (`athaus admin …`, athaus/admin.py over shared/accounts/admin.py), run through the
`athaus` main function on the real database (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL): German help with
an example on every action, JSON output, each change in the audit log with the operator's name."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from athaus.admin import ACTIONS
from athaus.cli import main
from contract.catalog import SearchListingsInput
from search_server.catalog import search_listings
from shared.accounts.admin import WITHDRAWN_BY_OPERATOR
from shared.accounts.offices import create_office, remove_member
from shared.accounts.reset import finish_reset
from shared.accounts.links import new_token, user_ref, valid
from shared.auth import throttle
from shared.auth.access import check_credentials, sign_in
from shared.auth.sessions import open_session, session_user
from shared.auth.signing import Signer
from shared.auth.tokens import mint_access_token, resolve_access_token
from shared.db.models import AuditEntry, CatalogState, Listing, ListingStatusChange, OfficeMember, Office, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.paging.cursor import CursorCodec
from shared.secrets import load_secret
from tests.conftest import make_context, seeded_database

PUBLIC = "https://athaus.example.org"
SEEKERS = [a for a in DEMO_ACCOUNTS if a.office_role is None]
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAFF = [a for a in DEMO_ACCOUNTS if a.office_role == "staff"]


@pytest.fixture
def db(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    with seeded_database(tmp_path, "admin", listings=30) as database:
        monkeypatch.setenv("ATHAUS_DATABASE_URL", database.engine.url.render_as_string(hide_password=False))
        monkeypatch.delenv("ATHAUS_SECRET_KEY", raising=False)
        monkeypatch.setenv("USER", "betrieb")
        yield database


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(["admin", *argv])
    out = capsys.readouterr().out
    return code, (json.loads(out) if "--json" in argv and code == 0 else out)


def user_id(db: Database, email: str) -> int:
    with db.read_only() as session:
        found = session.scalar(select(User.id).where(User.email == email))
    assert found is not None
    return found


def audit_rows(db: Database) -> list[tuple[str, str | None, str]]:
    with db.read_only() as session:
        return [(a.action, a.client_id, a.subject_ref) for a in session.scalars(select(AuditEntry).where(AuditEntry.action.like("admin.%")).order_by(AuditEntry.id))]


def bearer(db: Database, uid: int, client: str = "test") -> str:
    with db.unit_of_work() as session:
        return mint_access_token(session, user_id=uid, client_id=client, resource=f"{PUBLIC}/suche/mcp", scopes=["suche:konto"]).access_token


def token_works(db: Database, token: str) -> bool:
    with db.read_only() as session:
        return resolve_access_token(session, token) is not None


@pytest.mark.parametrize("kind", sorted(ACTIONS))
def test_every_action_has_german_help_with_an_example(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["admin", *kind.split(), "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("Aufruf: athaus admin " + kind)
    assert "\nBeispiel:\n  athaus admin " + kind.split()[0] in out
    assert "--json" in out and "--operator NAME" in out


def test_offices_and_people_are_listed_and_shown_as_json(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    with db.read_only() as session:
        offices = list(session.scalars(select(Office.id).order_by(Office.id)))
        people = list(session.scalars(select(User.email).order_by(User.id)))
        members = list(session.scalars(select(User.email).join(OfficeMember, OfficeMember.user_id == User.id).where(OfficeMember.office_id == 1).order_by(User.id)))
    code, listed = run(capsys, "office", "list", "--json")
    assert code == 0 and [o["id"] for o in listed] == offices and all(o["active"] for o in listed)
    code, listed = run(capsys, "person", "list", "--json")
    assert code == 0 and [p["email"] for p in listed] == people
    code, shown = run(capsys, "office", "show", "1", "--json")
    assert code == 0 and [p["email"] for p in shown["people"]] == members
    code, shown = run(capsys, "person", "show", OWNER.email, "--json")
    assert code == 0 and (shown["email"], shown["office_id"], shown["active"], shown["locked_out"]) == (OWNER.email, 1, True, False)
    code, text = run(capsys, "office", "show", "999")
    assert code == 1 and text == ""
    assert audit_rows(db) == []  # reading writes nothing


def test_deactivating_a_person_signs_them_out_and_no_password_or_link_brings_them_back(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    seeker = SEEKERS[0]
    uid = user_id(db, seeker.email)
    token = bearer(db, uid)
    now = dt.datetime.now(dt.UTC)
    with db.unit_of_work() as session:
        web = open_session(session, uid, now)
    code, result = run(capsys, "person", "deactivate", seeker.email, "--operator", "jonas", "--json")
    assert code == 0 and result["active"] is False
    assert check_credentials(db, seeker.email, seeker.password) is None
    assert not token_works(db, token)
    with db.read_only() as session:
        assert session_user(session, web, now) is None
    with db.unit_of_work() as session:
        link = new_token(session, purpose="reset", email=seeker.email, user_id=uid, now=now)
    with db.unit_of_work() as session:
        assert finish_reset(session, link, "scrypt$x", now) is None
    assert audit_rows(db) == [("admin.person.deactivate", "operator:jonas", user_ref(uid))]


def test_deactivating_an_office_deactivates_each_of_its_people(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = run(capsys, "office", "deactivate", "1", "--json")  # the operator from $USER
    assert code == 0 and result["active"] is False
    assert check_credentials(db, OWNER.email, OWNER.password) is None
    other = next(a for a in DEMO_ACCOUNTS if a.office_id not in (None, 1))
    assert check_credentials(db, other.email, other.password) == user_id(db, other.email)
    assert audit_rows(db) == [("admin.office.deactivate", "operator:betrieb", "B-000001")]


def test_deactivating_an_office_voids_its_invitations_not_yet_followed(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    """A new office's owner has not followed the invitation yet: deactivated, the office has no one to lock out, and
    the link must not let anyone in afterwards. Another office's invitation stays."""
    now = dt.datetime.now(dt.UTC)
    with db.unit_of_work() as session:
        office, link = create_office(session, name="Neubüro", city="Leipzig", owner_email="neu@example.org", public_url=PUBLIC, now=now)
        _, other = create_office(session, name="Anderes Büro", city="Halle", owner_email="andere@example.org", public_url=PUBLIC, now=now)
    code, text = run(capsys, "office", "deactivate", str(office))
    assert code == 0 and text.splitlines()[1] == "1 noch nicht angenommene Einladungen ungültig gemacht."
    with db.read_only() as session:
        assert valid(session, link.split("t=")[1], "invitation", now) is None
        assert valid(session, other.split("t=")[1], "invitation", now) is not None


def catalog_revision(db: Database) -> int:
    with db.read_only() as session:
        return session.scalar(select(CatalogState.revision))


def on_the_market(db: Database, office_id: int) -> list[str]:
    with db.read_only() as session:
        return list(session.scalars(select(Listing.ref).where(Listing.office_id == office_id, Listing.status.in_(["published", "reserved"])).order_by(Listing.ref)))


def test_a_deactivated_offices_listings_stay_public_only_when_asked_and_the_answer_says_so(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    with db.read_only() as session:  # the two offices with the most listings on the market
        office, other = session.scalars(select(Listing.office_id).where(Listing.status.in_(["published", "reserved"]))
                                        .group_by(Listing.office_id).order_by(func.count().desc(), Listing.office_id).limit(2))
    public, others = on_the_market(db, office), on_the_market(db, other)
    assert len(public) >= 2 and others
    code, text = run(capsys, "office", "deactivate", str(office))
    assert code == 0 and on_the_market(db, office) == public  # without the option nothing is withdrawn, and the text says so
    assert text.splitlines()[1] == (f"{len(public)} Inserate sind weiter öffentlich, aber niemand im Büro kann Anfragen dazu beantworten; "
                                    f"zurückziehen mit: athaus admin office deactivate {office} --withdraw-listings")
    revision = catalog_revision(db)
    code, result = run(capsys, "office", "deactivate", str(office), "--withdraw-listings", "--json")
    assert code == 0 and (result["listings_withdrawn"], result["listings_on_market"]) == (public, 0)
    assert on_the_market(db, office) == [] and on_the_market(db, other) == others  # only this office's
    with db.read_only() as session:
        history = session.execute(select(Listing.ref, ListingStatusChange.new_status, ListingStatusChange.reason)
                                  .join(Listing, Listing.id == ListingStatusChange.listing_id)
                                  .where(ListingStatusChange.reason == WITHDRAWN_BY_OPERATOR).order_by(Listing.ref)).all()
        assert [tuple(row) for row in history] == [(ref, "withdrawn", WITHDRAWN_BY_OPERATOR) for ref in public]
        found = search_listings(SearchListingsInput(limit=50), make_context(db))
    assert catalog_revision(db) == revision + 1  # one revision for all of them: cursors and cached answers of before end
    assert not {item.listing_id for item in found.items} & set(public)  # seekers no longer find them
    assert audit_rows(db)[-2:] == [("admin.office.deactivate", "operator:betrieb", f"B-{office:06d}")] * 2


def test_revoking_a_person_or_a_client_ends_exactly_their_grants(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = (user_id(db, a.email) for a in SEEKERS[:2])
    one, two, other_client = bearer(db, first, "app-a"), bearer(db, second, "app-a"), bearer(db, second, "app-b")
    code, result = run(capsys, "person", "revoke", SEEKERS[0].email, "--operator", "jonas", "--json")
    assert code == 0 and result["grants_revoked"] == 1
    assert (token_works(db, one), token_works(db, two), token_works(db, other_client)) == (False, True, True)
    code, result = run(capsys, "client", "revoke", "app-b", "--operator", "jonas", "--json")
    assert code == 0 and result == {"client_id": "app-b", "grants_revoked": 1}
    assert (token_works(db, two), token_works(db, other_client)) == (True, False)
    assert [row[:2] for row in audit_rows(db)] == [("admin.person.revoke", "operator:jonas"), ("admin.client.revoke", "operator:jonas")]


def test_a_removed_broker_is_deleted_with_the_same_erasure_as_a_seeker(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    broker = next(a for a in STAFF if a.office_id == 1)
    uid = user_id(db, broker.email)
    code, _ = run(capsys, "person", "delete", broker.email, "--operator", "jonas")
    assert code == 1  # still in the office: the owner removes them first
    now = dt.datetime.now(dt.UTC)
    with db.unit_of_work() as session:
        remove_member(session, office_id=1, by_user_id=user_id(db, OWNER.email), user_id=uid, now=now)
    code, result = run(capsys, "person", "delete", broker.email, "--operator", "jonas", "--json")
    assert code == 0 and result == {"id": uid, "deleted": True}
    with db.read_only() as session:
        user = session.get(User, uid)
        assert (user.email, user.name, user.password_hash) == (f"geloescht-{uid}@konto.invalid", "Gelöschtes Konto", "!")
        assert session.scalar(select(AuditEntry.action).where(AuditEntry.user_id == uid, AuditEntry.action == "account.delete")) == "account.delete"
    assert [row[:2] for row in audit_rows(db)] == [("admin.person.delete", "operator:jonas")]


def test_an_account_locked_by_wrong_passwords_is_unlocked(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    seeker = SEEKERS[1]
    for i in range(throttle.LOGIN_PER_ACCOUNT.attempts):
        assert sign_in(db, seeker.email, "falsch", f"198.51.100.{i}").user_id is None
    assert sign_in(db, seeker.email, seeker.password, "203.0.113.1").retry_after is not None
    code, shown = run(capsys, "person", "show", seeker.email, "--json")
    assert shown["locked_out"] is True
    code, result = run(capsys, "person", "unlock", seeker.email, "--operator", "jonas", "--json")
    assert code == 0 and result["unlocked"] is True
    assert sign_in(db, seeker.email, seeker.password, "203.0.113.1").user_id == user_id(db, seeker.email)
    assert [row[:2] for row in audit_rows(db)] == [("admin.person.unlock", "operator:jonas")]


def test_a_change_without_an_operator_is_refused(db: Database, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("USER")
    code, _ = run(capsys, "person", "unlock", SEEKERS[0].email)
    assert code == 2 and audit_rows(db) == []
    code, _ = run(capsys, "person", "list")
    assert code == 0


def test_a_rotated_secret_keeps_what_the_old_one_signed_for_the_overlap(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    now = dt.datetime.now(dt.UTC)
    with db.unit_of_work() as session:
        before, cursor_before = load_secret(session, "oauth", now), load_secret(session, "cursor", now)
    signed = Signer(before, "web-csrf")
    csrf = signed.mac("nonce")
    session_id = Signer(before, "mcp-session").dumps({"srv": "suche"}, 600)
    old_cursor = CursorCodec(cursor_before.encode(), dt.timedelta(hours=1)).encode(binding="b", snapshot=1, position=[1], now=now)
    for name in ("oauth", "cursor"):
        code, result = run(capsys, "secret", "rotate", name, "--overlap-hours", "1", "--operator", "jonas", "--json")
        assert code == 0 and dt.datetime.fromisoformat(result["previous_accepted_until"]) > now
    with db.unit_of_work() as session:
        after, cursor_after = load_secret(session, "oauth", now), load_secret(session, "cursor", now)
    assert str(after) != str(before) and after.accepted(now) == [str(after), str(before)]
    assert Signer(after, "web-csrf").verify("nonce", csrf) and Signer(after, "web-csrf").mac("nonce") != csrf
    assert Signer(after, "mcp-session").loads(session_id) is not None
    codec = CursorCodec(cursor_after.encode(), dt.timedelta(hours=1), previous=[(v.encode(), r) for v, r in cursor_after.previous])
    assert codec.decode(old_cursor, binding="b", snapshot=1, now=now) == [1]
    # once the overlap is over, the old value signs nothing any more
    later = now + dt.timedelta(hours=2)
    with db.unit_of_work() as session:
        retired = load_secret(session, "oauth", later)
    assert retired.accepted(later) == [str(after)] and not Signer(retired, "web-csrf").verify("nonce", csrf)
    assert [row[:2] for row in audit_rows(db)] == [("admin.secret.rotate", "operator:jonas")] * 2
