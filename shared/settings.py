"""Runtime settings, read from ATHAUS_* environment variables (documented in the README)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path("var")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATHAUS_", frozen=True)

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DATA_DIR / 'athaus.sqlite3'}",
        description="SQLAlchemy URL; sqlite:///… (embedded default) or postgresql+psycopg://…",
    )
    public_url: str = Field(
        default="http://127.0.0.1:8000",
        description="The URL clients use to reach this deployment; resource and issuer URLs derive from it.",
    )
    development: bool = Field(default=True, description="Development mode: `athaus token` may mint tokens locally.")
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_hosts: list[str] = Field(
        default=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        description="Host header values the MCP endpoints accept (DNS rebinding protection); 'name:*' allows any port.",
    )
    allowed_origins: list[str] = Field(
        default=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        description="Origin header values the MCP endpoints accept; requests without Origin are allowed.",
    )
    secret_key: str | None = Field(
        default=None,
        description="Key that signs cursors; when unset, a random key is created once and kept in the database.",
    )
    cursor_ttl_seconds: int = 3600
    demo_seed: bool = Field(default=True, description="Seed demo data on start when the catalog is empty.")
    demo_listings: int = 2400
    log_level: str = "INFO"
    stream_responses: bool = Field(
        default=False,
        description="Answer MCP requests as an SSE stream when a tool sends notifications (progress of import_listings); "
        "false: one JSON response per request, progress notifications are not delivered.",
    )
    openimmo_max_bytes: int = Field(
        default=10 * 1024 * 1024, description="Largest OpenImmo transfer import_listings reads (argument or feed), in bytes."
    )
    openimmo_fetch_timeout_seconds: float = Field(
        default=30.0, description="Timeout of fetching an office's OpenImmo feed URL, in seconds."
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

    @model_validator(mode="after")
    def _external_issuer_comes_with_keys(self) -> Settings:
        if bool(self.oauth_issuer) != bool(self.oauth_jwks_url):
            raise ValueError("ATHAUS_OAUTH_ISSUER and ATHAUS_OAUTH_JWKS_URL are set together (an external authorization server)")
        return self

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
