"""The public URL follows the bind when it is not set; what does not fit is said at start; development mode is for
loopback only. `athaus serve` runs as typed, with only uvicorn.run replaced by a stand-in that keeps the app."""

from __future__ import annotations

import os

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from athaus import cli
from athaus.nodelay import NoDelayHTTPProtocol
from shared.settings import Settings, bind_url
from tests.conftest import _fresh_database_url
from tests.test_oauth import CHATGPT_REDIRECT, pkce


@pytest.fixture
def database_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    url, drop = _fresh_database_url(tmp_path, "bind")
    for name in ("ATHAUS_PUBLIC_URL", "ATHAUS_DEVELOPMENT", "ATHAUS_HOST", "ATHAUS_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ATHAUS_DATABASE_URL", url)
    monkeypatch.setenv("ATHAUS_DEMO_SEED", "false")
    yield monkeypatch
    drop()


def serve(monkeypatch: pytest.MonkeyPatch, *argv: str) -> dict[str, Any]:
    """Runs `athaus serve ARGV`; returns what it handed to uvicorn."""
    ran: dict[str, Any] = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **options: ran.update(app=app, **options))
    monkeypatch.setattr("athaus.cli.run_supervised", lambda app, **options: ran.update(app=app, **options))  # several workers
    # A multi-worker start writes the bind into the environment for its workers: give it a copy, so nothing of it
    # outlives the test (monkeypatch.delenv of an absent variable records nothing to undo).
    monkeypatch.setattr(os, "environ", dict(os.environ))
    if "--workers" not in argv:
        argv = (*argv, "--workers", "1")  # one process: uvicorn gets the app itself
    assert cli.main(["serve", *argv]) == 0
    return ran


def test_workers_get_the_bind_so_the_public_url_follows_it_there_too(database_env: pytest.MonkeyPatch) -> None:
    ran = serve(database_env, "--port", "8741", "--workers", "2")
    assert (ran["app"], ran["factory"], ran["workers"], ran["port"]) == ("athaus.app:app_from_environment", True, 2, 8741)
    assert (os.environ["ATHAUS_HOST"], os.environ["ATHAUS_PORT"]) == ("127.0.0.1", "8741")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_every_connection_gets_tcp_nodelay_with_any_number_of_workers(database_env: pytest.MonkeyPatch, workers: str) -> None:
    """uvicorn gets the HTTP protocol that switches Nagle off per connection (tests/test_nodelay.py), bounds the time to
    read a request and starts every request in a context of its own (tests/test_connections.py)."""
    ran = serve(database_env, "--workers", workers)
    assert issubclass(ran["http"].func, NoDelayHTTPProtocol)
    assert ran["http"].keywords == {"read_seconds": 15.0}
    assert ran["reset_contextvars"] is True


def test_the_public_url_follows_the_port(database_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ran = serve(database_env, "--port", "8741")
    assert (ran["host"], ran["port"]) == ("127.0.0.1", 8741)
    base = "http://127.0.0.1:8741"
    with TestClient(ran["app"], base_url=base) as client:
        refused = client.post("/makler/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401
        assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/makler/mcp"' in refused.headers["www-authenticate"]
        metadata = client.get("/.well-known/oauth-protected-resource/suche/mcp").json()
        assert metadata["resource"] == f"{base}/suche/mcp"
        assert metadata["authorization_servers"] == [base]
        assert client.get("/.well-known/oauth-authorization-server").json()["issuer"] == base
        registered = client.post("/register", json={"client_name": "ChatGPT", "redirect_uris": [CHATGPT_REDIRECT]}).json()
        query = {
            "response_type": "code",
            "client_id": registered["client_id"],
            "redirect_uri": CHATGPT_REDIRECT,
            "code_challenge": pkce()[1],
            "code_challenge_method": "S256",
            "resource": f"{base}/makler/mcp",
        }
        authorized = client.get(f"/authorize?{urlencode(query)}", follow_redirects=False)
        assert authorized.status_code == 303 and authorized.headers["location"].startswith("/oauth/zustimmung?")
    assert "Warnung" not in capsys.readouterr().err


def test_a_public_url_that_does_not_fit_the_bind_is_said_at_start(
    database_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database_env.setenv("ATHAUS_PUBLIC_URL", "http://127.0.0.1:8000")
    serve(database_env, "--port", "8741")
    said = capsys.readouterr().err
    assert '"level": "warning"' in said and "ATHAUS_PUBLIC_URL passt nicht zur Bindung" in said and "8741" in said


def test_a_public_url_behind_a_proxy_is_not_warned_about(database_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    database_env.setenv("ATHAUS_PUBLIC_URL", "https://mcp.athaus.example")
    serve(database_env, "--port", "8741")
    err = capsys.readouterr().err
    assert "Warnung" not in err
    # ...but development mode goes off there, and the start says so.
    assert "Entwicklungsmodus ist aus" in err


def test_development_mode_is_never_on_off_loopback(database_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert Settings(public_url="https://mcp.athaus.example").development is False
    assert Settings(public_url="http://localhost:9000").development is True
    assert bind_url("0.0.0.0", 9000) == "http://127.0.0.1:9000"  # a bind off loopback is refused (tests/test_safe_start.py)
    database_env.setenv("ATHAUS_PUBLIC_URL", "https://mcp.athaus.example")
    database_env.setenv("ATHAUS_DEVELOPMENT", "true")
    assert cli.main(["serve"]) == 2
    assert "ATHAUS_DEVELOPMENT=true geht nur mit einer öffentlichen Adresse auf Loopback" in capsys.readouterr().err


def test_settings_follow_the_bind_but_keep_a_set_url() -> None:
    follows = Settings(port=9100)
    assert follows.public_url == "http://127.0.0.1:9100" and follows.public_url_follows_bind
    assert follows.serving("::1", 9200).public_url == "http://[::1]:9200"
    kept = Settings(public_url="http://127.0.0.1:9100").serving(None, 9100)
    assert kept.public_url == "http://127.0.0.1:9100" and kept.bind_mismatch() is None
    assert Settings(public_url="https://127.0.0.1:9100", development=False).serving("10.0.0.5", 9100).bind_mismatch() is not None
    with pytest.raises(ValueError, match="^Der Entwicklungsmodus .* lauscht nur auf Loopback, nicht auf 10.0.0.5: "):
        Settings(public_url="http://127.0.0.1:9100").serving("10.0.0.5", 9100)
