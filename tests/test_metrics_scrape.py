"""Metrics per instance (issue 34, item 5).

compose.yaml and deploy/prometheus/prometheus.yml scrape each instance on its own name, never the public name nginx
balances (a counter read from either instance in turn jumps: 99, 104, 100, 105, …), and the docs show that file.

Then a real `athaus serve --workers 2`, configured as compose.yaml configures athaus-1, with the in-app outbox worker
delivering to a real SMTP server (aiosmtpd) on loopback: its /metrics answers under the instance's own name, lists the
supervisor and both workers with their pids, says its build, and counts what was done to it over HTTP exactly (logins
by outcome, a throttled form, deliveries sent, retried and failed), summed over both workers."""

from __future__ import annotations

import os
import platform
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import yaml
from aiosmtpd.controller import Controller
from mcp import Client

from shared.auth.throttle import LOGIN_PER_ACCOUNT, RESET_PER_ACCOUNT
from shared.demo import DEMO_ACCOUNTS
from shared.identity import commit, version
from shared.telemetry import processes
from tests.conftest import _free_port, seeded_database
from tests.test_telemetry import samples_of

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
PROMETHEUS_FILE = "deploy/prometheus/prometheus.yml"
PROMETHEUS = yaml.safe_load((ROOT / PROMETHEUS_FILE).read_text(encoding="utf-8"))
TOKEN = "kennzahlen-4711"
# What docs/betrieb.md showed before: the public name, which nginx spreads over both instances.
OLD_CONFIG = {"scrape_configs": [{"job_name": "athaus", "scheme": "https", "authorization": {"credentials": "<ATHAUS_METRICS_TOKEN>"},
                                  "static_configs": [{"targets": ["mcp.example.de"]}]}]}


def instances(compose: dict[str, Any]) -> dict[str, str]:
    """The Athaus instances of a compose file, service name → its address: every upstream the proxy balances over."""
    upstreams = [value for key, value in compose["services"]["proxy"]["environment"].items() if key.startswith("ATHAUS_UPSTREAM_")]
    return {address.split(":")[0]: address for address in upstreams}


def scrape_problem(compose: dict[str, Any], config: dict[str, Any]) -> str | None:
    """Why a Prometheus configuration does not scrape each instance of the compose file on its own; None if it does."""
    wanted = instances(compose)
    jobs = [job for job in config.get("scrape_configs", []) if job.get("job_name") == "athaus"]
    if len(jobs) != 1:
        return f"{len(jobs)} jobs named athaus"
    job = jobs[0]
    groups = job.get("static_configs", [])
    scraped = {group.get("labels", {}).get("instance"): group["targets"] for group in groups}
    if scraped != {name: [address] for name, address in wanted.items()}:
        return f"scrapes {scraped}, not each of {wanted} under its name"
    if job.get("scheme", "http") != "http" or job.get("metrics_path", "/metrics") != "/metrics":
        return "not the instances' own /metrics (plain HTTP on the internal network)"
    authorization = job.get("authorization", {})
    if authorization.get("type", "Bearer") != "Bearer" or not authorization.get("credentials_file"):
        return "no bearer token from a file"
    return None


def test_prometheus_scrapes_exactly_the_instances_each_under_its_name_and_the_public_name_is_refused() -> None:
    assert instances(COMPOSE) == {"athaus-1": "athaus-1:8000", "athaus-2": "athaus-2:8000"}
    assert scrape_problem(COMPOSE, PROMETHEUS) is None
    assert scrape_problem(COMPOSE, OLD_CONFIG) == "scrapes {None: ['mcp.example.de']}, not each of " + str(instances(COMPOSE)) + " under its name"


