"""The confirmation card's HTML as a host reads it, without a browser: one self-contained German document that loads
nothing from elsewhere (the declared CSP has no domains), builds no markup from data, and speaks both host protocols.
How it behaves is proven in Chromium by tests/test_confirmation_browser.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from contract.confirmations import CLICK_TOOL_META, CONFIRMATION_META_KEY
from shared.confirmations.card import card_html


class Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.buttons: list[str] = []
        self._in_button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_button = tag == "button"

    def handle_data(self, data: str) -> None:
        if self._in_button and data.strip():
            self.buttons.append(data.strip())

    def handle_endtag(self, tag: str) -> None:
        self._in_button = False


def test_the_card_is_one_german_document_that_loads_nothing_from_elsewhere() -> None:
    html = card_html()
    outline = Outline()
    outline.feed(html)
    assert ("html", {"lang": "de"}) in outline.tags
    assert [attrs for tag, attrs in outline.tags if tag in {"script", "link", "img", "iframe", "object", "embed"}] == [{}]  # one inline script
    assert not re.search(r"https?://", html)
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "fetch(", "XMLHttpRequest", "WebSocket", "localStorage"):
        assert risky not in html, risky
    assert re.findall(r"\son[a-z]+=", html) == []  # no inline event handlers: a strict script-src still runs it
    assert outline.buttons == ["Senden", "Verwerfen"]


def test_the_card_speaks_mcp_apps_and_the_apps_sdk_and_reads_the_token_only_from_meta() -> None:
    html = card_html()
    for mcp_apps in ("ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-result", "ui/notifications/host-context-changed", "ui/notifications/size-changed", "tools/call"):
        assert f'"{mcp_apps}"' in html, mcp_apps
    for apps_sdk in ("window.openai", "toolOutput", "toolResponseMetadata", "callTool", "openai:set_globals"):
        assert apps_sdk in html, apps_sdk
    assert f'"{CONFIRMATION_META_KEY}"' in html and '"decide_confirmation"' in html and '"get_confirmation"' in html
    assert "app" in CLICK_TOOL_META["ui"]["visibility"]  # the tool the card calls is one the host lets it call
    assert "prefers-color-scheme: dark" in html and ':root[data-theme="dark"]' in html and ":focus-visible" in html
