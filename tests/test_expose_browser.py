"""What a person sees, looked at (issue 33): Debian's Chromium (Playwright) opens, over real HTTP, the public exposé
with photos and without, the gone page, the office's stock page and an inquiry to the office, and the confirmation page a seeker reaches through
"Anfrage stellen" (login, message, draft); each at phone (390 px) and desktop (1280 px) width, with no horizontal
scrolling on the phone, no failed request, and no WCAG 2.1 AA violation axe-core finds (injected from
tests/fixtures/mcp_host/node_modules, installed by `npm ci`). The screenshots go to docs/ansichten/ (written when
missing or with ATHAUS_UPDATE_SCREENSHOTS=1; then `athaus docs build`), where the docs page "Was Menschen sehen" shows them.

The photos' URLs point to this deployment (the image store serves them there); the test answers them in the browser
with a drawn stand-in, as the store is not part of this page."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text, update

from shared.db.models import CatalogState, Listing
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import LiveServer, seeded_database
from tests.test_docs_browser import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "tests" / "fixtures" / "mcp_host" / "node_modules" / "axe-core" / "axe.min.js"
PICTURES = ROOT / "docs" / "ansichten"
WIDTHS = {"handy": 390, "desktop": 1280}
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAND_IN = (  # a drawn "photo" for the image store's URLs: sky, a facade, windows
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1">'
    '<stop offset="0" stop-color="#8fb8de"/><stop offset="1" stop-color="#dce9f5"/></linearGradient></defs>'
    '<rect width="800" height="600" fill="url(#s)"/><rect y="470" width="800" height="130" fill="#7a9a5b"/>'
    '<rect x="180" y="170" width="440" height="300" fill="#efe2cf"/><path d="M150 180L400 60l250 120z" fill="#8b3a2b"/>'
    + "".join(f'<rect x="{x}" y="{y}" width="60" height="70" fill="#4a6a8a"/>' for x in (230, 370, 510) for y in (220, 340))
    + "</svg>"
)
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("expose-browser"), "expose_browser") as database:
        yield database


@pytest.fixture(scope="module")
def server(db: Database) -> Iterator[LiveServer]:
    with LiveServer(db, public_at_bind=True) as live:
        yield live


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.is_file():
        reason = f"Chromium fehlt ({CHROMIUM}); scripts/test installiert es als root mit `apt-get install chromium`"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    if not AXE.is_file():
        reason = f"axe-core fehlt ({AXE}); `npm ci` in tests/fixtures/mcp_host installiert es"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def listing_ref(db: Database, n: int, **where: object) -> str:
    with db.read_only() as session:
        query = select(Listing.ref).where(Listing.status == "published", *(getattr(Listing, k) == v for k, v in where.items()))
        return str(session.scalars(query.order_by(Listing.id).offset(n).limit(1)).one())


def change(db: Database, ref: str, **values: object) -> None:
    with db.unit_of_work() as session:
        session.execute(update(Listing).where(Listing.ref == ref).values(**values))
        session.execute(update(CatalogState).values(revision=CatalogState.revision + 1))


class Look:
    """One browser context (CSP bypassed only so axe-core's script can be injected), its failed requests."""

    def __init__(self, chromium: Any, server: LiveServer, width: int) -> None:
        self.context = chromium.new_context(viewport={"width": width, "height": 900}, locale="de-DE", bypass_csp=True)
        self.page = self.context.new_page()
        self.width = width
        self.failed: list[str] = []
        self.page.on("requestfailed", lambda request: self.failed.append(request.url))
        self.page.on("response", lambda response: self.failed.append(f"{response.status} {response.url}") if response.status >= 400 and response.request.resource_type != "document" else None)
        self.context.route(f"{server.base_url}/bilder/**", lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=STAND_IN))

    def check(self, name: str, tmp: Path) -> None:
        """No horizontal scrolling, every image loaded, no axe violation; the screenshot kept under docs/ansichten/."""
        page = self.page
        assert page.evaluate("document.documentElement.scrollWidth") <= self.width, name
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the lazy photos below the fold load too
        page.wait_for_function("[...document.images].every(i => i.complete)", timeout=10_000)
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("[...document.images].filter(i => i.naturalWidth === 0).map(i => i.src)") == [], name
        page.add_script_tag(path=str(AXE))
        result = page.evaluate(f"axe.run(document, {{runOnly: {{type: 'tag', values: {AXE_TAGS}}}}})")
        violations = [(v["id"], [node["target"] for node in v["nodes"]]) for v in result["violations"]]
        assert violations == [], name
        shot = tmp / f"{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 5_000, name
        PICTURES.mkdir(parents=True, exist_ok=True)
        target = PICTURES / f"{name}.png"
        # Written when missing or asked for: a draft's number and expiry differ from run to run, and the docs site
        # built from these pictures must stay as committed.
        if not target.is_file() or os.environ.get("ATHAUS_UPDATE_SCREENSHOTS"):
            shutil.copyfile(shot, target)

    def log_in(self, email: str, password: str) -> None:
        self.page.fill("#email", email)
        self.page.fill("#password", password)
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state()