def test_compose_runs_prometheus_on_demand_inside_with_the_token_as_a_secret() -> None:
    prometheus = COMPOSE["services"]["prometheus"]
    assert prometheus["profiles"] == ["monitoring"]
    assert re.fullmatch(r"prom/prometheus:v\d+\.\d+\.\d+", prometheus["image"])
    assert f"./{PROMETHEUS_FILE}:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]
    # the internal network only: no published port, no way out, and the instances on it
    assert prometheus["networks"] == ["monitoring"] and "ports" not in prometheus
    assert COMPOSE["networks"]["monitoring"] == {"internal": True}
    assert [name for name, service in COMPOSE["services"].items() if "monitoring" in service.get("networks", [])] == ["athaus-1", "athaus-2", "prometheus"]
    # the token: compose's secret from ATHAUS_METRICS_TOKEN, the file prometheus.yml reads
    assert prometheus["secrets"] == ["metrics_token"] and COMPOSE["secrets"]["metrics_token"] == {"environment": "ATHAUS_METRICS_TOKEN"}
    assert PROMETHEUS["scrape_configs"][0]["authorization"]["credentials_file"] == "/run/secrets/metrics_token"
    for name in instances(COMPOSE):
        assert COMPOSE["services"][name]["environment"]["ATHAUS_METRICS_TOKEN"] == "${ATHAUS_METRICS_TOKEN:-}"


def test_the_docs_show_the_shipped_prometheus_configuration() -> None:
    page = (ROOT / "docs" / "betrieb.md").read_text(encoding="utf-8")
    blocks = [block for block in re.findall(r"```yaml\n(.*?)```", page, flags=re.S) if block.startswith(f"# {PROMETHEUS_FILE}")]
    assert len(blocks) == 1
    assert yaml.safe_load(blocks[0]) == PROMETHEUS
    assert "mcp.example.de" not in blocks[0]


def test_each_instance_accepts_its_own_name_and_only_its_own() -> None:
    """The Host check lets the name Prometheus scrapes an instance under in, on that instance only."""
    from shared.runtime.edge import AcceptedHosts

    for name, address in instances(COMPOSE).items():
        allowed = yaml.safe_load(COMPOSE["services"][name]["environment"]["ATHAUS_ALLOWED_HOSTS"])
        hosts = AcceptedHosts("https://mcp.example.de", allowed)
        others = [other for other in instances(COMPOSE).values() if other != address]
        assert hosts.allows(address, 8000) and not any(hosts.allows(other, 8000) for other in others)


def test_a_process_marker_whose_pid_now_names_another_process_is_dropped(tmp_path: Path) -> None:
    pid = os.getpid()
    started = processes.start_ticks(pid)
    stale = tmp_path / f"{processes.MARKER_PREFIX}worker_{pid}_{started + 1}"  # the same pid, started at another time
    (tmp_path / "gauge_livesum_999999999.db").write_bytes(b"")
    gone = tmp_path / f"{processes.MARKER_PREFIX}worker_999999999_1"
    live = tmp_path / f"{processes.MARKER_PREFIX}supervisor_{pid}_{started}"
    for marker in (stale, gone, live):
        marker.touch()
    found = processes.readings(str(tmp_path))
    assert [(reading.pid, reading.role) for reading in found] == [(pid, "supervisor")]
    assert sorted(path.name for path in tmp_path.iterdir()) == [live.name]  # the dead pid's live gauges went with it


# ---- a real instance ---------------------------------------------------------------------------------------------

ACCOUNTS = {account.email.split("@")[0]: account for account in DEMO_ACCOUNTS}
WRONG_PASSWORDS = ACCOUNTS["suchende"]  # locked out by its wrong passwords
SIGNS_IN = ACCOUNTS["suchender"]
RESETS = ACCOUNTS["mitarbeiter"]  # asks for a reset link once more than allowed
REFUSED = ACCOUNTS["inhaber-zweitbuero"]  # its mailbox does not exist: 550, given up at once
DEFERRED = ACCOUNTS["inhaberin"]  # its mailbox is full for now: 451, tried again later


class Inbox:
    """An SMTP server's handler: refuses REFUSED's address for good and DEFERRED's for now, keeps the rest."""

    def __init__(self) -> None:
        self.received: list[str] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address == REFUSED.email:
            return "550 5.1.1 Postfach unbekannt"
        if address == DEFERRED.email:
            return "451 4.2.2 Postfach voll"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.extend(envelope.rcpt_tos)
        return "250 OK"


