"""Stored images (shared/images/) and the ZIP transfer CRMs send (issue 32): photos and floor plans of the ZIP become
Athaus's own images (type and size checked, metadata stripped, decompression bombs refused), with group and caption,
served at stable URLs under the public address; a file that cannot be had is named in the object's result.

The ZIP is built here from the onOffice export of the corpus (../shared/openimmo-corpus/, skipped without it) and
photos made by Pillow, one carrying EXIF with a GPS position."""

from __future__ import annotations

import base64
import dataclasses
import io
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from PIL import Image
from sqlalchemy import select, update

from bench.openimmo_corpus import corpus_dir, corpus_missing
from broker_server.server import DEFINITION as BROKER
from shared.auth.principal import Principal
from shared.db.models import Listing, Office, OfficeMember
from shared.db.session import Database
from shared.images import FolderStore, ImageRefused
from tests.conftest import Caller, LiveServer, make_context, seeded_database

CORPUS = corpus_dir()
ONOFFICE = "onoffice-export_eblick-contao-openimmo_demo_data1.xml"


def jpeg(width: int = 64, height: int = 48, *, gps: bool = False) -> bytes:
    image = Image.new("RGB", (width, height), (180, 120, 60))
    exif = Image.Exif()
    exif[0x010F] = "KameraHersteller"  # Make
    if gps:
        exif[0x8825] = {1: "N", 2: (50.0, 46.0, 0.0), 3: "E", 4: (6.0, 5.0, 0.0)}  # GPSInfo: where the photo was taken
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


