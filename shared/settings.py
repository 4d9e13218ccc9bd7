"""Runtime settings, read from ATHAUS_* environment variables (documented in the README)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
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

    def resource_url(self, server: str) -> str:
        """The RFC 8707 resource identifier of one MCP server (its endpoint URL)."""
        return f"{self.public_url.rstrip('/')}/{server}/mcp"

    def resource_metadata_url(self, server: str) -> str:
        """RFC 9728 protected resource metadata of one MCP server."""
        return f"{self.public_url.rstrip('/')}/.well-known/oauth-protected-resource/{server}/mcp"
