"""Development mode never faces a network, and production speaks https (issue 30).

Development mode (the demo's accounts with published passwords, tokens from `athaus token`) starts only on a loopback
bind, whatever the public URL says; a production start (development mode off) needs an https public URL, except when
both the URL and the bind are loopback. Everything else is refused before anything is migrated, seeded or bound, with
one German sentence naming the fix. The container image (its ENV, read from the Dockerfile) and the `docker run`
examples of the docs start safe; `scripts/serve` of the README still starts the demo on loopback.

`athaus serve` runs as typed with uvicorn.run replaced by a stand-in that keeps the app (as in tests/test_public_url.py),
except for scripts/serve, which runs as a process of its own."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, func, inspect, select
from starlette.testclient import TestClient

from athaus import cli
from shared.db.models import Listing
from shared.settings import Settings, is_loopback
from tests.conftest import _free_port, _fresh_database_url

ROOT = Path(__file__).resolve().parent.parent
OWNER = "inhaberin@athaus-demo.example"
DEVELOPMENT_REFUSED = (
    "Der Entwicklungsmodus (Demo-Konten mit veröffentlichten Passwörtern, Tokens von `athaus token`) lauscht nur auf "
    "Loopback, nicht auf {host}: ATHAUS_HOST=127.0.0.1 setzen (bzw. --host weglassen), oder für den Betrieb "
    "ATHAUS_DEVELOPMENT=false und ATHAUS_PUBLIC_URL=https://… setzen."
)
HTTPS_REFUSED = (
    "Im Betrieb (Entwicklungsmodus aus) braucht die öffentliche Adresse https, nicht {url} (Bindung {host}): "
    "ATHAUS_PUBLIC_URL=https://… setzen, TLS endet im Proxy davor (Doku „Betrieb“, „Hinter nginx“); http geht nur mit "
    "127.0.0.1, localhost oder [::1] auf einer Bindung auf Loopback."
)


def refused(sentence: str) -> str:
    return f"Die Einstellungen (ATHAUS_*) passen nicht zusammen: {sentence}\n"


@pytest.fixture
def start_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[pytest.MonkeyPatch, str]]:
    """No ATHAUS_* of the caller, a fresh database, no demo unless a test asks; the environment is a copy (a start with
    several workers writes its bind into it)."""
    url, drop = _fresh_database_url(tmp_path, "start")
    monkeypatch.setattr(os, "environ", {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")})
    monkeypatch.setenv("ATHAUS_DATABASE_URL", url)
    monkeypatch.setenv("ATHAUS_DEMO_SEED", "false")
    yield monkeypatch, url
    drop()


def start(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, dict[str, Any]]:
    """Runs `athaus serve ARGV` (one worker); its exit code and what it handed to uvicorn (empty: never started)."""
    ran: dict[str, Any] = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **options: ran.update(app=app, **options))
    return cli.main(["serve", *argv, "--workers", "1"]), ran


def tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        return inspect(engine).get_table_names()
    finally:
        engine.dispose()


# --- refused -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "192.168.1.20"])
@pytest.mark.parametrize("public_url", [None, "http://127.0.0.1:9210", "http://localhost:9210"])
@pytest.mark.parametrize("how", ["environment", "--host", "development=true"])
def test_development_mode_on_a_network_bind_is_refused_whatever_the_public_url_says(
    start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str], host: str, public_url: str | None, how: str
) -> None:
    env, url = start_env
    env.setenv("ATHAUS_DEMO_SEED", "true")  # what development mode would do: not even that happens
    if public_url:
        env.setenv("ATHAUS_PUBLIC_URL", public_url)
    if how == "development=true":
        env.setenv("ATHAUS_DEVELOPMENT", "true")
    if how == "--host":
        code, ran = start(env, "--host", host, "--port", "9210")
    else:
        env.setenv("ATHAUS_HOST", host)
        code, ran = start(env, "--port", "9210")
    assert (code, ran) == (2, {})
    assert capsys.readouterr().err == refused(DEVELOPMENT_REFUSED.format(host=host))
    assert tables(url) == []  # refused before the schema, let alone the demo


def test_the_issues_start_is_refused_and_athaus_token_with_it(start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str]) -> None:
    """`ATHAUS_HOST=0.0.0.0 ATHAUS_PUBLIC_URL=http://127.0.0.1:9210 athaus serve` seeded the demo on every address."""
    env, _ = start_env
    env.setenv("ATHAUS_HOST", "0.0.0.0")
    env.setenv("ATHAUS_PUBLIC_URL", "http://127.0.0.1:9210")
    assert start(env) == (2, {})
    assert cli.main(["token", "--user", OWNER, "--server", "makler"]) == 2
    assert capsys.readouterr().err == 2 * refused(DEVELOPMENT_REFUSED.format(host="0.0.0.0"))


@pytest.mark.parametrize(
    ("settings", "argv", "url", "host"),
    [
        ({"ATHAUS_DEVELOPMENT": "false", "ATHAUS_PUBLIC_URL": "http://mcp.example.de"}, [], "http://mcp.example.de", "127.0.0.1"),
        # development mode goes off for a public URL off loopback; that start then needs https just the same
        ({"ATHAUS_PUBLIC_URL": "http://mcp.example.de:8080"}, [], "http://mcp.example.de:8080", "127.0.0.1"),
        ({"ATHAUS_DEVELOPMENT": "false", "ATHAUS_HOST": "0.0.0.0"}, [], "http://127.0.0.1:8000", "0.0.0.0"),
        ({"ATHAUS_DEVELOPMENT": "false", "ATHAUS_PUBLIC_URL": "http://127.0.0.1:8000"}, ["--host", "0.0.0.0"], "http://127.0.0.1:8000", "0.0.0.0"),
        ({"ATHAUS_DEVELOPMENT": "false", "ATHAUS_PUBLIC_URL": "http://10.0.0.5:8000", "ATHAUS_HOST": "10.0.0.5"}, [], "http://10.0.0.5:8000", "10.0.0.5"),
    ],
)
def test_a_production_start_without_https_is_refused_before_its_workers_start(
    start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str], settings: dict[str, str], argv: list[str], url: str, host: str
) -> None:
    """Before: the workers crash-looped on the SDK's English "Issuer URL must be HTTPS"."""
    env, database = start_env
    for name, value in settings.items():
        env.setenv(name, value)
    assert start(env, *argv) == (2, {})
    assert capsys.readouterr().err == refused(HTTPS_REFUSED.format(url=url, host=host))
    assert tables(database) == []


