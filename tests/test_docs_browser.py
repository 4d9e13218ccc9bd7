"""The docs site in a real browser: headless Chromium (Debian's package, driven by Playwright) opens the site as the
app serves it over HTTP, visits every page (HTTP 200, German, no console error, no failed request), follows every
internal link and anchor, and finds a tool by its German title with the site search. It leaves screenshots of the
start page and of one tool page under docs/screenshots/ (committed; rewritten only when they change).

Chromium comes from `apt-get install chromium` (scripts/test installs it as root when it is missing); never from a
browser download. Without it the test is skipped with the reason, except in CI, where it fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest

from tests.conftest import LiveServer

CHROMIUM = Path(os.environ.get("ATHAUS_CHROMIUM", "/usr/bin/chromium"))
# As root on this kind of machine Chromium needs no sandbox; the rest keeps it from calling out (there is no network).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
TOOL_TITLE = "Kaufnebenkosten berechnen"
TOOL_PAGE = "suche/calculate_purchase_costs.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.is_file():
        reason = f"Chromium fehlt ({CHROMIUM}); scripts/test installiert es als root mit `apt-get install chromium`"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    profile = tempfile.mkdtemp(prefix="athaus-chromium-")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900}, locale="de-DE"
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


class Visit:
    """One browser tab that records what went wrong while it loads pages."""

    def __init__(self, context: object) -> None:
        self.page = context.new_page()  # type: ignore[attr-defined]
        self.page.set_default_timeout(20_000)
        self.problems: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.problems.append(f"{self.page.url}: console: {message.text}"))
        self.page.on("pageerror", lambda error: self.problems.append(f"{self.page.url}: script error: {error}"))
        self.page.on("response", lambda response: response.status >= 400 and self.problems.append(f"{response.url}: HTTP {response.status}"))
        self.page.on(
            "requestfailed",
            lambda request: "ERR_ABORTED" not in (request.failure or "") and self.problems.append(f"{request.url}: {request.failure}"),
        )

    def open(self, url: str) -> int:
        response = self.page.goto(url, wait_until="load")
        return response.status if response else 0


def test_every_page_loads_every_internal_link_resolves_and_the_search_finds_a_tool(browser: object, live_server: LiveServer) -> None:
    root = f"{live_server.base_url}/docs/"
    visit = Visit(browser)
    pages: dict[str, set[str]] = {}  # page URL → the ids on it
    links: list[tuple[str, str]] = []  # (from page, to URL with fragment)
    queue = [root]
    while queue:
        url = queue.pop(0)
        if url in pages:
            continue
        status = visit.open(url)
        assert status == 200, f"{url}: HTTP {status}"
        assert visit.page.locator("html").get_attribute("lang") == "de", url
        pages[url] = set(visit.page.eval_on_selector_all("[id]", "nodes => nodes.map(n => n.id)"))
        for href in visit.page.eval_on_selector_all("a[href]", "nodes => nodes.map(n => n.href)"):
            target, _ = urldefrag(href)
            if urlsplit(href).netloc != urlsplit(root).netloc or not target.startswith(root):
                continue  # another site (e.g. a project page): not ours to check
            links.append((url, href))
            if target not in pages:
                queue.append(target)
    assert len(pages) >= 30, sorted(pages)
    assert visit.problems == []
    broken = []
    for source, href in links:
        target, fragment = urldefrag(href)
        if target not in pages:
            broken.append(f"{source} → {href}: not loaded")
        elif fragment and fragment not in pages[target]:
            broken.append(f"{source} → {href}: no element with id {fragment!r}")
    assert broken == []

    # The search, as a reader uses it: type the German title, the first hit is the tool's page.
    assert visit.open(root) == 200
    search = visit.page.locator("input.md-search__input")
    search.click()
    search.press_sequentially(TOOL_TITLE, delay=20)  # typed like a reader types (the search listens to keys)
    first = visit.page.locator(".md-search-result__item a").first
    first.wait_for(state="visible")
    assert urlsplit(first.get_attribute("href") or "").path.endswith(f"/docs/{TOOL_PAGE}")
    assert TOOL_TITLE in first.inner_text()
    first.click()
    visit.page.wait_for_url(f"**/{TOOL_PAGE}*")
    assert visit.page.locator("h1").first.inner_text().rstrip("¶") == TOOL_TITLE  # ¶: the permalink
    assert visit.problems == []


def test_screenshots_of_the_start_page_and_a_tool_page(browser: object, live_server: LiveServer, tmp_path: Path) -> None:
    visit = Visit(browser)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in (("start.png", ""), ("werkzeug.png", TOOL_PAGE)):
        assert visit.open(f"{live_server.base_url}/docs/{path}") == 200
        shot = tmp_path / name
        visit.page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000, name  # a rendered page, not a blank one
        target = SCREENSHOTS / name
        if not target.is_file() or target.read_bytes() != shot.read_bytes():
            shutil.copyfile(shot, target)
    assert visit.problems == []
