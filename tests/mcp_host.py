"""The official MCP libraries in Chromium for the browser tests: tests/fixtures/mcp_host holds a host page built on the
MCP Apps host library (@modelcontextprotocol/ext-apps, AppBridge) and the TypeScript SDK client
(@modelcontextprotocol/client), installed from its package-lock.json by scripts/_venv (`npm ci`) and bundled here with
esbuild once per test run. Playwright serves the page on an allowed origin and the sandbox proxy on another one (the
extension requires a web host's sandbox on a different origin), with the CSP built from the resource's `_meta.ui.csp`
as the extension says; the page talks to the live server over real HTTP (CORS included).

Without node_modules (npm missing) the tests are skipped with the reason, except in CI, where they fail.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.test_docs_browser import Visit

FIXTURE = Path(__file__).parent / "fixtures" / "mcp_host"
SANDBOX_CSPS: list[str] = []  # the CSP each sandbox was served with, in order


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def host_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The host page and its bundle served on the loopback interface: its origin (http://localhost:port, allowed by
    the default ATHAUS_ALLOWED_ORIGINS)."""
    folder = built(tmp_path_factory)
    with static_site(folder, "127.0.0.1") as port:
        yield f"http://localhost:{port}"


@pytest.fixture(scope="session")
def sandbox_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sandbox proxy's page on an origin of its own (127.0.0.1, the page is on localhost)."""
    folder = built(tmp_path_factory)
    with static_site(folder, "127.0.0.1") as port:
        yield f"http://127.0.0.1:{port}/sandbox.html"


@pytest.fixture(scope="session")
def foreign_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same page on a loopback origin that is not allowed (127.0.0.2)."""
    folder = built(tmp_path_factory)
    with static_site(folder, "127.0.0.2") as port:
        yield f"http://127.0.0.2:{port}"


@contextmanager
def static_site(folder: Path, address: str) -> Iterator[int]:
    handler = functools.partial(Quiet, directory=str(folder))
    server = ThreadingHTTPServer((address, 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Quiet(SimpleHTTPRequestHandler):
    """Static files; the sandbox page with the CSP its `csp` query (the resource's `_meta.ui.csp`) asks for."""

    def end_headers(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/sandbox.html":
            csp = sandbox_csp(json.loads(parse_qs(url.query).get("csp", ["{}"])[0]))
            SANDBOX_CSPS.append(csp)
            self.send_header("Content-Security-Policy", csp)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """host.html and host.js with its libraries bundled into one script, in a folder of their own (once per run)."""
    folder = tmp_path_factory.getbasetemp() / "mcp-host-site"
    if (folder / "host.bundle.js").exists():
        return folder
    esbuild = FIXTURE / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        unavailable(f"{FIXTURE / 'node_modules'} fehlt: scripts/test installiert es mit `npm ci`, wenn npm da ist")
    folder.mkdir(exist_ok=True)
    subprocess.run(
        [str(esbuild), "host.js", "--bundle", "--format=iife", "--platform=browser", "--log-level=warning", f"--outfile={folder / 'host.bundle.js'}"],
        cwd=FIXTURE,
        check=True,
        timeout=120,
    )
    for page in ("host.html", "sandbox.html"):
        (folder / page).write_text((FIXTURE / page).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def sandbox_csp(csp: dict[str, list[str]]) -> str:
    """The CSP of the sandbox (and so of the view) from `_meta.ui.csp`, as the extension's spec builds it."""

    def listed(key: str) -> str:
        return " ".join(csp.get(key) or [])

    resources, connect = listed("resourceDomains"), listed("connectDomains")
    return "; ".join(
        part.strip()
        for part in (
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline' {resources}",
            f"style-src 'self' 'unsafe-inline' {resources}",
            f"connect-src 'self' {connect}",
            f"img-src 'self' data: {resources}",
            f"font-src 'self' {resources}",
            f"media-src 'self' data: {resources}",
            f"frame-src {listed('frameDomains') or chr(39) + 'none' + chr(39)}",
            "object-src 'none'",
            f"base-uri {listed('baseUriDomains') or chr(39) + 'self' + chr(39)}",
        )
    )


class HostPage(Visit):
    """A tab with the host page from `origin`."""

    def __init__(self, browser: Any, origin: str, scheme: str = "light") -> None:
        super().__init__(browser)
        self.sent_headers: list[dict[str, str]] = []  # headers of the page's requests to the MCP endpoints
        self.page.emulate_media(color_scheme=scheme)
        self.page.on("request", lambda request: "/mcp" in request.url and request.method == "POST" and self.sent_headers.append(request.headers))
        assert self.open(f"{origin}/host.html") == 200
        self.page.get_by_text("Test-Host bereit").wait_for()

    def js(self, expression: str, argument: Any = None) -> Any:
        return self.page.evaluate(expression, argument)
