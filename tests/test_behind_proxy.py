"""Production as it runs: Debian's nginx ends TLS (a CA made here) in front of two `athaus serve` processes on one
PostgreSQL, ATHAUS_PUBLIC_URL=https://athaus.test:<port>, development mode off.

Through the proxy the official MCP client signs in (discovery from the 401, dynamic registration, PKCE, the login
form with its CSRF token, consent, code, token), calls tools on both servers, and every URL Athaus names (metadata,
redirects, resources) says https; the cookies are Secure. The nginx configuration is deploy/nginx/athaus.conf.template,
the same file compose.yaml uses and README.md and docs/betrieb.md show (a test below compares them). The instances
trust forwarded headers only from the proxy's address, as compose.yaml sets it: a client that forges X-Forwarded-For,
through nginx or straight at an instance, is still counted under its own address and gets 429 after the limit.

Needs nginx (scripts/test installs Debian's package as root, like Chromium) and PostgreSQL (ATHAUS_TEST_DATABASE_URL);
skipped with the reason otherwise (without nginx: failed in CI)."""

from __future__ import annotations

import datetime as dt
import html
import ipaddress
import json
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlalchemy import select

from shared.accounts.links import RESET_PATH, link, new_token
from shared.auth.models import ThrottleCounter
from shared.auth.throttle import LOGIN_PER_ADDRESS
from shared.db.session import Database

from tests.conftest import _free_port, _fresh_database_url
from tests.test_oauth import CHATGPT_REDIRECT, Browser, MemoryStorage, connected, oauth_client
from tests.test_telemetry import samples_of

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx" / "athaus.conf.template"
NAME = "athaus.test"
ATHAUS = str(Path(sys.executable).parent / "athaus")  # the installed command, as an operator runs it
METRICS_TOKEN = "betrieb-4711"
DRAIN_SECONDS = 2  # after SIGTERM (athaus/draining.py); the default 5 s only makes the restart test slower
# ATHAUS_TEST_PROXY_UNDRAINED=1: the instances run as before athaus/draining.py (no drain, uvicorn's own supervisor),
# to see the restart test fail without it (a sitecustomize the workers import too: they are spawned, not forked).
UNDRAINED = os.environ.get("ATHAUS_TEST_PROXY_UNDRAINED") == "1"
WITHOUT_DRAIN = """
import athaus.draining
from uvicorn.supervisors.multiprocess import Multiprocess
athaus.draining.Drain.install = lambda self: False
athaus.draining.Supervisor.terminate_all = Multiprocess.terminate_all
"""
PROXY_ADDRESS = "127.0.0.1"  # where nginx reaches the instances from: the one address they trust (compose.yaml: its own)
BROKER, BROKER_PASSWORD = "inhaberin@athaus-demo.example", "makler-demo"
# What README.md and docs/betrieb.md show: the template with these values.
DOCUMENTED = {
    "ATHAUS_UPSTREAM_1": "127.0.0.1:8001",
    "ATHAUS_UPSTREAM_2": "127.0.0.1:8002",
    "ATHAUS_TLS_PORT": "443",
    "ATHAUS_SERVER_NAME": "mcp.example.de",
    "ATHAUS_TLS_CERTIFICATE": "/etc/letsencrypt/live/mcp.example.de/fullchain.pem",
    "ATHAUS_TLS_KEY": "/etc/letsencrypt/live/mcp.example.de/privkey.pem",
    "ATHAUS_ACCESS_LOG": "/var/log/nginx/access.log",
}


def rendered(values: dict[str, str]) -> str:
    """The template with the ATHAUS_ values filled in, nginx's own $variables left as they are."""
    return Template(TEMPLATE.read_text(encoding="utf-8")).safe_substitute(values)


