"""The confirmation card's HTML as a host reads it, without a browser: one self-contained German document that loads
nothing from elsewhere (the declared CSP has no domains), builds no markup from data, and speaks both host protocols.
How it behaves is proven in Chromium by tests/test_confirmation_browser.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from contract.confirmations import CLICK_TOOL_META, CONFIRMATION_META_KEY, is_blank
from contract.rights import BROKER_SEND
from shared.confirmations.card import blank_pattern, card_html, right_labels


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


def test_the_card_reads_blank_text_and_rights_as_the_contract_does() -> None:
    """The card's regular expression for blank text (filled in from contract.confirmations) agrees with `is_blank`
    character by character, in Node's engine (the card's runs in the browser's, with the same flag); the right labels
    are the contract's."""
    html = card_html()
    assert "/*ATHAUS_" not in html
    assert f"var RIGHT_LABELS = {json.dumps(right_labels(), ensure_ascii=False)};" in html
    assert right_labels()["makler:senden"] == BROKER_SEND.label
    node = shutil.which("node")
    if node is None:
        pytest.skip("node fehlt: die Gegenprobe des regulären Ausdrucks der Karte braucht eine JavaScript-Engine")
    invisible = [
        *"\u200b\u2060\u00ad\u2800\ufeff\u200c\u200d\u200e\u200f\u202e\u2061\u180e\u3164\u115f\u1160\uffa0\u034f\ufe0f\u17b4",
        *" \t\n\r\u00a0\u2028\u3000\x00\x7f",
        "\U000e0020", "\U000e0100", "\U0001d173", "", " \u200b \u2800\n",
    ]
    visible = [*"aZ0.,ßäÄ€-_–…\u2801\u0301\u00b7", "\U0001f44d", "A\u0301", "\u200bHallo\u2800"]
    assert [is_blank(probe) for probe in invisible] == [True] * len(invisible)
    assert [is_blank(probe) for probe in visible] == [False] * len(visible)
    script = "const re = new RegExp(process.argv[1], 'u'); console.log(JSON.stringify(JSON.parse(process.argv[2]).map(s => re.test(s))));"
    answer = subprocess.run([node, "-e", script, blank_pattern(), json.dumps(invisible + visible)], capture_output=True, text=True, check=True, timeout=30)
    assert json.loads(answer.stdout) == [True] * len(invisible) + [False] * len(visible)
