"""What a person sees, looked at (issue 33): Debian's Chromium (Playwright) opens, over real HTTP, the public exposé
with photos and without, the gone page, the office's stock page and an inquiry to the office, and the confirmation page a seeker reaches through
"Anfrage stellen" (login, message, draft); each at phone (390 px) and desktop (1280 px) width, with no horizontal
scrolling on the phone, no failed request, and no WCAG 2.1 AA violation axe-core finds (injected from
tests/fixtures/mcp_host/node_modules, installed by `npm ci`). The screenshots go to docs/ansichten/ (written when
missing or with ATHAUS_UPDATE_SCREENSHOTS=1; then `athaus docs build`), where the docs page "Was Menschen sehen" shows them.

The exposé's photos are real stored images: JPEGs drawn here by Pillow, put into the deployment's image store and served
by it (`/bilder/mittel/…` in the gallery, linked to `/bilder/gross/…`), with their groups (title photo, photos, floor
plan)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import io

import pytest
from PIL import Image, ImageDraw
from sqlalchemy import select, text, update

from shared.db.models import CatalogState, Listing
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.images import FolderStore
from tests.conftest import LiveServer, seeded_database
from tests.test_docs_browser import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "tests" / "fixtures" / "mcp_host" / "node_modules" / "axe-core" / "axe.min.js"
PICTURES = ROOT / "docs" / "ansichten"
WIDTHS = {"handy": 390, "desktop": 1280}
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)


def drawn_photo(sky: tuple[int, int, int], wall: tuple[int, int, int], *, plan: bool = False) -> bytes:
    """A small generated JPEG standing in for a photo (sky, a facade, windows) or a floor plan (lines on white)."""
    image = Image.new("RGB", (1200, 900), (255, 255, 255) if plan else sky)
    draw = ImageDraw.Draw(image)
    if plan:
        draw.rectangle((100, 100, 1100, 800), outline=(30, 30, 30), width=12)
        draw.line((600, 100, 600, 800), fill=(30, 30, 30), width=8)
        draw.line((100, 450, 600, 450), fill=(30, 30, 30), width=8)
    else:
        draw.rectangle((0, 700, 1200, 900), fill=(122, 154, 91))
        draw.rectangle((270, 255, 930, 705), fill=wall)
        draw.polygon([(225, 270), (600, 90), (975, 270)], fill=(139, 58, 43))
        for x in (345, 555, 765):
            for y in (330, 510):
                draw.rectangle((x, y, x + 90, y + 105), fill=(74, 106, 138))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("expose-browser"), "expose_browser") as database:
        yield database


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("expose-images")


@pytest.fixture(scope="module")
def server(db: Database, images: Path) -> Iterator[LiveServer]:
    with LiveServer(db, public_at_bind=True, images_dir=str(images)) as live:
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
def refs(server: LiveServer, db: Database, images: Path) -> dict[str, str]:
    """The listings looked at, prepared once: one with stored photos (and its floor plan), one without, one sold, one
    own."""
    base = server.base_url
    with_photos = listing_ref(db, 0, address_published=True, marketing_type="buy")
    store = FolderStore(images)
    shown = [  # the record's order; the groups put the title photo first and the floor plan apart
        (drawn_photo((200, 215, 225), (220, 205, 185)), "Wohnzimmer", "photo"),
        (drawn_photo((143, 184, 222), (239, 226, 207)), "Ansicht von der Straße", "title"),
        (drawn_photo((250, 220, 170), (200, 190, 170)), "Garten", "photo"),
        (drawn_photo((0, 0, 0), (0, 0, 0), plan=True), "Erdgeschoss", "floor_plan"),
    ]
    photos = [{"url": f"{base}/bilder/{store.put(data).name}", "caption": caption, "group": group} for data, caption, group in shown]
    change(db, with_photos, photos=photos)
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
        shown = page.evaluate("[...document.querySelectorAll('figure img')].map(i => [i.closest('a').href, i.currentSrc, i.naturalWidth, i.alt])")
        assert [(link.split("/bilder/")[1].split("/")[0], src.split("/bilder/")[1].split("/")[0], width, alt) for link, src, width, alt in shown] == [
            ("gross", "mittel", 1024, "Ansicht von der Straße"), ("gross", "mittel", 1024, "Wohnzimmer"),
            ("gross", "mittel", 1024, "Garten"), ("gross", "mittel", 1024, "Erdgeschoss"),
        ]
        assert page.locator("#grundrisse ~ .gallery img, section[aria-labelledby=grundrisse] img").count() == 1
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
