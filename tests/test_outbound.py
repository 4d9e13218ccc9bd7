"""Outbound requests (shared/outbound.py): the OpenImmo feed is fetched like a client metadata document.

Public addresses only (every notation of a private one refused, at the first URL and after each redirect), https
outside development, a bounded number of redirects each checked again, and every request names this deployment in its
User-Agent. A failure is logged with type, host and status, never with the URL's path or query. The feed is served by
respx (no network); the names resolve through tests/conftest.py TEST_NAMES, everything else through the system
resolver (so `2130706433` is judged as 127.0.0.1, as a real fetch would).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import httpx
import pytest
import respx

from contract.errors import ToolFailure
from shared.db.session import Database
from shared.identity import announce, user_agent, version
from shared.outbound import FetchRefused, address_is_global, fetch_public
from shared.stock_import.fetch import fetch_feed
from tests.test_import_listings import FEED_URL, broker, fixture, set_feed
from tests.test_import_listings import db as db  # noqa: F401  (the fixture)

UNREACHABLE = (
    "SOURCE_UNAVAILABLE",
    "Die Feed-Adresse des Büros ist nicht erreichbar; nichts wurde geändert: bitte die Feed-Adresse des Büros prüfen "
    "oder die Übertragung als xml übergeben.",
)
NOT_HTTPS = (
    "INVALID_ARGUMENT",
    "Die eingestellte Feed-Adresse ist keine https-Adresse: bitte die Feed-Adresse des Büros prüfen oder die "
    "Übertragung als xml übergeben.",
)
REFUSED = (
    "INVALID_ARGUMENT",
    "Die Feed-Adresse des Büros (oder eine Weiterleitung von ihr) zeigt nicht auf eine öffentliche https-Adresse; "
    "nichts wurde geändert: bitte die Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben.",
)

PRIVATE_TARGETS = [
    "https://127.0.0.1/latest/meta-data/iam",
    "https://[::1]/feed.xml",
    "https://[::ffff:127.0.0.1]/feed.xml",
    "https://[::127.0.0.1]/feed.xml",
    "https://[64:ff9b:1::7f00:1]/feed.xml",
    "https://[64:ff9b::a9fe:a9fe]/latest/meta-data/iam",
    "https://169.254.169.254/latest/meta-data/iam",
    "https://10.0.0.8/feed.xml",
    "https://10.255.255.254:8443/feed.xml",
    "https://2130706433/feed.xml",  # decimal
    "https://0177.0.0.1/feed.xml",  # octal
    "https://0x7f000001/feed.xml",  # hex
    "https://0x7f.0.0.1/feed.xml",
    "https://127.1/feed.xml",
    "https://localhost/feed.xml",
    "https://localhost.:8080/feed.xml",
    "https://metadata.example/latest/meta-data/iam",  # a name resolving to 169.254.169.254
    "https://mixed.example/feed.xml",  # one public, one private address
    "http://mirror.example.org/feed.xml",  # public, but http outside development
    "ftp://mirror.example.org/feed.xml",
]


def production_fetch(url: str) -> tuple[str, str] | bytes:
    """fetch_feed as outside development (https only): the body, or the failure's code and sentence."""
    try:
        with fetch_feed(url, max_bytes=1_000_000, timeout=5) as spool:
            return spool.read()
    except ToolFailure as failure:
        return failure.code.value, failure.message


@pytest.mark.parametrize("target", PRIVATE_TARGETS)
def test_a_redirect_to_any_private_notation_is_not_followed(target: str) -> None:
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        feed = mock.get(FEED_URL).respond(302, headers={"Location": target})
        anything_else = mock.route().respond(200, content=b"<openimmo/>")
        answer = production_fetch(FEED_URL)
    # httpx itself refuses an octal IPv4 in a Location header (the response fails before our check): not reached either
    assert answer == (UNREACHABLE if "0177." in target else REFUSED)
    assert feed.call_count == 1
    assert not anything_else.called