@pytest.mark.parametrize("page", ["README.md", "docs/betrieb.md"])
def test_the_docs_show_the_configuration_the_test_uses(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx\n(.*?)```", text, flags=re.S)
    assert rendered(DOCUMENTED) in blocks, f"{page}: the nginx block differs from deploy/nginx/athaus.conf.template"


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


# --- a CA of our own, a certificate for athaus.test ------------------------------------------------------------


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate, server key) as PEM files."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Athaus Test-CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


# --- the deployment: two instances, nginx in front ------------------------------------------------------------


class Deployment:
    def __init__(self, folder: Path, database_url: str) -> None:
        self.folder = folder
        self.database_url = database_url
        self.port = _free_port()
        self.base_url = f"https://{NAME}:{self.port}"
        self.ports = [_free_port(), _free_port()]
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs = [folder / f"athaus-{n}.log" for n in (1, 2)]
        self.site_log = folder / "athaus-access.log"  # the template's access log (its own format)
        self.env = {
            **os.environ, "ATHAUS_DATABASE_URL": database_url, "ATHAUS_PUBLIC_URL": self.base_url,
            "ATHAUS_DEVELOPMENT": "false", "ATHAUS_OUTBOX_WORKER": "false", "ATHAUS_LOG_LEVEL": "INFO",
            "ATHAUS_METRICS_TOKEN": METRICS_TOKEN, "FORWARDED_ALLOW_IPS": PROXY_ADDRESS, "ATHAUS_DRAIN_SECONDS": str(DRAIN_SECONDS),
        }
        self.env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        if UNDRAINED:
            (folder / "undrained").mkdir()
            (folder / "undrained" / "sitecustomize.py").write_text(WITHOUT_DRAIN, encoding="utf-8")
            self.env["PYTHONPATH"] = str(folder / "undrained")

    def athaus(self, *args: str) -> None:
        subprocess.run([ATHAUS, *args], env=self.env, check=True, timeout=300, capture_output=True)

    def start(self, nginx: str, ca: tuple[Path, Path, Path]) -> None:
        self.athaus("demo", "seed", "--listings", "40")  # migrates first, as `athaus db upgrade` would
        # the first instance with two worker processes: its /metrics must sum both
        for index in range(2):
            self.processes.append(self.launch(index))
        site = rendered({
            "ATHAUS_UPSTREAM_1": f"127.0.0.1:{self.ports[0]}", "ATHAUS_UPSTREAM_2": f"127.0.0.1:{self.ports[1]}",
            "ATHAUS_TLS_PORT": f"127.0.0.1:{self.port}", "ATHAUS_SERVER_NAME": NAME,
            "ATHAUS_TLS_CERTIFICATE": str(ca[1]), "ATHAUS_TLS_KEY": str(ca[2]),
            "ATHAUS_ACCESS_LOG": str(self.site_log),
        })
        (self.folder / "site.conf").write_text(site, encoding="utf-8")
        temp = self.folder / "nginx-temp"
        temp.mkdir()
        main = f"""
{'user root;' if os.geteuid() == 0 else ''}
daemon off;
worker_processes 1;
pid {self.folder}/nginx.pid;
error_log {self.folder}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {self.folder}/nginx-access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {self.folder}/site.conf;
}}
"""
        (self.folder / "nginx.conf").write_text(main, encoding="utf-8")
        check = subprocess.run([nginx, "-t", "-c", str(self.folder / "nginx.conf")], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr
        self.processes.append(subprocess.Popen([nginx, "-c", str(self.folder / "nginx.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 120
        for port in self.ports:
            while not self._answers(f"http://127.0.0.1:{port}/healthz"):
                assert time.monotonic() < deadline, "athaus serve did not come up: " + "".join(log.read_text() for log in self.logs)[-2000:]
                time.sleep(0.2)
        while not self._answers(f"https://127.0.0.1:{self.port}/healthz", host=f"{NAME}:{self.port}"):
            assert time.monotonic() < deadline, "nginx did not come up: " + (self.folder / "nginx-error.log").read_text()
            time.sleep(0.2)

    def launch(self, index: int) -> subprocess.Popen[bytes]:
        """Instance `index` (0: two worker processes, 1: one), its log appended to."""
        return subprocess.Popen(
            [ATHAUS, "serve", "--host", "127.0.0.1", "--port", str(self.ports[index]), "--workers", ("2", "1")[index]],
            env=self.env, stdout=subprocess.DEVNULL, stderr=self.logs[index].open("ab"),
        )

    @staticmethod
    def _answers(url: str, host: str | None = None) -> bool:
        try:
            return httpx2.get(url, timeout=2, headers={"Host": host} if host else None, verify=False).status_code == 200
        except httpx2.HTTPError:
            return False

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    if not os.environ.get("ATHAUS_TEST_DATABASE_URL"):
        pytest.skip("zwei Instanzen brauchen PostgreSQL: ATHAUS_TEST_DATABASE_URL setzen (SQLite hat nur einen Schreiber)")
    nginx = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if nginx is None:
        unavailable("nginx fehlt (als root installiert scripts/test Debians Paket selbst; sonst: apt-get install nginx)")
    folder = tmp_path_factory.mktemp("proxy")
    folder.chmod(0o755)
    ca = make_ca(folder)
    url, drop = _fresh_database_url(folder, "proxy")
    deployment = Deployment(folder, url)
    try:
        deployment.start(str(nginx), ca)
        yield deployment
    finally:
        deployment.stop()
        drop()


@pytest.fixture
def client_side(deployment: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a client on the internet: athaus.test resolves to the proxy, our CA is the one trusted."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host in (NAME, NAME.encode()) else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("SSL_CERT_FILE", str(deployment.folder / "ca.pem"))


class RecordingBrowser(Browser):
    """The browser stand-in of tests/test_oauth.py, keeping every response it saw (Location, Set-Cookie)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.responses: list[httpx2.Response] = []
        self.http.event_hooks["response"].append(self.responses.append)


def athaus_urls(value: Any, base: str) -> list[str]:
    """Every URL naming this deployment's host inside a JSON value."""
    host = urlsplit(base).hostname
    return re.findall(rf"[a-z][a-z0-9+.-]*://{re.escape(host or '')}[^\s\"'<>]*", json.dumps(value))


@pytest.mark.postgres
def test_behind_nginx_with_tls_a_client_signs_in_and_uses_both_servers_on_two_instances(deployment: Deployment, client_side: None) -> None:
    started = time.monotonic()
    base = deployment.base_url
    makler, suche = f"{base}/makler/mcp", f"{base}/suche/mcp"

    # metadata: every URL https at the public address
    resource = httpx2.get(f"{base}/.well-known/oauth-protected-resource/makler/mcp").json()
    authorization = httpx2.get(f"{base}/.well-known/oauth-authorization-server").json()
    assert resource["resource"] == makler and resource["authorization_servers"] == [base]
    assert authorization["issuer"] == base
    urls = athaus_urls(resource, base) + athaus_urls(authorization, base)
    assert urls and all(url.startswith(f"{base}/") or url == base for url in urls), urls
    challenge = httpx2.post(makler, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "show_situation_report", "arguments": {}}},
                            headers={"Accept": "application/json, text/event-stream"})
    assert challenge.status_code == 401
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/makler/mcp"' in challenge.headers["www-authenticate"]
    health = httpx2.get(f"{base}/healthz")
    assert health.json()["status"] == "ok" and re.fullmatch(r"[0-9a-f]{32}", health.headers["x-request-id"])  # nginx's $request_id

    # the whole sign-in through the proxy, driven by the official client
    browser = RecordingBrowser(BROKER, password=BROKER_PASSWORD, grant=["makler:lesen"])
    storage = MemoryStorage()
    auth = oauth_client(makler, browser, storage, name="ChatGPT", redirect_uri=CHATGPT_REDIRECT)

    async def use_both() -> tuple[Any, Any, Any]:
        async with connected(makler, "2026-07-28", auth=auth) as client:
            report = await client.call_tool("show_situation_report", {})
            stock = await client.call_tool("search_listings", {"limit": 3})
        async with connected(suche, "2026-07-28") as client:
            found = await client.call_tool("search_listings", {"limit": 3})
        return report, stock, found

    results = anyio.run(use_both)
    assert [result.is_error for result in results] == [False, False, False]
    assert browser.answer["iss"] == base and browser.answer.get("code")
    assert storage.tokens is not None and storage.tokens.scope == "makler:lesen"

    # redirects within Athaus: https at the public address (or relative to it); the last one goes to the client
    locations = [response.headers["location"] for response in browser.responses if "location" in response.headers]
    assert locations[-1].startswith(CHATGPT_REDIRECT + "?")
    assert all(not re.match(r"[a-z]+://", location) or location.startswith(f"{base}/") or location.startswith(CHATGPT_REDIRECT)
               for location in locations), locations
    assert all(str(response.url).startswith(f"{base}/") for response in browser.responses)
    # cookies: Secure, HttpOnly, no Domain; __Host- only where the path is / (Athaus scopes them to /oauth)
    cookies = [value for response in browser.responses for value in response.headers.get_list("set-cookie")]
    assert cookies
    for cookie in cookies:
        attributes = [part.strip().lower() for part in cookie.split(";")[1:]]
        assert "secure" in attributes and "httponly" in attributes, cookie
        assert not any(part.startswith("domain=") for part in attributes), cookie
        path = next((part.removeprefix("path=") for part in attributes if part.startswith("path=")), "/")
        assert cookie.startswith("__Host-") or path != "/", cookie

    # resource URLs in results: every URL naming the deployment is https
    named = [url for result in results for url in athaus_urls(result.model_dump(mode="json", by_alias=True), base)]
    assert all(url.startswith("https://") for url in named), named

    # both instances answered (nginx alternates; one token from one instance works on the other)
    calls = [sum('"event": "tool_call"' in line for line in log.read_text().splitlines()) for log in deployment.logs]
    assert all(count >= 1 for count in calls), calls

    # the first instance runs two workers: every scrape, whichever worker answers, counts the calls of both
    totals = set()
    for _ in range(6):
        scraped = httpx2.get(f"http://127.0.0.1:{deployment.ports[0]}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert scraped.status_code == 200
        totals.add(sum(value for (name, _), value in samples_of(scraped.text).items() if name == "athaus_tool_calls_total"))
    assert totals == {calls[0]}
    assert httpx2.get(f"{base}/metrics").status_code == 401  # through the proxy too, only with the token
    print(f"\nproxy test: {time.monotonic() - started:.1f} s through nginx (tool calls per instance: {calls})")



# --- nobody picks their own address ----------------------------------------------------------------------------


def forged_headers(rng: random.Random, forged: set[str]) -> dict[str, str]:
    """What a client writes to pass as someone else: new random addresses in every header, every time."""

    def address() -> str:
        value = str(ipaddress.IPv4Address(rng.getrandbits(32)))
        forged.add(value)
        return value

    return {
        "X-Forwarded-For": f"{address()}, {address()}", "X-Real-IP": address(), "Forwarded": f"for={address()};proto=https",
        "X-Forwarded-Proto": "https",
    }


def wrong_logins(client: httpx2.Client, base: str, attempts: int, forged: set[str], host: str | None = None) -> list[int]:
    """Wrong logins at the web app's form, each for another address typed (no per-account limit applies) and each with
    other forged headers; the statuses. The CSRF cookie goes by hand: it is Secure, and one path below talks plain http."""
    rng = random.Random()
    named = {"Host": host} if host else {}
    form = client.get(f"{base}/app/anmelden", headers=named)
    assert form.status_code == 200, form.text
    found = re.search(r'name="csrf_token" value="([^"]*)"', form.text)
    assert found is not None
    cookie = "; ".join(value.split(";")[0] for value in form.headers.get_list("set-cookie"))
    statuses = []
    for number in range(attempts):
        answer = client.post(
            f"{base}/app/anmelden",
            data={"csrf_token": html.unescape(found.group(1)), "email": f"fremd-{number}-{rng.getrandbits(40)}@example.de", "password": "falsch"},
            headers={**named, "Cookie": cookie, **forged_headers(rng, forged)},
        )
        statuses.append(answer.status_code)
        if answer.status_code == 429:
            assert 0 < int(answer.headers["retry-after"]) <= LOGIN_PER_ADDRESS.window.total_seconds()
    return statuses


def login_counts(deployment: Deployment, addresses: set[str]) -> dict[str, int]:
    """The per-address login counters of these addresses, as the database holds them (absent: never counted)."""
    keys = {LOGIN_PER_ADDRESS.key(address): address for address in addresses}
    db = Database.from_url(deployment.database_url)
    try:
        with db.read_only() as session:
            rows = session.execute(select(ThrottleCounter.key, ThrottleCounter.count).where(ThrottleCounter.key.in_(keys))).all()
    finally:
        db.engine.dispose()
    return {keys[key]: count for key, count in rows}


LIMITED = [400] * LOGIN_PER_ADDRESS.attempts + [429] * 10


@pytest.mark.postgres
def test_through_nginx_a_forged_x_forwarded_for_does_not_escape_the_per_address_limit(deployment: Deployment, client_side: None) -> None:
    """nginx overwrites what the client wrote with the address it saw; a client of its own source address (127.0.0.3,
    a fresh counter) is limited after LOGIN_PER_ADDRESS attempts, whatever it claims to be."""
    forged: set[str] = set()
    tls = ssl.create_default_context(cafile=str(deployment.folder / "ca.pem"))
    with httpx2.Client(transport=httpx2.HTTPTransport(local_address="127.0.0.3", verify=tls), timeout=30) as client:
        statuses = wrong_logins(client, deployment.base_url, len(LIMITED), forged)
    assert statuses == LIMITED
    assert login_counts(deployment, forged | {"127.0.0.3"}) == {"127.0.0.3": len(LIMITED)}


@pytest.mark.postgres
def test_an_instance_believes_forwarded_headers_from_no_one_but_the_proxy(deployment: Deployment) -> None:
    """Straight at an instance from an address that is not the proxy's (127.0.0.2): uvicorn ignores X-Forwarded-*
    and Athaus counts the connection's own address."""
    forged: set[str] = set()
    with httpx2.Client(transport=httpx2.HTTPTransport(local_address="127.0.0.2"), timeout=30) as client:
        statuses = wrong_logins(client, f"http://127.0.0.1:{deployment.ports[1]}", len(LIMITED), forged, host=f"{NAME}:{deployment.port}")
    assert statuses == LIMITED
    assert login_counts(deployment, forged | {"127.0.0.2"}) == {"127.0.0.2": len(LIMITED)}


# --- a restart nobody notices -----------------------------------------------------------------------------------


SEARCH = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_listings", "arguments": {"limit": 2}}}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
# More clients than nginx keeps connections (the template's `keepalive 16`): it opens new ones all the time, half of
# them to the instance that restarts.
MCP_CLIENTS, READ_CLIENTS = 20, 2


def mcp_answered(response: httpx2.Response, body: dict[str, Any]) -> bool:
    if response.status_code != 200:
        return False
    answer = response.json()
    return answer.get("result", {}).get("isError") is False if body is SEARCH else answer.get("result") == {}


@pytest.mark.postgres
def test_restarting_one_of_two_instances_under_load_fails_no_call(deployment: Deployment, client_side: None) -> None:
    """Twenty MCP clients (tool calls and pings, POSTs: nginx never resends one it has sent) and two readers through
    nginx while the instance with two workers gets SIGTERM, drains, stops and starts again: not one call fails, and
    readiness says 503 within the supervisor's half second.

    The load is what makes a restart without the drain fail: with more clients than the connections nginx keeps, it
    opens new connections all the time, half of them to the instance that stops. Before athaus/draining.py that
    instance's supervisor kept its copy of the listening socket until its workers were done: the kernel went on
    accepting connections nobody served, nginx sent its POST on one, and the reset came after it was sent, a 502.
    `ATHAUS_TEST_PROXY_UNDRAINED=1` runs this test against that behaviour: it fails with 502s (issue 34 before the
    drain: 6 of 646)."""
    base = deployment.base_url
    answered: dict[str, int] = {"mcp": 0, "read": 0}
    failed: list[str] = []
    stop = threading.Event()
    counting = threading.Lock()

    def client(kind: str) -> None:
        with httpx2.Client(timeout=30) as http:
            for n in range(10**9):
                if stop.is_set():
                    return
                body = SEARCH if n % 4 == 0 else PING
                try:
                    if kind == "mcp":
                        response = http.post(f"{base}/suche/mcp", json=body, headers=MCP_HEADERS)
                        good = mcp_answered(response, body)
                    else:
                        response = http.get(f"{base}/.well-known/oauth-protected-resource/suche/mcp")
                        good = response.status_code == 200
                except (httpx2.HTTPError, ValueError, KeyError) as error:
                    failed.append(f"{kind}: {error!r}")
                    continue
                if good:
                    with counting:
                        answered[kind] += 1
                else:
                    failed.append(f"{kind}: {response.status_code} {response.text[:200]}")

    clients = [threading.Thread(target=client, args=(kind,)) for kind in ["mcp"] * MCP_CLIENTS + ["read"] * READ_CLIENTS]
    port = deployment.ports[0]
    ready_url, named = f"http://127.0.0.1:{port}/healthz/ready", {"Host": f"{NAME}:{deployment.port}"}
    readiness: list[int] = []  # what /healthz/ready said after SIGTERM until 503 (nothing: the instance was gone)
    try:
        for thread in clients:
            thread.start()
        time.sleep(2)
        before = dict(answered)
        deployment.processes[0].send_signal(signal.SIGTERM)
        sent = time.monotonic()
        while time.monotonic() - sent < 1.5 and 503 not in readiness:
            try:
                readiness.append(httpx2.get(ready_url, headers=named, timeout=5).status_code)
            except httpx2.HTTPError:
                break
            time.sleep(0.05)
        readiness_after = time.monotonic() - sent
        assert deployment.processes[0].wait(60) in (0, -signal.SIGTERM)
        stopped_after = time.monotonic() - sent
        deployment.processes[0] = deployment.launch(0)
        until = time.monotonic() + 120
        while not deployment._answers(ready_url, host=named["Host"]):
            assert time.monotonic() < until, deployment.logs[0].read_text()[-2000:]
            time.sleep(0.2)
        time.sleep(2)  # both instances in use again
    finally:
        stop.set()
        for thread in clients:
            thread.join(60)
    total = sum(answered.values()) + len(failed)
    print(f"\nrestart under load ({'without drain' if UNDRAINED else f'drain {DRAIN_SECONDS} s'}): {answered} answered, {len(failed)} of {total} failed; "
          f"stopped {stopped_after:.1f} s after SIGTERM")
    upstream_errors = [line for line in (deployment.folder / "nginx-error.log").read_text().splitlines() if "while reading response header" in line]
    assert failed == [], f"{len(failed)} of {total} failed: {failed[:3]}; nginx: {upstream_errors[:5]}"
    assert readiness and readiness[-1] == 503, f"readiness did not turn 503 on SIGTERM: {readiness} within {readiness_after:.2f} s"
    assert answered["mcp"] > before["mcp"] + 10 and answered["read"] > before["read"] + 10, (before, answered)
    assert (0 if UNDRAINED else DRAIN_SECONDS) <= stopped_after < DRAIN_SECONDS + 15, stopped_after


@pytest.mark.postgres
def test_the_access_log_of_the_shipped_template_holds_a_reset_links_path_but_never_its_token(deployment: Deployment, client_side: None) -> None:
    """A reset link (`?t=…`, valid one hour) opened through nginx: the page answers with its form, and the access log
    written in the template's format names the path, the status and nginx's request id, never the token (nor the
    Referer, which repeats the link)."""
    db = Database.from_url(deployment.database_url)
    try:
        with db.unit_of_work() as session:
            token = new_token(session, purpose="reset", email=BROKER, now=dt.datetime.now(dt.UTC))
    finally:
        db.engine.dispose()
    url = link(deployment.base_url, "reset", token)
    answer = httpx2.get(url, headers={"Referer": url}, timeout=30)
    assert answer.status_code == 200 and token in answer.text  # the valid link's form, carrying the token on to its POST
    deadline = time.monotonic() + 10
    while RESET_PATH not in (written := deployment.site_log.read_text(encoding="utf-8") if deployment.site_log.exists() else ""):
        assert time.monotonic() < deadline, "nginx wrote no access log line for the reset link"
        time.sleep(0.1)
    line = next(line for line in written.splitlines() if RESET_PATH in line)
    assert re.fullmatch(rf'127\.0\.0\.1 - \[[^\]]+\] "GET {RESET_PATH} HTTP/1\.1" 200 \d+ [\d.]+ "python-httpx2?/[^"]+" [0-9a-f]{{32}}', line), line
    assert token not in written and "t=" not in written
