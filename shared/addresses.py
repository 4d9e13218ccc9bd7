"""The web addresses a person opens for a record: the public exposé page (no login) and the office's records in the
web app (login). One place, so the connector tools' URLs and the routes that answer them cannot drift apart."""

from __future__ import annotations

from urllib.parse import quote

EXPOSE_PATH = "/inserate/{listing_id}"  # public, German, no login
STOCK_LISTING_PATH = "/app/bestand/{listing_id}"  # the office's listing, in the web app
OFFICE_INQUIRY_PATH = "/app/anfragen/{inquiry_id}"  # an inquiry to the office, in the web app
INQUIRY_FORM_PATH = "/app/anfrage/{listing_id}"  # "Anfrage stellen" from the exposé: a seeker's message, then its confirmation


def address(public_url: str, path: str, **refs: str) -> str:
    """The absolute URL of `path` with its reference numbers filled in, under the deployment's public URL."""
    return public_url.rstrip("/") + path.format(**{name: quote(ref, safe="") for name, ref in refs.items()})