@pytest.mark.parametrize("target", PRIVATE_TARGETS)
def test_a_feed_url_naming_a_private_address_is_not_fetched(target: str) -> None:
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        anything = mock.route().respond(200, content=b"<openimmo/>")
        answer = production_fetch(target)
    assert answer == (NOT_HTTPS if target.startswith(("http:", "ftp:")) else REFUSED)
    assert not anything.called


def test_through_the_tool_a_redirect_to_the_metadata_address_changes_nothing(db: Database) -> None:
    set_feed(db, FEED_URL)
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        mock.get(FEED_URL).respond(302, headers={"Location": "https://169.254.169.254/latest/meta-data/iam"})
        anything_else = mock.route().respond(200, content=fixture("voll_drei.xml").encode())
        assert broker(db).error("import_listings", {"from_feed": True}) == REFUSED
    assert not anything_else.called


def test_public_redirects_are_followed_each_checked_and_every_request_names_the_deployment(db: Database) -> None:
    announce("https://athaus.example")
    set_feed(db, FEED_URL)
    with respx.mock(assert_all_mocked=True) as mock:
        first = mock.get(FEED_URL).respond(301, headers={"Location": "https://mirror.example.org/a.xml"})
        second = mock.get("https://mirror.example.org/a.xml").respond(302, headers={"Location": "/b.xml"})
        last = mock.get("https://mirror.example.org/b.xml").respond(200, content=fixture("voll_drei.xml").encode())
        result = broker(db)("import_listings", {"from_feed": True})
    assert (result["source"], result["counts"]["created"]) == ("feed", 3)
    agents = {route.calls.last.request.headers["user-agent"] for route in (first, second, last)}
    assert agents == {f"athaus-mcp/{version()} (+https://athaus.example)"} == {user_agent()}
    announce("")


def test_more_than_three_redirects_are_not_followed(db: Database) -> None:
    set_feed(db, FEED_URL)
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        hops = [mock.get(f"https://mirror.example.org/{n}").respond(302, headers={"Location": f"/{n + 1}"}) for n in range(4)]
        mock.get(FEED_URL).respond(302, headers={"Location": "https://mirror.example.org/0"})
        assert broker(db).error("import_listings", {"from_feed": True}) == (
            "SOURCE_UNAVAILABLE",
            "Die Feed-Adresse des Büros leitet mehr als 3-mal weiter; nichts wurde geändert: bitte die Feed-Adresse des "
            "Büros prüfen oder die Übertragung als xml übergeben.",
        )
    assert [hop.call_count for hop in hops] == [1, 1, 1, 0]


def test_http_feeds_only_in_development() -> None:
    with respx.mock(assert_all_mocked=True) as mock:
        route = mock.get("http://mirror.example.org/feed.xml").respond(200, content=b"<openimmo/>")
        with fetch_feed("http://mirror.example.org/feed.xml", max_bytes=100, timeout=5, allow_http=True) as spool:
            assert spool.read() == b"<openimmo/>"
        with pytest.raises(Exception, match="keine https-Adresse"):
            fetch_feed("http://mirror.example.org/feed.xml", max_bytes=100, timeout=5)
    assert route.call_count == 1


def test_a_failure_is_logged_with_type_host_and_status_never_the_path_or_query(db: Database, caplog: pytest.LogCaptureFixture) -> None:
    secret_url = "https://feed.example.org/export/openimmo.xml?token=geheim-4711"
    set_feed(db, secret_url)
    with caplog.at_level(logging.WARNING, logger="athaus.outbound"), respx.mock(assert_all_mocked=True) as mock:
        mock.get(secret_url).respond(503)
        assert broker(db).error("import_listings", {"from_feed": True})[0] == "SOURCE_UNAVAILABLE"
        mock.get(secret_url).mock(side_effect=httpx.ConnectError("refused"))
        assert broker(db).error("import_listings", {"from_feed": True})[0] == "SOURCE_UNAVAILABLE"
    lines = [json.loads(record.getMessage()) for record in caplog.records if record.name == "athaus.outbound"]
    assert lines == [
        {"event": "outbound_failed", "purpose": "openimmo_feed", "error": "status", "host": "feed.example.org", "status": 503},
        {"event": "outbound_failed", "purpose": "openimmo_feed", "error": "ConnectError", "host": "feed.example.org", "status": None},
    ]
    assert "geheim" not in caplog.text and "/export" not in caplog.text


