"""Stored images in the sizes a page and an app need (issue 33 item 2): `/bilder/<size>/<name>` (klein, mittel,
gross) made by Pillow on first request and kept in the store; immutable caching, ETag and 304, nosniff; and only for
listings the caller may see: a published listing's photo for anyone, a draft's only for signed-in people of its office
(web-app session), otherwise a 404 exactly as for an unknown name. Over ASGI on the real app and both databases.

The photo is generated here by Pillow (1600 × 1200, one colour per half, so a wrong crop would show)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select, update
from starlette.testclient import TestClient

from athaus.app import create_app
from shared.db.models import CatalogState, Listing
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.images import FolderStore
from shared.settings import Settings
from tests.conftest import seeded_database
from tests.test_webapp import hidden

BASE = "http://127.0.0.1:8000"
OWNER_1 = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
OTHER_OFFICE = next(a for a in DEMO_ACCOUNTS if a.office_id not in (None, 1))
NOT_FOUND = "Dieses Bild gibt es nicht (mehr): bitte das Inserat neu laden."


def photo_jpeg(width: int = 1600, height: int = 1200) -> bytes:
    image = Image.new("RGB", (width, height), (40, 90, 160))
    image.paste((200, 160, 60), (0, height // 2, width, height))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("sizes"), "sizes", listings=20) as database:
        yield database


@pytest.fixture
def images(tmp_path: Path) -> Path:
    return tmp_path / "images"


def app_client(db: Database, images: Path) -> TestClient:
    settings = Settings(database_url=str(db.engine.url), secret_key="sizes-test-secret", public_url=BASE, images_dir=str(images))
    return TestClient(create_app(settings, db), base_url=BASE, follow_redirects=False)


def listing_with_photo(db: Database, images: Path, status: str) -> tuple[str, str]:
    """A listing of office 1 set to `status`, showing a freshly stored photo: (its ref, the image's name)."""
    name = FolderStore(images).put(photo_jpeg()).name
    with db.unit_of_work() as session:
        ref = session.scalar(select(Listing.ref).order_by(Listing.id).limit(1))
        photos = [{"url": f"{BASE}/bilder/{name}", "caption": "Ansicht", "group": "title"}]
        session.execute(update(Listing).where(Listing.ref == ref).values(photos=photos, status=status, office_id=1))
        session.execute(update(CatalogState).values(revision=CatalogState.revision + 1))
    return ref, name


def signed_in(browser: TestClient, account: object) -> TestClient:
    login = browser.get("/app/anmelden")
    answer = browser.post("/app/anmelden", data={"csrf_token": hidden(login.text, "csrf_token"), "email": account.email,  # type: ignore[attr-defined]
                                                  "password": account.password})  # type: ignore[attr-defined]
    assert answer.status_code == 303
    return browser


def size_of(data: bytes) -> tuple[str, int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.format or "", image.width, image.height


def test_a_published_listings_photo_comes_in_three_sizes_cached_for_good(db: Database, images: Path) -> None:
    _, name = listing_with_photo(db, images, "published")
    browser = app_client(db, images)
    answers = {size: browser.get(f"/bilder/{size}/{name}") for size in ("klein", "mittel", "gross")}
    original = browser.get(f"/bilder/{name}")
    assert {size: (a.status_code, size_of(a.content)) for size, a in answers.items()} == {
        "klein": (200, ("JPEG", 480, 360)), "mittel": (200, ("JPEG", 1024, 768)), "gross": (200, ("JPEG", 1600, 1200)),
    }
    assert (original.status_code, size_of(original.content)) == (200, ("JPEG", 1600, 1200))
    small = answers["klein"]
    assert {k: small.headers.get(k) for k in ("content-type", "cache-control", "x-content-type-options", "etag")} == {
        "content-type": "image/jpeg", "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff",
        "etag": f'"{name.split(".")[0]}-klein"',
    }
    # made once, kept in the store: a second request reads the kept file
    assert sorted(p.relative_to(images).parts[:2] for p in (images / "groessen").rglob("*.jpg")) == [
        ("groessen", "gross"), ("groessen", "klein"), ("groessen", "mittel")]
    again = browser.get(f"/bilder/klein/{name}", headers={"If-None-Match": small.headers["etag"]})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", small.headers["etag"])
    other = browser.get(f"/bilder/klein/{name}", headers={"If-None-Match": '"anders"'})
    assert (other.status_code, other.content) == (200, small.content)


def test_a_drafts_photo_only_for_its_office_otherwise_exactly_an_unknown_name(db: Database, images: Path) -> None:
    _, name = listing_with_photo(db, images, "draft")
    stranger = app_client(db, images)
    unknown = stranger.get("/bilder/mittel/" + "0" * 32 + ".jpg")
    hidden_answers = [stranger.get(f"/bilder/mittel/{name}"), stranger.get(f"/bilder/{name}"),
                      signed_in(app_client(db, images), OTHER_OFFICE).get(f"/bilder/mittel/{name}")]
    seen = [(a.status_code, a.text, a.headers["content-type"], a.headers.get("cache-control")) for a in hidden_answers]
    assert seen == [(404, NOT_FOUND, "text/plain; charset=utf-8", None)] * 3
    assert (unknown.status_code, unknown.text, unknown.headers["content-type"]) == (404, NOT_FOUND, "text/plain; charset=utf-8")
    office = signed_in(app_client(db, images), OWNER_1).get(f"/bilder/mittel/{name}")
    assert (office.status_code, size_of(office.content), office.headers["cache-control"], office.headers["vary"]) == (
        200, ("JPEG", 1024, 768), "private, max-age=31536000, immutable", "Cookie")


def test_a_withdrawn_listings_photo_is_hidden_and_a_bad_size_or_name_is_unknown(db: Database, images: Path) -> None:
    _, name = listing_with_photo(db, images, "withdrawn")
    browser = app_client(db, images)
    answers = [browser.get(f"/bilder/klein/{name}"), browser.get(f"/bilder/riesig/{name}"), browser.get("/bilder/klein/%25.jpg")]
    assert [(a.status_code, a.text) for a in answers] == [(404, NOT_FOUND)] * 3
    assert not (images / "groessen").exists()  # nothing made for a caller who may not see it
