"""A known and an unknown address take the same time on every account form (issue 30: "Passwort vergessen" answered
an existing address 1-2 ms slower, medians of 32 without overlap). Checked by structure, not by the clock: the
statements the database runs before the answer is sent are the same, in the same order, for both; what differs (a
link stored, which e-mail is queued) runs after the answer (`after_the_answer` in shared/web/accounts.py), on a
connection that is then closed. Password work is the same for both as well: sign-up hashes every password, a login
with an unknown address verifies against a decoy hash (counted below)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from athaus.app import create_app
from shared.auth import access as access_module
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from shared.web import accounts as account_pages
from tests.conftest import seeded_database

KNOWN = list(DEMO_ACCOUNTS)  # a fresh account per form: throttle counters start alike


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(Path(tmp_path_factory.mktemp("account-timing")), "account_timing", listings=10) as database:
        yield database


class Recorded:
    """Every statement the app's database runs, and how many had run when the answer's last byte was sent."""

    def __init__(self, db: Database) -> None:
        self.statements: list[str] = []
        self.at_answer: int | None = None
        event.listen(db.engine, "before_cursor_execute", self._statement)
        self.db = db

    def _statement(self, conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        self.statements.append(" ".join(statement.split()))

    def wrap(self, app: Any) -> Any:
        async def recording(scope: Any, receive: Any, send: Any) -> None:
            async def watched(message: Any) -> None:
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    self.at_answer = len(self.statements)
                await send(message)

            await app(scope, receive, watched)

        return recording

    def start(self) -> None:
        self.statements.clear()
        self.at_answer = None

    def split(self) -> tuple[list[str], list[str]]:
        assert self.at_answer is not None
        return self.statements[: self.at_answer], self.statements[self.at_answer :]

    def close(self) -> None:
        event.remove(self.db.engine, "before_cursor_execute", self._statement)


@pytest.fixture
def recorded(db: Database) -> Iterator[tuple[Recorded, TestClient]]:
    recorder = Recorded(db)
    settings = Settings(database_url=str(db.engine.url), secret_key="timing", outbox_worker=False)
    with TestClient(recorder.wrap(create_app(settings, db)), base_url=settings.public_url, follow_redirects=False) as http:
        yield recorder, http
    recorder.close()


def csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page
    return unescape(found.group(1))


def post(recorder: Recorded, http: TestClient, path: str, fields: dict[str, str]) -> tuple[Any, list[str], list[str]]:
    http.cookies.clear()
    token = csrf(http.get(path).text)
    recorder.start()
    answer = http.post(path, data={"csrf_token": token, **fields})
    before, after = recorder.split()
    return answer, before, after


def shown(page: str, email: str) -> str:
    """The page without the address typed and the form's CSRF token (each visit has its own)."""
    return re.sub(r'name="csrf_token" value="[^"]+"', 'name="csrf_token" value="…"', page.replace(email, "ADRESSE"))


FORMS = {
    "Passwort vergessen": ("/oauth/passwort-vergessen", {}),
    "Konto anlegen": ("/oauth/konto-anlegen", {"name": "Jemand Neues", "password": "Wohnung mit Balkon 7"}),
    "Anmelden (Web-App)": ("/app/anmelden", {"password": "falsches Passwort 1"}),
}


@pytest.mark.parametrize("form", FORMS)
def test_a_known_and_an_unknown_address_run_the_same_statements_before_the_answer(recorded: tuple[Recorded, TestClient], form: str) -> None:
    recorder, http = recorded
    path, fields = FORMS[form]
    number = list(FORMS).index(form)
    known_answer, known_before, known_after = post(recorder, http, path, {"email": KNOWN[number].email, **fields})
    unknown_email = f"niemand-{number}@example.de"
    unknown_answer, unknown_before, unknown_after = post(recorder, http, path, {"email": unknown_email, **fields})
    assert (known_answer.status_code, shown(known_answer.text, KNOWN[number].email)) == (unknown_answer.status_code, shown(unknown_answer.text, unknown_email))
    assert known_before == unknown_before
    if form == "Passwort vergessen":
        # the difference exists, and it is after the answer: only the known address gets a link and an e-mail
        assert [s.split(" (")[0] for s in known_after if s.startswith("INSERT")] == ["INSERT INTO account_tokens", "INSERT INTO outbox"]
        assert [s for s in unknown_after if s.startswith("INSERT")] == []
        assert known_answer.headers["connection"] == "close"
    if form == "Konto anlegen":
        assert [s.split(" (")[0] for s in known_after if s.startswith("INSERT")] == ["INSERT INTO outbox"]
        assert [s.split(" (")[0] for s in unknown_after if s.startswith("INSERT")] == ["INSERT INTO account_tokens", "INSERT INTO outbox"]


def test_the_password_work_is_the_same_for_both(recorded: tuple[Recorded, TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up hashes the password of a known address too; a login with an unknown address verifies a decoy hash."""
    recorder, http = recorded
    hashed: list[str] = []
    verified: list[str] = []
    real_hash, real_verify = account_pages.hash_password, access_module.verify_password
    monkeypatch.setattr(account_pages, "hash_password", lambda password: hashed.append(password) or real_hash(password))
    monkeypatch.setattr(access_module, "verify_password", lambda password, stored: verified.append(password) or real_verify(password, stored))
    for email in (KNOWN[3].email, "niemand-4@example.de"):
        post(recorder, http, "/oauth/konto-anlegen", {"email": email, "name": "Jemand", "password": "Wohnung mit Balkon 8"})
        post(recorder, http, "/app/anmelden", {"email": email, "password": "falsches Passwort 2"})
    assert (hashed, verified) == (["Wohnung mit Balkon 8"] * 2, ["falsches Passwort 2"] * 2)
