"""The Python examples on the docs page "Python-Client" (docs/verbinden/python.md) run as printed against a real
server: without login, with OAuth (a robot in place of the person at the browser: it signs in as a demo login
and allows), and with a token from `athaus token`. Only the address is changed, to the test server's."""

from __future__ import annotations

import os
import re
import sys
import threading
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS, seed_demo
from tests.conftest import _free_port, _fresh_database_url
from tests.test_oauth import Browser, OAuthServer

PAGE = Path(__file__).resolve().parents[1] / "docs" / "verbinden" / "python.md"
DOCUMENTED_SERVER = "http://127.0.0.1:8000"
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")


def snippets() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServer]:
    """A small demo catalog of its own (sign-in writes clients and tokens), served with its real address as public URL."""
    url, drop = _fresh_database_url(tmp_path_factory.mktemp("snippets"), "snippets")
    db = Database.from_url(url)
    upgrade(db.engine)
    seed_demo(db.engine, listings=300)
    with OAuthServer(db) as live:
        yield live
    db.engine.dispose()
    drop()


def run(snippet: str, server: OAuthServer, **replace: str) -> None:
    code = snippet.replace(DOCUMENTED_SERVER, server.base_url)
    for old, new in replace.items():
        code = code.replace(old, new)
    exec(compile(code, str(PAGE), "exec"), {"__name__": "__main__"})


def test_the_page_has_the_three_examples() -> None:
    assert len(snippets()) == 3


def test_the_example_without_login(server: OAuthServer, capsys: pytest.CaptureFixture[str]) -> None:
    run(snippets()[0], server)
    printed = capsys.readouterr().out
    assert "'calculate_purchase_costs'" in printed and "Grunderwerbsteuer" in printed


def test_the_example_with_oauth(server: OAuthServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    robot = Browser(OWNER.email, password=OWNER.password)

    def open_in_browser(url: str, *args: Any, **kwargs: Any) -> bool:
        """The person at the browser: signs in, allows, and the browser follows the redirect back to the script."""

        def act() -> None:
            answer = robot.authorize(url)
            httpx2.get(answer["redirect_uri"], params={k: v for k, v in answer.items() if k != "redirect_uri"})

        threading.Thread(target=act, daemon=True).start()
        return True

    monkeypatch.setattr(webbrowser, "open", open_in_browser)
    run(snippets()[1], server, **{"127.0.0.1:8765": f"127.0.0.1:{_free_port()}"})
    assert "Hoffmann Immobilien" in capsys.readouterr().out  # the demo owner's office, from its situation report
    assert robot.authorization_urls, "the example did not send the person to the sign-in page"


def test_the_example_with_a_token(server: OAuthServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATHAUS_DATABASE_URL", server.settings.database_url)
    monkeypatch.setenv("ATHAUS_PUBLIC_URL", server.base_url)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # where `athaus` is
    run(snippets()[2], server)
    assert "Anfragen insgesamt" in capsys.readouterr().out