@pytest.fixture(scope="module")
def refs(server: LiveServer, db: Database) -> dict[str, str]:
    """The listings looked at, prepared once: one with photos (and its floor plan), one without, one sold, one own."""
    base = server.base_url
    with_photos = listing_ref(db, 0, address_published=True, marketing_type="buy")
    change(
        db,
        with_photos,
        photos=[
            {"url": f"{base}/bilder/{with_photos}/1.jpg", "caption": "Ansicht von der Straße"},
            {"url": f"{base}/bilder/{with_photos}/2.jpg", "caption": "Wohnzimmer"},
            {"url": f"{base}/bilder/{with_photos}/3.jpg", "caption": "Küche"},
            {"url": f"{base}/bilder/{with_photos}/4.jpg", "caption": "Grundriss Erdgeschoss"},
        ],
    )
    without = listing_ref(db, 1, address_published=False, marketing_type="rent")
    gone = next(ref for n in range(5) if (ref := listing_ref(db, n)) not in (with_photos, without))
    change(db, gone, status="sold")
    own = listing_ref(db, 0, office_id=1)
    with db.read_only() as session:
        inquiry = session.execute(
            text("SELECT i.ref FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 1 ORDER BY i.id LIMIT 1")
        ).scalar_one()
    return {"with_photos": with_photos, "without": without, "gone": gone, "own": own, "inquiry": inquiry}


@pytest.mark.parametrize("size", list(WIDTHS))
def test_every_page_of_a_listing_looked_at(chromium: Any, server: LiveServer, refs: dict[str, str], size: str, tmp_path: Path) -> None:
    base = server.base_url
    with_photos, without, gone, own = refs["with_photos"], refs["without"], refs["gone"], refs["own"]
    look = Look(chromium, server, WIDTHS[size])
    try:
        page = look.page
        assert page.goto(f"{base}/inserate/{with_photos}").status == 200
        look.check(f"expose-mit-fotos-{size}", tmp_path)
        assert page.goto(f"{base}/inserate/{gone}").status == 410
        look.check(f"nicht-mehr-verfuegbar-{size}", tmp_path)
        assert page.goto(f"{base}/inserate/{without}").status == 200
        look.check(f"expose-ohne-fotos-{size}", tmp_path)

        # "Anfrage stellen": the login, the message, the draft on its confirmation page
        page.click("text=Anfrage stellen")
        page.wait_for_load_state()
        assert page.url.startswith(f"{base}/app/anmelden?weiter=")
        look.log_in(SEEKER.email, SEEKER.password)
        assert page.url == f"{base}/app/anfrage/{without}"
        look.check(f"anfrage-{size}", tmp_path)
        page.click("text=Anfrage vorbereiten")
        page.wait_for_load_state()
        assert page.url.startswith(f"{base}/app/bestaetigungen/C-")
        assert page.locator(f'.card a[href="/inserate/{without}"]').count() == 1
        look.check(f"bestaetigung-{size}", tmp_path)
    finally:
        look.context.close()

    office = Look(chromium, server, WIDTHS[size])
    try:
        office.page.goto(f"{base}/app/bestand/{own}")
        office.log_in(OWNER.email, OWNER.password)
        assert office.page.url == f"{base}/app/bestand/{own}"
        office.check(f"bestand-{size}", tmp_path)
        assert office.page.goto(f"{base}/app/anfragen/{refs['inquiry']}").status == 200
        office.check(f"anfrage-buero-{size}", tmp_path)
        assert office.failed == []
    finally:
        office.context.close()
    assert look.failed == []