def test_the_client_metadata_fetch_is_the_same_fetch() -> None:
    """One fetch for both: a metadata document follows no redirect at all, whatever it points to."""

    async def attempt() -> str:
        with respx.mock(assert_all_mocked=True) as mock:
            mock.get("https://client.example/client.json").respond(302, headers={"Location": "https://mirror.example.org/c.json"})
            try:
                await fetch_public("https://client.example/client.json", max_bytes=100)
            except FetchRefused as refused:
                return refused.kind
        return "fetched"

    assert anyio.run(attempt) == "redirects"


# Every block of the one list (shared/outbound.py), each at its edges, and beside it an address just outside that
# passes: the check refuses the block, not its neighbourhood. The first five passed before issue 30.
NOT_GLOBAL_AND_NEIGHBOUR = [
    ("fec0::1", "2a00:1450:4001::1"),  # site-local (deprecated)
    ("fed0::1", "2a00:1450:4001::1"),
    ("feff::1", "2a00:1450:4001::1"),
    ("3fff::1", "3fef:ffff::1"),  # documentation (RFC 9637)
    ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::1"),
    ("5f00::1", "2a03:2880::1"),  # SRv6 SIDs
    ("5f00:ffff::1", "2c0f:f248::1"),
    ("2001:db8::1", "2001:dc8::1"),  # documentation
    ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::1"),
    ("2001::1", "2001:200::1"),  # IETF protocol assignments (Teredo and others)
    ("2001:1ff:ffff::1", "2001:200::1"),
    ("2620:4f:8000::1", "2620:4f:8001::1"),  # AS112
    ("3ffe::1", "3fef::1"),  # the former 6bone
    ("fc00::1", "2606:4700::1111"),  # unique local
    ("fe80::1", "2606:4700::1111"),  # link-local
    ("ff0e::1", "2606:4700::1111"),  # multicast, global scope
    ("100::1", "2606:4700::1111"),  # discard
    ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2000::1"),  # below 2000::/3
    ("4000::1", "3fef::1"),  # above it
    ("2002:a00:1::", "2002:5db8:d70e::"),  # 6to4 of 10.0.0.1 / of 93.184.215.14
    ("64:ff9b::a00:1", "64:ff9b::808:808"),  # NAT64 of 10.0.0.1 / of 8.8.8.8
    ("100.64.0.1", "100.63.255.255"),  # shared address space
    ("100.127.255.255", "100.128.0.0"),
    ("0.0.0.1", "1.0.0.0"),
    ("10.255.255.255", "11.0.0.0"),
    ("127.255.255.254", "128.0.0.1"),
    ("169.254.169.254", "169.253.255.255"),
    ("172.31.255.255", "172.32.0.0"),
    ("192.0.0.9", "192.0.1.1"),
    ("192.0.2.1", "192.0.3.1"),
    ("192.31.196.1", "192.31.197.1"),
    ("192.52.193.1", "192.52.194.1"),
    ("192.88.99.1", "192.88.100.1"),
    ("192.168.255.255", "192.169.0.0"),
    ("192.175.48.1", "192.175.49.1"),
    ("198.18.0.1", "198.17.255.255"),
    ("198.19.255.255", "198.20.0.0"),
    ("198.51.100.1", "198.51.101.1"),
    ("203.0.113.1", "203.0.114.1"),
    ("224.0.0.1", "223.255.255.255"),
    ("240.0.0.1", "223.255.255.254"),
    ("255.255.255.255", "93.184.215.14"),
]


@pytest.mark.parametrize(("refused", "passing"), NOT_GLOBAL_AND_NEIGHBOUR)
def test_every_range_that_is_not_global_unicast_is_refused_and_its_neighbour_passes(refused: str, passing: str) -> None:
    assert (address_is_global(refused), address_is_global(passing)) == (False, True)