@dataclass
class Instance:
    process: subprocess.Popen[bytes]
    url: str
    inbox: Inbox

    def scrape(self, host: str | None = None) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        headers = {"Authorization": f"Bearer {TOKEN}"} | ({"Host": host} if host else {})
        answer = httpx2.get(f"{self.url}/metrics", headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return samples_of(answer.text)

    def workers(self) -> list[int]:
        return sorted(pid for pid in _children(self.process.pid) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes())


def _children(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    inbox = Inbox()
    smtp_port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    port = _free_port()
    tmp = tmp_path_factory.mktemp("metrics-scrape")
    with seeded_database(tmp, "metrics_scrape", listings=20) as db:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("ATHAUS_", "PROMETHEUS_"))}
        env |= {
            "ATHAUS_DATABASE_URL": db.engine.url.render_as_string(hide_password=False), "ATHAUS_DEMO_SEED": "false",
            "ATHAUS_LOG_FORMAT": "json", "ATHAUS_METRICS_TOKEN": TOKEN,
            # as compose.yaml sets it for athaus-1
            "ATHAUS_ALLOWED_HOSTS": COMPOSE["services"]["athaus-1"]["environment"]["ATHAUS_ALLOWED_HOSTS"],
            "ATHAUS_SMTP_HOST": "127.0.0.1", "ATHAUS_SMTP_PORT": str(smtp_port), "ATHAUS_OUTBOX_POLL_SECONDS": "0.2",
            "ATHAUS_OUTBOX_RETRY_SECONDS": "3600",  # one attempt of the deferred e-mail within the test
        }
        log = tmp / "serve.log"
        with log.open("wb") as out:
            process = subprocess.Popen([sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", "2"], env=env, stderr=out)
        try:
            until = time.monotonic() + 180
            while b'"event": "serving"' not in log.read_bytes():
                assert process.poll() is None and time.monotonic() < until, log.read_text()
                time.sleep(0.2)
            yield Instance(process, f"http://127.0.0.1:{port}", inbox)
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
            controller.stop()


def _value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def _series(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {labels: value for (sample, labels), value in samples.items() if sample == name}


def _until(check: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.2)


def test_metrics_answer_under_the_instances_own_name_and_no_other(instance: Instance) -> None:
    assert instance.scrape(host="athaus-1:8000")  # what Prometheus sends as Host (deploy/prometheus/prometheus.yml)
    other = httpx2.get(f"{instance.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}", "Host": "athaus-2:8000"}, timeout=30)
    assert other.status_code == 421


def test_the_build_is_named_with_its_version_and_commit(instance: Instance) -> None:
    built = commit()
    assert built is not None and version().endswith(f"+g{built}")  # a checkout: the version says its commit
    assert _series(instance.scrape(), "athaus_build_info") == {
        (("commit", built), ("python", platform.python_version()), ("version", version())): 1.0
    }


def test_every_process_of_the_instance_is_listed_by_pid(instance: Instance) -> None:
    workers = instance.workers()
    assert len(workers) == 2
    expected = {str(instance.process.pid): "supervisor"} | {str(pid): "worker" for pid in workers}
    samples = instance.scrape()
    for name in ("athaus_process_resident_memory_bytes", "athaus_process_cpu_seconds_total", "athaus_process_open_fds",
                 "athaus_process_max_fds", "athaus_process_start_time_seconds"):
        series = _series(samples, name)
        assert {dict(labels)["pid"]: dict(labels)["role"] for labels in series} == expected, name
    ticks, boot = os.sysconf("SC_CLK_TCK"), processes._boot_time()
    for pid in expected:
        labels = {"pid": pid, "role": expected[pid]}
        assert _value(samples, "athaus_process_start_time_seconds", **labels) == boot + processes.start_ticks(int(pid)) / ticks
        assert _value(samples, "athaus_process_resident_memory_bytes", **labels) > 20 * 2**20
        assert _value(samples, "athaus_process_open_fds", **labels) >= 3

    # a worker that dies is replaced by uvicorn: the next scrape lists the new one, not the dead one
    os.kill(workers[0], signal.SIGKILL)
    _until(lambda: len(instance.workers()) == 2 and workers[0] not in instance.workers(), seconds=120)
    _until(lambda: {dict(labels)["pid"] for labels in _series(instance.scrape(), "athaus_process_cpu_seconds_total")}
           == {str(instance.process.pid), *map(str, instance.workers())}, seconds=120)  # once the new one has started


def _login(http: httpx2.Client, email: str, password: str) -> int:
    page = http.get("/app/anmelden").text
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page
    return http.post("/app/anmelden", data={"csrf_token": unescape(found.group(1)), "email": email, "password": password}).status_code


def test_logins_are_counted_by_outcome_and_a_throttled_login_by_its_form(instance: Instance) -> None:
    before = instance.scrape()
    assert [_value(before, "athaus_logins_total", outcome=o) for o in ("ok", "wrong_password", "throttled")] == [0, 0, 0]
    with httpx2.Client(base_url=instance.url, timeout=60) as http:
        answers = [_login(http, WRONG_PASSWORDS.email, f"falsch {n}") for n in range(LOGIN_PER_ACCOUNT.attempts + 1)]
    with httpx2.Client(base_url=instance.url, timeout=60) as http:
        answers.append(_login(http, SIGNS_IN.email, SIGNS_IN.password))
    assert answers == [400] * LOGIN_PER_ACCOUNT.attempts + [429, 303]
    after = instance.scrape()
    assert {o: _value(after, "athaus_logins_total", outcome=o) for o in ("ok", "wrong_password", "throttled")} == {
        "ok": 1, "wrong_password": LOGIN_PER_ACCOUNT.attempts, "throttled": 1
    }
    assert _value(after, "athaus_throttled_total", form="login") == 1


def test_a_throttled_reset_form_is_counted_and_deliveries_by_outcome(instance: Instance) -> None:
    before = instance.scrape()
    assert _series(before, "athaus_throttled_total")[(("form", "reset"),)] == 0
    answers = []
    for email in [RESETS.email] * (RESET_PER_ACCOUNT.attempts + 1) + [REFUSED.email, DEFERRED.email]:
        with httpx2.Client(base_url=instance.url, timeout=60) as http:
            page = http.get("/oauth/passwort-vergessen").text
            token = unescape(re.search(r'name="csrf_token" value="([^"]+)"', page).group(1))  # type: ignore[union-attr]
            answers.append(http.post("/oauth/passwort-vergessen", data={"csrf_token": token, "email": email}).status_code)
    assert answers == [200] * RESET_PER_ACCOUNT.attempts + [429, 200, 200]

    def delivered() -> dict[str, float]:
        samples = instance.scrape()
        return {o: _value(samples, "athaus_outbox_deliveries_total", outcome=o) for o in ("sent", "retry", "failed")}

    _until(lambda: sum(delivered().values()) >= RESET_PER_ACCOUNT.attempts + 2)
    time.sleep(1)  # nothing more comes: the deferred one waits an hour
    assert delivered() == {"sent": RESET_PER_ACCOUNT.attempts, "retry": 1, "failed": 1}
    assert instance.inbox.received == [RESETS.email] * RESET_PER_ACCOUNT.attempts
    after = instance.scrape()
    assert _series(after, "athaus_throttled_total") == {
        (("form", form),): {"reset": 1.0, "login": after[("athaus_throttled_total", (("form", "login"),))]}.get(form, 0.0)
        for form in ("login", "signup", "reset", "new_password", "client_registration", "client_metadata")
    }
    assert _value(after, "athaus_outbox_backlog") == 1 and _value(after, "athaus_outbox_failed") == 1


def test_every_metric_served_is_in_the_docs_table_and_every_one_there_is_served(instance: Instance) -> None:
    async def search() -> None:  # the tool call metrics have a series once a tool was called
        async with Client(f"{instance.url}/suche/mcp", mode="2026-07-28") as client:
            assert not (await client.call_tool("search_listings", {"query": "Balkon", "limit": 1})).is_error

    anyio.run(search)
    samples = instance.scrape()
    assert _series(samples, "athaus_rate_limited_total") == {
        (("kind", kind), ("scope", scope)): 0.0 for scope in ("person", "client", "office") for kind in ("calls", "writes")
    }
    page = (ROOT / "docs" / "betrieb.md").read_text(encoding="utf-8")
    section = page[page.index("### Kennzahlen und Traces"):page.index("Traces (OpenTelemetry):")]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `athaus_")]
    documented = {re.sub(r"_total$", "", name) for row in rows for name in re.findall(r"`(athaus_[a-z_]+)", row)}
    served = {re.sub(r"_(total|bucket|count|sum|created)$", "", name) for name, _ in samples}
    assert served == documented