def test_an_http_url_the_authorization_server_would_refuse_is_refused_in_german(
    start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Loopback, but not a name the SDK takes for an http issuer: its workers would die on "Issuer URL must be HTTPS"."""
    env, _ = start_env
    env.setenv("ATHAUS_HOST", "127.0.0.2")
    assert start(env, "--port", "9210") == (2, {})
    sentence = HTTPS_REFUSED.format(url="http://127.0.0.2:8000", host="127.0.0.2").replace("Im Betrieb (Entwicklungsmodus aus)", "Auch im Entwicklungsmodus")
    assert capsys.readouterr().err == refused(sentence)


# --- started -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_development_mode_on_loopback_starts(start_env: tuple[pytest.MonkeyPatch, str], host: str) -> None:
    env, _ = start_env
    env.setenv("ATHAUS_HOST", host)
    code, ran = start(env, "--port", "9210")
    assert (code, ran["host"], ran["port"]) == (0, host, 9210)
    assert Settings().development is True


def test_a_loopback_development_start_seeds_the_demo_and_athaus_token_works(
    start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str]
) -> None:
    env, url = start_env
    env.setenv("ATHAUS_DEMO_SEED", "true")
    env.setenv("ATHAUS_DEMO_LISTINGS", "30")
    code, ran = start(env, "--port", "9211")
    assert code == 0
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Listing)) == 30
    engine.dispose()
    capsys.readouterr()
    assert cli.main(["token", "--user", OWNER, "--server", "makler", "--port", "9211"]) == 0
    token = capsys.readouterr().out.strip()
    with TestClient(ran["app"], base_url="http://127.0.0.1:9211") as client:
        listed = client.post(
            "/makler/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
        )
    assert listed.status_code == 200, listed.text
    assert len(listed.json()["result"]["tools"]) > 0


@pytest.mark.parametrize(
    ("settings", "argv", "host"),
    [
        ({"ATHAUS_DEVELOPMENT": "false", "ATHAUS_PUBLIC_URL": "https://mcp.example.de"}, ["--host", "0.0.0.0"], "0.0.0.0"),
        ({"ATHAUS_PUBLIC_URL": "https://mcp.example.de", "ATHAUS_HOST": "::"}, [], "::"),  # development mode goes off
        ({"ATHAUS_DEVELOPMENT": "false"}, [], "127.0.0.1"),  # http, but only this machine reaches it
    ],
)
def test_production_starts_on_any_bind_with_https_and_on_loopback_with_http(
    start_env: tuple[pytest.MonkeyPatch, str], settings: dict[str, str], argv: list[str], host: str
) -> None:
    env, url = start_env
    for name, value in settings.items():
        env.setenv(name, value)
    code, ran = start(env, *argv)
    assert (code, ran["host"]) == (0, host)
    assert Settings().development is False
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Listing)) == 0  # never the demo
    engine.dispose()


# --- the container image and the docs' examples ---------------------------------------------------------------


def image_environment() -> dict[str, str]:
    """The ATHAUS_* of the image's final stage, as the Dockerfile's ENV sets them."""
    final = (ROOT / "Dockerfile").read_text(encoding="utf-8").split("\nFROM ")[-1]
    instructions = re.findall(r"^ENV ((?:.*\\\n)*.*)$", final, flags=re.M)
    pairs = [item.split("=", 1) for text in instructions for item in shlex.split(text.replace("\\\n", " "))]
    return {name: value for name, value in pairs if name.startswith("ATHAUS_")}


def documented_docker_runs() -> list[tuple[str, dict[str, str]]]:
    """Every `docker run` of the README and docs/betrieb.md with the environment it sets (-e)."""
    runs = []
    for page in ("README.md", "docs/betrieb.md"):
        for line in re.findall(r"^docker run (.+)$", (ROOT / page).read_text(encoding="utf-8"), flags=re.M):
            words = shlex.split(line)
            runs.append((f"{page}: docker run {line}", dict(words[n + 1].split("=", 1) for n, word in enumerate(words) if word == "-e")))
    return runs


def test_the_image_runs_in_production_mode_on_every_address() -> None:
    # ATHAUS_COMMIT: the build argument, for the version (shared/identity.py)
    assert image_environment() == {"ATHAUS_HOST": "0.0.0.0", "ATHAUS_PORT": "8000", "ATHAUS_DEVELOPMENT": "false", "ATHAUS_COMMIT": "${ATHAUS_COMMIT}"}


@pytest.mark.parametrize(
    ("extra", "sentence"),
    [
        ({}, HTTPS_REFUSED.format(url="http://127.0.0.1:8000", host="0.0.0.0")),
        ({"ATHAUS_PUBLIC_URL": "http://127.0.0.1:8000"}, HTTPS_REFUSED.format(url="http://127.0.0.1:8000", host="0.0.0.0")),
        ({"ATHAUS_DEVELOPMENT": "true"}, DEVELOPMENT_REFUSED.format(host="0.0.0.0")),
        ({"ATHAUS_DEVELOPMENT": "true", "ATHAUS_PUBLIC_URL": "http://127.0.0.1:8000"}, DEVELOPMENT_REFUSED.format(host="0.0.0.0")),
    ],
)
def test_the_image_refuses_to_start_without_https_or_in_development_mode(
    start_env: tuple[pytest.MonkeyPatch, str], capsys: pytest.CaptureFixture[str], extra: dict[str, str], sentence: str
) -> None:
    env, _ = start_env
    for name, value in {**image_environment(), **extra}.items():
        env.setenv(name, value)
    assert start(env) == (2, {})
    assert capsys.readouterr().err == refused(sentence)


def test_every_documented_docker_run_starts_and_starts_safe(start_env: tuple[pytest.MonkeyPatch, str]) -> None:
    runs = documented_docker_runs()
    assert len(runs) >= 2, runs  # the production example and the demo on the host's loopback
    modes = set()
    for example, variables in runs:
        with pytest.MonkeyPatch.context() as env:
            for name, value in {**image_environment(), **variables}.items():
                env.setenv(name, value)
            code, ran = start(env)
            assert code == 0, example
            settings = Settings()
            safe = is_loopback(settings.host) if settings.development else settings.public_url.startswith("https://")
            assert safe and ran["host"] == settings.host, example
            modes.add(settings.development)
    assert modes == {True, False}


# --- scripts/serve, as the README starts it -------------------------------------------------------------------


@pytest.fixture
def script_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    url, drop = _fresh_database_url(tmp_path, "script")
    env = {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")}
    env.update({
        "ATHAUS_DATABASE_URL": url, "ATHAUS_DEMO_LISTINGS": "40", "VIRTUAL_ENV": sys.prefix,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    })
    yield env
    drop()


def test_scripts_serve_starts_the_demo_on_loopback_and_refuses_a_network_bind(script_env: dict[str, str], tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    denied = subprocess.run([str(ROOT / "scripts" / "serve"), "--host", "0.0.0.0", "--port", str(port)], env=script_env,
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (denied.returncode, denied.stderr) == (2, refused(DEVELOPMENT_REFUSED.format(host="0.0.0.0")))
    process = subprocess.Popen([str(ROOT / "scripts" / "serve"), "--port", str(port), "--workers", "1"], env=script_env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=(tmp_path / "serve.log").open("wb"))
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx2.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-2000:]
            time.sleep(0.3)
        minted = subprocess.run([sys.executable, "-m", "athaus.cli", "token", "--user", OWNER, "--server", "makler", "--port", str(port)],
                                env=script_env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert minted.returncode == 0, minted.stderr
        listed = httpx2.post(
            f"{base}/makler/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=30,
            headers={"Authorization": f"Bearer {minted.stdout.strip()}", "Accept": "application/json, text/event-stream"},
        )
        assert listed.status_code == 200 and len(listed.json()["result"]["tools"]) > 0
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