@pytest.mark.parametrize("address", ["fec0::1", "fed0::1", "feff::1", "3fff::1", "5f00::1", "2001:db8::1", "100.64.0.1"])
def test_the_metadata_document_and_the_feed_fetch_nothing_from_them(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through both fetches: a name resolving to the address is refused before any request."""
    import socket

    from shared import outbound

    async def lookup(host: Any, port: Any, **options: Any) -> Any:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(outbound, "lookup", lookup)

    async def metadata() -> str:
        try:
            await fetch_public("https://client.example/client.json", max_bytes=100)
        except FetchRefused as refused:
            return refused.kind
        return "fetched"

    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        anything = mock.route().respond(200, content=b"<openimmo/>")
        assert (anyio.run(metadata), production_fetch(FEED_URL)) == ("refused", REFUSED)
    assert not anything.called


def test_a_feed_host_that_does_not_resolve_is_source_unavailable_with_its_own_log_event(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A resolver outage (or a mistyped name) is not a private address (issue 30: it was told "nicht auf eine
    öffentliche https-Adresse"); an empty answer is the same."""
    import socket

    from shared import outbound

    answers: dict[str, Any] = {"feed.example.org": socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), "mirror.example.org": []}

    async def lookup(host: Any, port: Any, **options: Any) -> Any:
        answer = answers[host]
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(outbound, "lookup", lookup)
    unresolved = (
        "SOURCE_UNAVAILABLE",
        "Der Name der Feed-Adresse des Büros ließ sich nicht auflösen (DNS); nichts wurde geändert: bitte später erneut "
        "versuchen, die Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben.",
    )
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock, caplog.at_level(logging.WARNING, "athaus.outbound"):
        anything = mock.route().respond(200, content=b"<openimmo/>")
        assert production_fetch(FEED_URL) == unresolved
        assert production_fetch("https://mirror.example.org/feed.xml") == unresolved
    assert not anything.called
    events = [json.loads(record.getMessage()) for record in caplog.records if record.name == "athaus.outbound"]
    assert [(e["event"], e["purpose"], e["host"]) for e in events] == [
        ("outbound_unresolved", "openimmo_feed", "feed.example.org"),
        ("outbound_unresolved", "openimmo_feed", "mirror.example.org"),
    ]


def test_hidden_private_forms_the_standard_library_calls_global_are_refused() -> None:
    for address in ("::7f00:1", "::a9fe:a9fe", "64:ff9b:1::7f00:1", "64:ff9b:1::808:808", "::ffff:0:7f00:1", "::ffff:0:a00:1"):
        assert not address_is_global(address), address
    assert address_is_global("64:ff9b::808:808")  # the well-known NAT64 prefix with a public address is public



class Greeted:
    """An aiosmtpd handler that keeps the name each client gave in EHLO."""

    def __init__(self) -> None:
        self.names: list[str] = []

    async def handle_EHLO(self, server: object, session: Any, envelope: object, hostname: str, responses: list[str]) -> list[str]:
        self.names.append(hostname)
        session.host_name = hostname  # what aiosmtpd's own EHLO does
        return responses

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        return "250 OK"


def test_smtp_says_the_public_host_in_ehlo() -> None:
    """The SMTP server learns which deployment sends (the public URL's host), not the container's name."""
    from email.message import EmailMessage

    from aiosmtpd.controller import Controller

    from shared.outbox.worker import SmtpMailer
    from shared.settings import Settings
    from tests.conftest import _free_port

    port = _free_port()
    handler = Greeted()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "a@athaus.example", "b@example.org", "Test"
        message.set_content("Hallo")
        for public_url in ("https://mcp.example.de", "http://127.0.0.1:8000"):
            mailer = SmtpMailer.from_settings(Settings(public_url=public_url, smtp_host="127.0.0.1", smtp_port=port))
            assert mailer is not None
            mailer.send(message)
    finally:
        controller.stop()
    assert handler.names[0] == "mcp.example.de"
    assert handler.names[1] != "127.0.0.1" and handler.names[1]  # loopback: the machine's own name, as smtplib says it
