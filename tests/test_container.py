"""The container image (Dockerfile) and compose.yaml.

What can be read from the files is checked always: two stages, an unprivileged user, a health check, the compose
services with their limits, the proxy on the same nginx template as tests/test_behind_proxy.py. Building the image
and starting it needs a container engine (docker or podman); without one that test is skipped with the reason."""

from __future__ import annotations

import ipaddress
import json
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import httpx2
import pytest
import yaml

from tests.conftest import _free_port

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def test_the_image_is_built_in_one_stage_and_runs_in_another_as_an_unprivileged_user_with_a_health_check() -> None:
    stages = re.findall(r"^FROM (\S+)(?: AS (\w+))?", DOCKERFILE, flags=re.M)
    assert [name for _, name in stages] == ["build", ""]
    final = DOCKERFILE.split("\nFROM ")[-1]
    assert "COPY --from=build /opt/athaus /opt/athaus" in final
    assert re.search(r"^USER athaus$", final, flags=re.M) and "--uid 10001" in final
    assert re.search(r"^HEALTHCHECK .*\n\s+CMD .*/healthz", final, flags=re.M)
    assert not re.search(r"apt-get|gcc|build-essential|COPY (contract|shared|tests)", final)  # no tools, no sources


def test_compose_runs_postgresql_two_instances_and_the_tested_proxy_with_limits() -> None:
    services = COMPOSE["services"]
    assert sorted(services) == ["athaus-1", "athaus-2", "db", "migrate", "prometheus", "proxy"]
    assert services["prometheus"]["profiles"] == ["monitoring"]  # only on demand (tests/test_metrics_scrape.py)
    for name in ("athaus-1", "athaus-2"):
        limits = services[name]["deploy"]["resources"]["limits"]
        assert (limits["cpus"], limits["memory"]) == ("2", "640M")
        environment = services[name]["environment"]
        assert environment["ATHAUS_DEVELOPMENT"] == "false" and environment["ATHAUS_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert services[name]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    assert all("limits" in services[name]["deploy"]["resources"] for name in ("db", "proxy", "prometheus"))
    proxy = services["proxy"]
    assert "./deploy/nginx/athaus.conf.template:/etc/nginx/templates/athaus.conf.template:ro" in proxy["volumes"]
    template = (ROOT / "deploy" / "nginx" / "athaus.conf.template").read_text(encoding="utf-8")
    placeholders = set(re.findall(r"\$\{(ATHAUS_[A-Z0-9_]+)\}", template))
    assert placeholders == {key for key in proxy["environment"] if key.startswith("ATHAUS_")}


def test_compose_runs_the_supported_postgresql_and_lets_an_instance_drain_before_docker_kills_it() -> None:
    from shared.settings import Settings

    services = COMPOSE["services"]
    supported = re.search(r"^\| PostgreSQL \| (\d+) \|", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M)
    assert supported is not None
    assert services["db"]["image"] == f"postgres:{supported.group(1)}-bookworm"
    defaults = Settings(database_url="sqlite://")
    # drain, the calls in flight (deadline + 1 s), the telemetry flush (5 s): all before Docker's SIGKILL
    needed = defaults.drain_seconds + defaults.call_deadline_seconds + 1 + 5
    for name in ("athaus-1", "athaus-2"):
        grace = re.fullmatch(r"(\d+)s", services[name]["stop_grace_period"])
        assert grace is not None and int(grace.group(1)) >= needed, services[name]["stop_grace_period"]


def with_defaults(value: str) -> str:
    """A compose value as it runs when the operator sets none of its variables: ${NAME:-default} → default."""
    return re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", value)


def test_the_instances_believe_forwarded_headers_only_from_the_proxy_which_overwrites_them() -> None:
    """Not "*": the instances trust X-Forwarded-* only from the proxy's fixed address on the network only they and the
    proxy share; the proxy sends what it saw, never what a client wrote (tests/test_behind_proxy.py runs both)."""
    services = COMPOSE["services"]
    proxy_networks = services["proxy"]["networks"]
    assert list(proxy_networks) == ["edge"]
    proxy_address = ipaddress.ip_address(with_defaults(proxy_networks["edge"]["ipv4_address"]))
    subnet = ipaddress.ip_network(with_defaults(COMPOSE["networks"]["edge"]["ipam"]["config"][0]["subnet"]))
    assert proxy_address in subnet
    for name in ("athaus-1", "athaus-2"):
        assert with_defaults(services[name]["environment"]["FORWARDED_ALLOW_IPS"]) == str(proxy_address)
        assert sorted(services[name]["networks"]) == ["default", "edge", "monitoring"] and "ports" not in services[name]
    assert [name for name, service in services.items() if "edge" in service.get("networks", [])] == ["athaus-1", "athaus-2", "proxy"]
    template = (ROOT / "deploy" / "nginx" / "athaus.conf.template").read_text(encoding="utf-8")
    headers = dict(re.findall(r"^\s*proxy_set_header (\S+) (.+);$", template, flags=re.M))
    assert (headers["X-Forwarded-For"], headers["X-Forwarded-Proto"], headers["X-Real-IP"], headers["Forwarded"]) == (
        "$remote_addr", "$scheme", "$remote_addr", '""'
    )


def engine() -> str | None:
    for name in ("docker", "podman"):
        if (path := shutil.which(name)) and subprocess.run([path, "info"], capture_output=True, timeout=30).returncode == 0:
            return path
    return None


def test_the_image_builds_starts_and_is_healthy() -> None:
    tool = engine()
    if tool is None:
        pytest.skip("kein Container-Programm (docker oder podman) mit laufendem Dienst: das Image wird nicht gebaut")
    tag = f"athaus-mcp:test-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    subprocess.run([tool, "build", "-t", tag, str(ROOT)], check=True, timeout=1200)
    built = time.monotonic() - started
    container = None
    try:
        size = int(subprocess.run([tool, "image", "inspect", tag, "--format", "{{.Size}}"], capture_output=True, text=True, check=True).stdout)
        assert subprocess.run([tool, "run", "--rm", tag, "id", "-u"], capture_output=True, text=True, check=True).stdout.strip() == "10001"
        assert subprocess.run([tool, "run", "--rm", tag, "sh", "-c", "command -v gcc cc make pip"], capture_output=True).returncode != 0
        # production mode on every address (tests/test_safe_start.py): without an https public URL, or in development
        # mode, the image refuses to start and says why
        for extra, said in (([], "braucht die öffentliche Adresse https"), (["-e", "ATHAUS_DEVELOPMENT=true"], "lauscht nur auf Loopback")):
            refused = subprocess.run([tool, "run", "--rm", *extra, tag], capture_output=True, text=True, timeout=120)
            assert refused.returncode == 2 and said in refused.stderr, refused.stderr
        port = _free_port()
        public = "https://athaus.test"  # TLS would end in a proxy in front; here the test talks to the container itself
        container = subprocess.run(
            [tool, "run", "-d", "-p", f"127.0.0.1:{port}:8000", "-e", f"ATHAUS_PUBLIC_URL={public}", tag],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        named = {"Host": "athaus.test"}  # the public URL's host, as the proxy passes it on
        deadline = time.monotonic() + 120
        while True:
            try:
                health = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=3, headers=named)
                if health.status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            assert time.monotonic() < deadline, subprocess.run([tool, "logs", container], capture_output=True, text=True).stderr[-2000:]
            time.sleep(1)
        assert health.json()["status"] == "ok" and health.json()["servers"] == ["/makler/mcp", "/suche/mcp"]
        assert httpx2.get(f"http://127.0.0.1:{port}/docs/", timeout=10, headers=named).status_code == 200  # the site came as package data
        metadata = httpx2.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/suche/mcp", timeout=10, headers=named).json()
        assert metadata["resource"] == f"{public}/suche/mcp"

        def health_status() -> str:
            out = subprocess.run([tool, "inspect", container, "--format", "{{json .State.Health.Status}}"], capture_output=True, text=True)
            return str(json.loads(out.stdout or '"none"'))

        while health_status() == "starting":
            assert time.monotonic() < deadline + 60
            time.sleep(2)
        assert health_status() == "healthy"
        print(f"\nimage {tag}: {size / 1e6:.0f} MB, built in {built:.0f} s")
    finally:
        if container:
            subprocess.run([tool, "rm", "-f", container], capture_output=True)
        subprocess.run([tool, "rmi", "-f", tag], capture_output=True)
