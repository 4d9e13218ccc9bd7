"""Runtime settings, read from ATHAUS_* environment variables (documented in the README)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path("var")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# The hosts of a public URL that may be http (the MCP SDK's authorization server takes no other http issuer).
HTTP_PUBLIC_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(hostname: str | None) -> bool:
    """localhost, 127.0.0.0/8 or ::1: a name only this machine reaches."""
    if not hostname:
        return False
    if hostname == "localhost" or hostname.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(hostname.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_url(host: str, port: int) -> str:
    """The URL a local client reaches `athaus serve` at when it listens on host:port (any-address binds: loopback)."""
    if host in ("", "0.0.0.0"):
        host = DEFAULT_HOST
    elif host == "::":
        host = "::1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATHAUS_", frozen=True)

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DATA_DIR / 'athaus.sqlite3'}",
        description="SQLAlchemy URL; sqlite:///… (embedded default) or postgresql+psycopg://…",
    )
    # Unset: follows the bind, http://host:port (set by _public_url_follows_the_bind).
    public_url: str = Field(
        default="",
        description="The URL clients use to reach this deployment; resource and issuer URLs derive from it.",
    )
    development: bool = Field(
        default=True,
        description="Development mode: `athaus token` may mint tokens locally, the demo is seeded. Never on for a "
        "non-loopback public URL or bind (refused at start).",
    )
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allowed_hosts: list[str] = Field(
        default=[],
        description="Host header values every route accepts besides the public URL's host and a loopback name at the "
        "bind's port (DNS rebinding protection); 'name:*' allows any port.",
    )
    allowed_origins: list[str] = Field(
        default=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        description="Origin header values the MCP endpoints accept; requests without Origin are allowed.",
    )
    card_hosts: list[str] = Field(
        default=[],
        description="OAuth clients that show the confirmation card besides the built-in ChatGPT and Claude: exact "
        "redirect URIs (every one a client registered must be listed or built in), Client ID Metadata Document URLs, or "
        "client_ids (shared/auth/card_hosts.py).",
    )
    openapi: bool | None = Field(
        default=None,
        description="Serve the OpenAPI document of the HTTP endpoints at /openapi.json; unset: only in development mode.",
    )
    secret_key: str | None = Field(
        default=None,
        description="Key that signs cursors; when unset, a random key is created once and kept in the database.",
    )
    cursor_ttl_seconds: int = 3600
    call_deadline_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Deadline of one MCP request (tool call, completion, resource, prompt): its answer comes within it. "
        "The database work gets it less a reserve (a fifth, at most 2 s); past that the statement is cancelled "
        "(TIME_BUDGET_EXCEEDED), and a database that does not answer at all is SOURCE_UNAVAILABLE at the deadline.",
    )
    read_cache_entries: int = Field(
        default=256,
        ge=0,
        description="Answers of public catalog reads kept per worker and catalog revision; 0 turns the read cache off "
        "(benchmarks of the engine itself, bench/search_latency.py).",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description="Worker processes of `athaus serve`; unset: one per CPU core on PostgreSQL, 1 on SQLite.",
    )
    max_request_bytes: int = Field(
        default=1_048_576, gt=0, description="Largest request body an MCP endpoint accepts (bytes); larger ones get 413."
    )
    request_read_seconds: float = Field(
        default=15.0,
        gt=0,
        description="Time a client has to send one request whole (headers and body) from its first byte, or from "
        "opening the connection; a slower connection is closed.",
    )
    drain_seconds: float = Field(
        default=5.0,
        ge=0,
        description="After SIGTERM: how long an instance still takes new requests while its readiness says 503 and "
        "every answer closes its connection, so the proxy and load balancer move on; then it stops accepting, "
        "finishes the calls in flight (within the call deadline), flushes telemetry and exits. 0: stop at once.",
    )
    registrations_per_minute: int = Field(
        default=30, description="Dynamic client registrations accepted per client address and minute (more get 429)."
    )
    # Limits on use per minute (shared/runtime/limits.py), counted in the database across instances; 0: no limit.
    limit_calls_per_person_per_minute: int = Field(default=300, ge=0, description="Tool calls per person and minute.")
    limit_calls_per_client_per_minute: int = Field(default=3000, ge=0, description="Tool calls per OAuth client and minute.")
    limit_calls_per_office_per_minute: int = Field(default=1000, ge=0, description="Tool calls per office and minute.")
    limit_writes_per_person_per_minute: int = Field(default=60, ge=0, description="Writing tool calls per person and minute.")
    limit_writes_per_client_per_minute: int = Field(default=600, ge=0, description="Writing tool calls per OAuth client and minute.")
    limit_writes_per_office_per_minute: int = Field(default=200, ge=0, description="Writing tool calls per office and minute.")
    demo_seed: bool = Field(
        default=True,
        description="In development mode, seed demo data on start when the catalog is empty; a production start (development "
        "mode off) never seeds, whatever this says (`athaus demo seed` does it on purpose).",
    )
    demo_listings: int = 2400
    log_level: str = "INFO"
    log_format: Literal["auto", "json", "text"] = Field(
        default="auto",
        description="Log lines on stderr: json (one object per line), text (short German lines for people), auto: text "
        "in development mode on a terminal, json otherwise.",
    )
    stream_responses: bool = Field(
        default=False,
        description="Answer every MCP request as an SSE stream; false: one JSON response, except for a call that asks for "
        "progress (a progressToken), which is streamed so its notifications arrive (athaus/transport.py).",
    )
    openimmo_max_bytes: int = Field(
        default=10 * 1024 * 1024, description="Largest OpenImmo transfer import_listings reads (argument or feed), in bytes."
    )
    openimmo_fetch_timeout_seconds: float = Field(
        default=30.0, description="Timeout of fetching an office's OpenImmo feed URL, in seconds."
    )
    images_dir: str = Field(
        default=str(DEFAULT_DATA_DIR / "images"),
        description="Folder of the stored images (photos of imported listings); shared by every instance of a deployment.",
    )
    oauth_issuer: str | None = Field(
        default=None,
        description="Issuer of an external OAuth authorization server; when set, the built-in one is not mounted "
        "and both MCP servers accept only its JWT access tokens.",
    )
    oauth_jwks_url: str | None = Field(
        default=None, description="JWKS of the external authorization server (required with ATHAUS_OAUTH_ISSUER)."
    )
    oauth_user_claim: str = Field(
        default="email",
        description="Claim of an external access token that holds the Athaus account's e-mail address ('sub' if the "
        "authorization server puts it there).",
    )

    otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP endpoint for traces (e.g. http://collector:4318); unset: the standard "
        "OTEL_EXPORTER_OTLP_ENDPOINT, and without either no spans are exported.",
    )
    metrics_token: str | None = Field(
        default=None,
        description="Bearer token that opens /metrics (Prometheus) to the operator; unset: /metrics is not served (404).",
    )

    confirmation_ttl_hours: int = Field(default=48, description="How long a prepared action waits for its click.")
    smtp_host: str | None = Field(default=None, description="SMTP server for e-mail delivery; unset: no e-mails.")
    smtp_port: int = 25
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = False
    mail_from: str = "Athaus <benachrichtigung@athaus.example>"
    outbox_worker: bool = Field(default=True, description="Deliver the outbox from a task inside the app.")
    outbox_poll_seconds: float = 5.0
    outbox_max_attempts: int = 5
    outbox_retry_seconds: float = 60.0

    _public_url_follows_bind: bool = PrivateAttr(default=False)
    _development_forced_off: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _public_url_follows_the_bind(self) -> Settings:
        if not self.public_url:
            object.__setattr__(self, "public_url", bind_url(self.host, self.port))
            self._public_url_follows_bind = True
        return self

    @model_validator(mode="after")
    def _external_issuer_comes_with_keys(self) -> Settings:
        if bool(self.oauth_issuer) != bool(self.oauth_jwks_url):
            raise ValueError("ATHAUS_OAUTH_ISSUER and ATHAUS_OAUTH_JWKS_URL are set together (an external authorization server)")
        return self

    @model_validator(mode="after")
    def _no_development_mode_in_public(self) -> Settings:
        """Development mode (local tokens, cookies without Secure, the demo) is for this machine only: with a public URL
        off loopback it is switched off, or refused when it was asked for explicitly; then `unsafe_start` decides (a URL
        that only follows a bind off loopback leaves it on, so the start is refused for what it is: development mode)."""
        if self.development and not self._public_url_follows_bind and not is_loopback(urlsplit(self.public_url).hostname):
            if "development" in self.model_fields_set:
                raise ValueError(
                    f"ATHAUS_DEVELOPMENT=true geht nur mit einer öffentlichen Adresse auf Loopback, nicht mit {self.public_url}: "
                    "für den Betrieb ATHAUS_DEVELOPMENT=false setzen, zum Entwickeln ATHAUS_PUBLIC_URL weglassen"
                )
            object.__setattr__(self, "development", False)
            self._development_forced_off = True
        refusal = self.unsafe_start()
        if refusal:
            raise ValueError(refusal)
        return self

    def unsafe_start(self) -> str | None:
        """Why these settings must not serve (a German sentence naming the fix), or None. Development mode (demo accounts
        with published passwords, tokens from `athaus token`) listens on loopback only, whatever the public URL says; the
        public URL is https, except 127.0.0.1, localhost or [::1] on a loopback bind (only this machine reaches it; the
        only http issuers the SDK's authorization server takes, which crashed every worker otherwise). Checked when the
        settings are read and again for `athaus serve --host`."""
        if self.development and not is_loopback(self.host):
            return (
                f"Der Entwicklungsmodus (Demo-Konten mit veröffentlichten Passwörtern, Tokens von `athaus token`) lauscht nur "
                f"auf Loopback, nicht auf {self.host or 'allen Adressen'}: ATHAUS_HOST=127.0.0.1 setzen (bzw. --host weglassen), "
                "oder für den Betrieb ATHAUS_DEVELOPMENT=false und ATHAUS_PUBLIC_URL=https://… setzen."
            )
        public = urlsplit(self.public_url)
        if public.scheme != "https" and not (public.hostname in HTTP_PUBLIC_HOSTS and is_loopback(self.host)):
            return (
                f"{'Im Betrieb (Entwicklungsmodus aus) braucht' if not self.development else 'Auch im Entwicklungsmodus braucht'} die "
                f"öffentliche Adresse https, nicht {self.public_url} (Bindung {self.host or 'alle Adressen'}): "
                "ATHAUS_PUBLIC_URL=https://… setzen, TLS endet im Proxy davor (Doku „Betrieb“, „Hinter nginx“); http geht nur "
                "mit 127.0.0.1, localhost oder [::1] auf einer Bindung auf Loopback."
            )
        return None

    @property
    def public_url_follows_bind(self) -> bool:
        """True when ATHAUS_PUBLIC_URL is unset and the public URL is derived from host and port."""
        return self._public_url_follows_bind

    @property
    def development_forced_off(self) -> bool:
        return self._development_forced_off

    @property
    def seeds_demo(self) -> bool:
        """Whether `athaus serve` seeds the demo into an empty catalog: only in development mode (scripts/serve, a local
        start), never in production, where demo accounts with published passwords would open the deployment."""
        return self.demo_seed and self.development

    def serving(self, host: str | None, port: int | None) -> Settings:
        """These settings for `athaus serve --host/--port`: the bind overridden and, when unset, the public URL
        following it; ValueError (a German sentence) when that bind must not serve them (`unsafe_start`)."""
        host, port = host or self.host, port or self.port
        update: dict[str, Any] = {"host": host, "port": port}
        if self.public_url_follows_bind:
            update["public_url"] = bind_url(host, port)
        served = self.model_copy(update=update)
        served._public_url_follows_bind = self._public_url_follows_bind
        refusal = served.unsafe_start()
        if refusal:
            raise ValueError(refusal)
        return served

    def bind_mismatch(self) -> str | None:
        """Why a set public URL cannot reach this bind (same machine, other port or address), or None if it may.

        A public URL on another host (a reverse proxy in front) is not checked: its port is the proxy's."""
        if self.public_url_follows_bind:
            return None
        public = urlsplit(self.public_url)
        if not is_loopback(public.hostname):
            return None
        port = public.port or (443 if public.scheme == "https" else 80)
        if port != self.port:
            return f"public URL {self.public_url} names port {port}, the server listens on {self.host}:{self.port}"
        if self.host not in ("0.0.0.0", "::", "") and not is_loopback(self.host):
            return f"public URL {self.public_url} is a loopback address, the server listens on {self.host} only"
        return None

    @property
    def serves_openapi(self) -> bool:
        return self.development if self.openapi is None else self.openapi

    @property
    def issuer(self) -> str:
        """The authorization server both MCP servers trust: the external one, or the built-in one at public_url."""
        return self.oauth_issuer or self.public_url.rstrip("/")

    def resource_url(self, server: str) -> str:
        """The RFC 8707 resource identifier of one MCP server (its endpoint URL)."""
        return f"{self.public_url.rstrip('/')}/{server}/mcp"

    def resource_metadata_url(self, server: str) -> str:
        """RFC 9728 protected resource metadata of one MCP server."""
        return f"{self.public_url.rstrip('/')}/.well-known/oauth-protected-resource/{server}/mcp"