def test_a_jpeg_is_stored_without_its_exif_under_a_stable_name(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    original = jpeg(gps=True)
    assert Image.open(io.BytesIO(original)).getexif()  # the camera data is there before
    stored = store.put(original)
    again = store.put(original)
    data, content_type = store.get(stored.name) or (b"", "")
    assert (again.name, content_type, stored.width, stored.height) == (stored.name, "image/jpeg", 64, 48)
    assert stored.name.endswith(".jpg") and len(stored.name) == 36
    with Image.open(io.BytesIO(data)) as image:
        assert (image.format, dict(image.getexif()), image.info.get("exif")) == ("JPEG", {}, None)


def test_what_is_no_photo_is_refused_saying_why(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    bomb = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(bomb, "PNG")  # 100 megapixels in a few kilobytes
    tiny = io.BytesIO()
    Image.new("RGB", (4, 4)).save(tiny, "PNG")
    gif = io.BytesIO()
    Image.new("RGB", (64, 64)).save(gif, "GIF")
    refusals = []
    large = io.BytesIO()
    Image.new("1", (8_000, 6_000)).save(large, "PNG")  # 48 megapixels: below Pillow's own bomb limit, above ours
    for data in (bomb.getvalue(), large.getvalue(), tiny.getvalue(), gif.getvalue(), b"<?xml version='1.0'?><svg/>", jpeg()[:200]):
        with pytest.raises(ImageRefused) as refused:
            store.put(data)
        refusals.append(refused.value.german)
    assert refusals == [
        "Das Bild würde entpackt mehr Pixel haben, als ein Foto hat; es wird nicht gelesen.",
        "Das Bild hat 8000 × 6000 Pixel, mehr als ein Foto hat (höchstens 40 Megapixel).",
        "Das Bild ist mit 4 × 4 Pixeln zu klein für ein Foto.",
        "Die Datei ist kein JPEG-, PNG- oder WebP-Bild.",
        "Die Datei ist kein lesbares Bild (beschädigt oder ein anderes Format).",
        "Die Datei ist kein lesbares Bild (beschädigt oder ein anderes Format).",
    ]
    assert list(tmp_path.iterdir()) == []  # nothing stored
    assert [store.get(name) for name in ("../../etc/passwd", "x" * 32 + ".jpg", "a" * 32 + ".exe")] == [None, None, None]


def crm_zip(*, leave_out: str = "Bad.jpg", broken: str = "Zimmer2.jpg") -> bytes:
    """The onOffice export as the CRM sends it: the XML and the files it names (one left out, one no image)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("export/openimmo.xml", (CORPUS / ONOFFICE).read_bytes())
        for name in ("Titel.jpg", "Essbereich.jpg", "Zimmer1.jpg", "Zimmer2.jpg", "Bad.jpg", "Grundriss.jpg"):
            if name != leave_out:
                archive.writestr(f"export/{name}", b"kein Bild" if name == broken else jpeg(64 + len(name), 48, gps=True))
    return out.getvalue()


@pytest.fixture
def db(tmp_path: Path) -> Any:
    with seeded_database(tmp_path, "images", listings=20) as database:
        yield database


def broker(db: Database, images: Path, public_url: str = "https://athaus.example") -> Caller:
    with db.read_only() as session:
        user = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == 1).order_by(OfficeMember.user_id).limit(1))
    context = make_context(db)
    context = dataclasses.replace(context, settings=context.settings.model_copy(update={"images_dir": str(images), "public_url": public_url}))
    principal = Principal(user_id=user, kind="broker", office_id=1, office_role="owner",
                          scopes=frozenset({"makler:schreiben", "makler:lesen"}), resource="http://127.0.0.1:8000/makler/mcp")
    return Caller(BROKER, context, principal)


@pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")
def test_a_zip_transfer_brings_its_photos_with_group_and_caption_and_names_what_it_cannot(db: Database, tmp_path: Path) -> None:
    images = tmp_path / "images"
    call = broker(db, images)
    result = call("import_listings", {"zip_base64": base64.b64encode(crm_zip()).decode(), "publish": False})
    first = result["results"][0]
    assert (first["objektnr_extern"], first["outcome"]) == ("AB123", "created")
    assert [n for n in first["not_imported"] if n["field"] == "anhaenge/anhang"] == [
        {"field": "anhaenge/anhang", "note": "Die Datei ‹Bad.jpg› fehlt in der ZIP-Übertragung."},
        {"field": "anhaenge/anhang", "note": "Die Datei ‹Zimmer2.jpg› ist nicht übernommen: Die Datei ist kein lesbares Bild "
                                             "(beschädigt oder ein anderes Format)."},
    ]
    with db.read_only() as session:
        photos = session.scalar(select(Listing.photos).where(Listing.external_id == "AB123"))
    assert [(p["caption"], p["group"]) for p in photos] == [
        ("Haus Fassade", "title"), ("Erdgeschoss Wohn-/ Essbereich", "photo"), ("1. Etage Zimmer", "photo"),
        ("Grundriss (optimiert)", "floor_plan"),
    ]
    assert all(p["url"].startswith("https://athaus.example/bilder/") and p["url"].endswith(".jpg") for p in photos)
    assert len(list(images.rglob("*.jpg"))) == 4
    detail = call("get_listing", {"listing_id": first["listing_id"]})
    assert [p["group"] for p in detail["photos"]] == ["title", "photo", "photo", "floor_plan"]
    # the same ZIP again changes nothing: the stored names are the photos' digests
    again = call("import_listings", {"zip_base64": base64.b64encode(crm_zip()).decode(), "publish": False})
    assert [r["outcome"] for r in again["results"]] == ["unchanged", "unchanged", "unchanged"]


@pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")
def test_stored_photos_are_served_at_their_url_over_http_without_metadata(db: Database, tmp_path: Path) -> None:
    images = tmp_path / "images"
    with LiveServer(db, public_at_bind=True, images_dir=str(images)) as server:
        call = broker(db, images, public_url=server.base_url)
        call("import_listings", {"zip_base64": base64.b64encode(crm_zip()).decode(), "publish": False})
        with db.unit_of_work() as session:  # a draft's photo is its office's only (tests/test_image_sizes.py)
            session.execute(update(Listing).where(Listing.external_id == "AB123").values(status="published"))
            photos = session.scalar(select(Listing.photos).where(Listing.external_id == "AB123"))
        response = httpx.get(photos[0]["url"])
        missing = httpx.get(server.base_url + "/bilder/" + "0" * 32 + ".jpg")
    assert (response.status_code, response.headers["content-type"], response.headers["x-content-type-options"]) == (
        200, "image/jpeg", "nosniff")
    assert dict(Image.open(io.BytesIO(response.content)).getexif()) == {}
    assert (missing.status_code, missing.text) == (404, "Dieses Bild gibt es nicht (mehr): bitte das Inserat neu laden.")


def test_a_zip_bomb_or_a_zip_without_one_xml_is_refused_and_nothing_changes(db: Database, tmp_path: Path) -> None:
    call = broker(db, tmp_path / "images")
    bomb, empty = io.BytesIO(), io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("openimmo.xml", "<openimmo/>")
        archive.writestr("huge.jpg", b"\0" * (20 * 1024 * 1024))
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("bild.jpg", jpeg())
    got = [call.error("import_listings", {"zip_base64": base64.b64encode(data.getvalue()).decode()}) for data in (bomb, empty)]
    assert got == [
        ("INVALID_ARGUMENT", "Die ZIP-Übertragung wäre entpackt unverhältnismäßig groß (eine ZIP-Bombe?). Nichts wurde "
                             "geändert; bitte die ZIP-Übertragung prüfen."),
        ("INVALID_ARGUMENT", "Die ZIP-Übertragung enthält keine XML-Datei; erwartet ist genau eine OpenImmo-XML-Datei. "
                             "Nichts wurde geändert; bitte die ZIP-Übertragung prüfen."),
    ]
    assert call.error("import_listings", {"zip_base64": "nicht base64!"})[0] == "INVALID_ARGUMENT"


@pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")
@respx.mock
def test_a_zip_at_the_offices_feed_address_is_imported_with_its_photos(db: Database, tmp_path: Path) -> None:
    url = "https://feed.example.org/office-1/openimmo.zip"  # a name tests resolve (tests/conftest.py TEST_NAMES)
    with db.unit_of_work() as session:
        session.execute(update(Office).where(Office.id == 1).values(openimmo_feed_url=url))
    respx.get(url).mock(return_value=httpx.Response(200, content=crm_zip(leave_out="", broken=""),
                                                    headers={"content-type": "application/zip"}))
    result = broker(db, tmp_path / "images")("import_listings", {"from_feed": True, "publish": False})
    assert (result["source"], [r["outcome"] for r in result["results"]]) == ("feed", ["created", "created", "created"])
    with db.read_only() as session:
        photos = session.scalar(select(Listing.photos).where(Listing.external_id == "AB123"))
    assert [p["group"] for p in photos] == ["title", "photo", "photo", "photo", "photo", "floor_plan"]
    assert [n["field"] for n in result["results"][0]["not_imported"]].count("anhaenge/anhang") == 0


@pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")
def test_the_xml_alone_after_its_zip_keeps_the_photos_the_zip_brought(db: Database, tmp_path: Path) -> None:
    call = broker(db, tmp_path / "images")
    call("import_listings", {"zip_base64": base64.b64encode(crm_zip()).decode(), "publish": False})
    result = call("import_listings", {"xml": (CORPUS / ONOFFICE).read_text(encoding="utf-8"), "publish": False})
    assert [r["outcome"] for r in result["results"]] == ["unchanged", "unchanged", "unchanged"]
    with db.read_only() as session:
        photos = session.scalar(select(Listing.photos).where(Listing.external_id == "AB123"))
    assert len(photos) == 4


@respx.mock
def test_photos_at_public_urls_are_fetched_into_the_store_and_one_that_cannot_be_had_is_named(db: Database, tmp_path: Path) -> None:
    """An OpenImmo transfer naming its photos at public URLs (`location="REMOTE"`): the object built by
    shared/demo/openimmo.py, its one photo swapped for three at mirror.example.org (a name tests resolve to a global
    address); the photos themselves are drawn here by Pillow and answered by respx."""
    from shared.demo.openimmo import object_xml, transfer

    base = "https://mirror.example.org/obj-1"
    remote = (
        '<anhaenge><anhang location="REMOTE" gruppe="BILD"><anhangtitel>Küche</anhangtitel><daten><pfad>'
        f'{base}/kueche.jpg</pfad></daten></anhang><anhang location="REMOTE" gruppe="TITELBILD"><anhangtitel>Ansicht</anhangtitel>'
        f'<daten><pfad>{base}/ansicht.jpg</pfad></daten></anhang><anhang location="REMOTE" gruppe="GRUNDRISS"><anhangtitel>EG'
        f'</anhangtitel><daten><pfad>{base}/fehlt.png</pfad></daten></anhang><anhang location="REMOTE" gruppe="BILD">'
        f'<anhangtitel>Kaputt</anhangtitel><daten><pfad>{base}/kaputt.jpg</pfad></daten></anhang></anhaenge>'
    )
    one = object_xml("R-1", 1)
    one = one[: one.index("<anhaenge>")] + remote + one[one.index("</anhaenge>") + len("</anhaenge>"):]
    kitchen, view = jpeg(80, 60, gps=True), jpeg(120, 90)
    respx.get(f"{base}/kueche.jpg").mock(return_value=httpx.Response(200, content=kitchen, headers={"content-type": "image/jpeg"}))
    respx.get(f"{base}/ansicht.jpg").mock(return_value=httpx.Response(200, content=view, headers={"content-type": "image/jpeg"}))
    respx.get(f"{base}/fehlt.png").mock(return_value=httpx.Response(404))
    respx.get(f"{base}/kaputt.jpg").mock(return_value=httpx.Response(200, content=b"kein Bild", headers={"content-type": "image/jpeg"}))
    images = tmp_path / "images"
    result = broker(db, images)("import_listings", {"xml": transfer([one]), "publish": False})
    first = result["results"][0]
    assert first["outcome"] == "created"
    assert [n for n in first["not_imported"] if n["field"] == "anhaenge/anhang"] == [
        {"field": "anhaenge/anhang", "note": f"Das Foto ‹{base}/fehlt.png› konnte nicht geladen werden: Die Adresse antwortet "
                                             "mit HTTP 404 statt mit dem Bild."},
        {"field": "anhaenge/anhang", "note": f"Das Foto ‹{base}/kaputt.jpg› ist nicht übernommen: Die Datei ist kein lesbares "
                                             "Bild (beschädigt oder ein anderes Format)."},
    ]
    with db.read_only() as session:
        photos = session.scalar(select(Listing.photos).where(Listing.external_id == "R-1"))
    store = FolderStore(images)
    assert [(p["caption"], p["group"], p["url"].rsplit("/", 1)[0]) for p in photos] == [
        ("Ansicht", "title", "https://athaus.example/bilder"), ("Küche", "photo", "https://athaus.example/bilder")]
    kept = [store.get(p["url"].rsplit("/", 1)[1]) for p in photos]
    assert [(Image.open(io.BytesIO(k[0])).size, dict(Image.open(io.BytesIO(k[0])).getexif())) for k in kept if k] == [((120, 90), {}), ((80, 60), {})]


@respx.mock
def test_a_listing_says_why_it_has_no_photos_in_both_servers(db: Database, tmp_path: Path) -> None:
    """Objects of shared/demo/openimmo.py: one without any attachment, one naming two photos at a public URL that
    answers 404 (respx). get_listing of the broker and of the search server name the reason the import found."""
    from search_server.server import DEFINITION as SEARCH
    from shared.demo.openimmo import object_xml, transfer

    def with_attachments(key: str, number: int, attachments: str) -> str:
        one = object_xml(key, number)
        return one[: one.index("<anhaenge>")] + attachments + one[one.index("</anhaenge>") + len("</anhaenge>"):]

    base = "https://mirror.example.org/obj-2"
    remote = "".join(f'<anhang location="REMOTE" gruppe="BILD"><daten><pfad>{base}/{n}.jpg</pfad></daten></anhang>' for n in (1, 2))
    respx.get(url__startswith=base).mock(return_value=httpx.Response(404))
    call = broker(db, tmp_path / "images")
    result = call("import_listings", {"xml": transfer([with_attachments("N-1", 1, ""), with_attachments("N-2", 2, f"<anhaenge>{remote}</anhaenge>")]),
                                      "publish": True})
    assert [(r["objektnr_extern"], r["outcome"], r.get("refusal")) for r in result["results"]] == [("N-1", "created", None), ("N-2", "created", None)]
    ids = {r["objektnr_extern"]: r["listing_id"] for r in result["results"]}
    search = Caller(SEARCH, make_context(db))

    def photo_lines(caller: Caller, ref: str) -> tuple[dict[str, str], list[str]]:
        result = caller.raw("get_listing", {"listing_id": ref})
        return ({"photos": result.structured_content["absent"]["photos"]},
                [line for line in result.content[0].text.splitlines() if line.startswith("Fotos:")])

    with db.unit_of_work() as session:  # without a photo not publishable; published here so the search server shows it
        session.execute(update(Listing).where(Listing.external_id.in_(["N-1", "N-2"])).values(status="published"))
    for caller in (call, search):
        assert photo_lines(caller, ids["N-1"]) == (
            {"photos": "empty_in_source"}, ["Fotos: – (keine Angabe: Der Anbieter hat keine Fotos geschickt.)"])
        assert photo_lines(caller, ids["N-2"]) == (
            {"photos": "empty_in_source"}, ["Fotos: – (keine Angabe: Die Übertragung nannte 2 Fotos, die nicht geladen werden konnten.)"])
