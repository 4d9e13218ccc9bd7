"""The first start as a person sees it (issue 23): `athaus serve` on a pseudo-terminal in development mode shows short
German lines and one start block once it listens, no warnings and no JSON; in production the same start is JSON lines.
`athaus token --port` mints for the server one runs and says for which; the command line speaks German.

`athaus serve` runs as typed, as a process of its own, on a fresh SQLite file (a small demo catalog)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from athaus import cli
from tests.conftest import _free_port

ATHAUS = [sys.executable, "-m", "athaus.cli"]
SEEKER = "suchende@athaus-demo.example"
LINE = re.compile(r"^\d\d:\d\d:\d\d (INFO|WARNUNG|FEHLER) {1,4}\S")


def _environment(tmp_path: Path, **changes: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")}
    return {**env, "ATHAUS_DATABASE_URL": f"sqlite:///{tmp_path / 'athaus.sqlite3'}", "ATHAUS_DEMO_LISTINGS": "120", **changes}


class Terminal:
    """`athaus serve` with a pseudo-terminal as its stdout and stderr."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the terminal is its stdin, stdout and stderr
            os.execve(sys.executable, [sys.executable, *argv], env)
        self.output = b""

    def read_until(self, marker: bytes, seconds: float) -> bool:
        until = time.monotonic() + seconds
        while marker not in self.output and time.monotonic() < until:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    return False
        return marker in self.output

    def stop(self) -> int:
        os.kill(self.pid, signal.SIGTERM)
        until = time.monotonic() + 30
        while time.monotonic() < until:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.read_until(b"\0", 0.5)
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self.read_until(b"\0", 0.2)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("athaus serve did not end on SIGTERM")

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace").replace("\r\n", "\n")


def test_the_development_console_is_short_german_lines_and_one_start_block(tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    terminal = Terminal(["-m", "athaus.cli", "serve", "--port", str(port)], _environment(tmp_path))
    try:
        assert terminal.read_until(b"Nur auf diesem Rechner", 120), terminal.text
        # listening when it says so, and a request on the way (it logged "Terminating session: None" at INFO before)
        mcp = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        listed = httpx.post(f"{base}/suche/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=mcp, timeout=10)
        assert listed.status_code == 200
        token = subprocess.run(
            [*ATHAUS, "token", "--user", SEEKER, "--server", "suche", "--port", str(port)],
            env=_environment(tmp_path), capture_output=True, text=True, check=True, timeout=60,
        )
        assert token.stderr.splitlines()[-1].startswith(f"Token für {base}/suche/mcp (Konto {SEEKER}; Rechte: ")
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_search_orders", "arguments": {}}}
        mine = httpx.post(f"{base}/suche/mcp", json=call, headers={**mcp, "Authorization": f"Bearer {token.stdout.strip()}"}, timeout=10)
        assert mine.status_code == 200 and mine.json()["result"]["isError"] is False, mine.text
        terminal.read_until(b"\0", 1.0)
    finally:
        code = terminal.stop()
    text = terminal.text
    assert code in (0, -signal.SIGTERM), text  # uvicorn ends by raising the signal again once it shut down cleanly
    lines = text.splitlines()
    block_at = next(i for i, line in enumerate(lines) if "Athaus läuft auf" in line)
    assert lines[block_at].endswith(f"INFO    Athaus läuft auf {base} (1 Prozess):")
    assert [line.split(None, 2) for line in lines[block_at + 1 : block_at + 6]] == [
        ["Athaus", "für", f"Makler:       {base}/makler/mcp"],
        ["Athaus", "Immobiliensuche:", f"{base}/suche/mcp"],
        ["Doku:", f"{base}/docs/"],
        ["Web-App:", f"{base}/app/"],
        ["Zustand:", f"{base}/healthz"],
    ]
    assert lines[block_at + 6].split(None, 1) == ["Datenbank:", f"SQLite {tmp_path / 'athaus.sqlite3'}, 120 Inserate"]
    assert lines[block_at + 7].split(None, 1) == ["Demodaten:", "angelegt; Demo-Anmeldungen: README.md, Abschnitt „Demo logins“"]
    assert lines[block_at + 8].startswith("  Achtung, Entwicklungsmodus: `athaus token` stellt Tokens ohne Anmeldung aus")
    block = set(range(block_at + 1, block_at + 10))
    for number, line in enumerate(lines):
        if number not in block and line.strip():
            assert LINE.match(line), (line, text)
    assert sum("Datenbank migriert: " in line for line in lines) == 1
    assert sum("Demodaten angelegt: 120 Inserate, " in line for line in lines) == 1
    assert "{" not in text.replace("{makler,suche}", "")  # no JSON
    for noise in ("Warning", "SAWarning", "Terminating session", "Uvicorn running", "HTTP Request", "Traceback", "WARNUNG"):
        assert noise not in text, (noise, text)


def test_production_logs_json_lines_and_says_serving_only_once_it_listens(tmp_path: Path) -> None:
    port = _free_port()
    env = _environment(tmp_path, ATHAUS_DEVELOPMENT="false")
    terminal = Terminal(["-m", "athaus.cli", "serve", "--port", str(port)], env)
    try:
        assert terminal.read_until(b'"event": "serving"', 120), terminal.text
        with socket.create_connection(("127.0.0.1", port), timeout=2):  # it listens when it says so
            pass
    finally:
        code = terminal.stop()
    assert code in (0, -signal.SIGTERM), terminal.text
    entries = [json.loads(line) for line in terminal.text.splitlines() if line.strip()]
    events = [entry.get("event") for entry in entries]
    assert "migrated" in events and "serving" in events and "no_office" in events
    serving = entries[events.index("serving")]
    assert serving["mcp"] == [f"http://127.0.0.1:{port}/makler/mcp", f"http://127.0.0.1:{port}/suche/mcp"]
    assert (serving["development"], serving["demo_seeded"], serving["database"]) == (False, False, f"SQLite {tmp_path / 'athaus.sqlite3'}")
    assert "Demodaten:               keine" in serving["text"]
    assert not any("Terminating session" in json.dumps(entry) for entry in entries)


@pytest.mark.parametrize("command", ["serve", "db", "demo", "docs", "outbox", "office", "import", "token"])
def test_every_subcommand_has_german_help_with_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main([command, "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"Aufruf: athaus {command} ")
    assert "\nOptionen:\n  -h, --help " in shown and "diese Hilfe zeigen und beenden" in shown
    example = shown.split("\nBeispiel:\n", 1)[1]
    assert example.lstrip().startswith(f"athaus {command}")
    for english in ("usage:", "options:", "show this help", "positional arguments"):
        assert english not in shown


def test_command_line_errors_are_german(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in [
        (["serve", "--port", "abc"], "athaus serve: Fehler: Argument --port: ungültiger Wert (ganze Zahl): 'abc'"),
        (["token", "--server", "suche"], "athaus token: Fehler: diese Argumente fehlen: --user"),
        (["nichts"], "athaus: Fehler: Argument BEFEHL: ungültige Wahl: 'nichts' (möglich: 'serve', "),
    ]:
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 2
        assert said in capsys.readouterr().err
