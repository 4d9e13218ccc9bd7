"""What a person sees of a listing (issue 33), over ASGI on a demo catalog of its own and the real database: the public
exposé as a portal shows it (gallery or labelled illustration, key facts, energy certificate per GEG §87, description
in paragraphs, location with a map link at the exact address only where published, provider, "Anfrage stellen"),
never a model's note, a quote frame or markup of others; OpenGraph; a gone listing answers 410 with similar ones, a
draft exactly as an unknown number; "Anfrage stellen" leads through the login to a draft on its confirmation page,
which shows the listing's card; the office's stock page shows the same pieces."""

from __future__ import annotations

import re
from types import SimpleNamespace
from collections.abc import Iterator
from html import unescape

import pytest
from sqlalchemy import select, text, update

from shared.db.models import CatalogState, Listing, PendingAction
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import seeded_database
from tests.test_webapp import client, hidden

BASE = "http://127.0.0.1:8000"
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
# What the model's text says and a person must never read: quote frames, notes of absent values, field names.
MODEL_WORDS = ("zitiert", "«", "Breitengrad", "Längengrad", "keine Angabe", "not_collected", "empty_in_source", "withheld",
               "include.", "Der Anbieter nennt", "Daten, keine Anweisung", "img.example.org", "coordinates_exact")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("expose"), "expose") as database:
        yield database


def change(db: Database, ref: str, **values: object) -> None:
    with db.unit_of_work() as session:
        session.execute(update(Listing).where(Listing.ref == ref).values(**values))
        session.execute(update(CatalogState).values(revision=CatalogState.revision + 1))


def published(db: Database, n: int = 0, **where: object) -> Listing:
    with db.read_only() as session:
        query = select(Listing).where(Listing.status == "published", *(getattr(Listing, k) == v for k, v in where.items()))
        listing = session.scalars(query.order_by(Listing.id).offset(n).limit(1)).one()
        return SimpleNamespace(**{column.key: getattr(listing, column.key) for column in Listing.__table__.columns})  # type: ignore[return-value]


def visible_text(page: str) -> str:
    """What a person reads: the body without tags (and without the inline drawing's markup)."""
    body = page[page.index("<body>") :]
    return unescape(re.sub(r"<[^>]+>", " ", body))


def meta(page: str, name: str) -> str | None:
    found = re.search(rf'<meta (?:property|name)="{re.escape(name)}" content="([^"]*)">', page)
    return unescape(found.group(1)) if found else None


def test_the_expose_shows_what_a_portal_shows_and_no_model_text(db: Database) -> None:
    listing = published(db, marketing_type="rent", address_published=False)
    change(db, listing.ref, description="Helle Wohnung.\n\nZweiter Absatz mit <b>Markup</b> & mehr.", price=800.0, service_charges=150.0, heating_costs=70.0)
    page = client(db).get(f"/inserate/{listing.ref}")
    assert page.status_code == 200
    text = page.text
    assert [word for word in MODEL_WORDS if word in visible_text(text)] == []
    assert re.search(r"<h1>(.*?)</h1>", text).group(1) == listing.title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#x27;")
    # the description in its paragraphs, the provider's markup as text
    assert "<p>Helle Wohnung.</p><p>Zweiter Absatz mit &lt;b&gt;Markup&lt;/b&gt; &amp; mehr.</p>" in text
    facts = dict(re.findall(r"<div><dt>([^<]+)</dt><dd>([^<]+)</dd></div>", text.split('id="eckdaten"')[1].split("</section>")[0]))
    assert (facts["Kaltmiete"], facts["Nebenkosten"], facts["Heizkosten"], facts["Warmmiete"]) == ("800 €", "150 €", "70 €", "1.020 €")
    # the address is not published: the area on the map, never the street
    assert f"https://www.openstreetmap.org/search?query={listing.postal_code}%20" in text and "mlat=" not in text
    assert listing.street not in visible_text(text)
    # no photo that loads: the drawing, labelled as an illustration, and no <img>
    assert "<img" not in text and "Illustration – noch kein Foto dieses Objekts" in text
    assert 'href="/app/anfrage/' + listing.ref + '">Anfrage stellen</a>' in text
    assert (meta(text, "og:title"), meta(text, "og:url"), meta(text, "og:image")) == (listing.title, f"{BASE}/inserate/{listing.ref}", None)
    assert meta(text, "og:description") == f"Warmmiete 1.020 € · {_measures(listing)}{listing.city}"
    assert "img-src 'self'" in page.headers["content-security-policy"]


def _measures(listing: Listing) -> str:
    from shared.webapp.listing import _num

    parts = [f"{_num(listing.rooms)} Zimmer" if listing.rooms is not None else "", f"{_num(listing.living_area)} m²" if listing.living_area is not None else ""]
    return "".join(part + " · " for part in parts if part)


def test_a_published_address_gets_the_map_at_the_address_and_own_photos_show(db: Database) -> None:
    listing = published(db, 1, address_published=True)
    title, room, plan = ("a" * 32 + ".jpg"), ("b" * 32 + ".jpg"), ("c" * 32 + ".png")
    photos = [  # in the record's order; the group, not the caption, says which is which
        {"url": "https://img.example.org/demo/x/1.jpg", "caption": "Fassade", "group": "title"},  # the demo's: never a broken image
        {"url": f"{BASE}/bilder/{room}", "caption": "Wohnzimmer (Grundriss offen)", "group": "photo"},
        {"url": f"{BASE}/bilder/{plan}", "caption": "Erdgeschoss", "group": "floor_plan"},
        {"url": f"{BASE}/bilder/{title}", "caption": "Ansicht", "group": "title"},
    ]
    change(db, listing.ref, photos=photos)
    text = client(db).get(f"/inserate/{listing.ref}").text
    lat, lon = f"{listing.latitude:.6f}", f"{listing.longitude:.6f}"
    assert f"https://www.openstreetmap.org/?mlat={lat}&amp;mlon={lon}#map=17/{lat}/{lon}" in text
    # the gallery shows the medium size, each linked to the large one; the title photo first, the floor plan apart
    assert re.findall(r'<a href="([^"]+)"><img src="([^"]+)"', text) == [
        (f"{BASE}/bilder/gross/{name}", f"{BASE}/bilder/mittel/{name}") for name in (title, room, plan)
    ]
    assert text.index(f'<figure class="lead"><a href="{BASE}/bilder/gross/{title}">') < text.index(room) < text.index('id="grundrisse"') < text.index(plan)
    assert meta(text, "og:image") == f"{BASE}/bilder/gross/{title}"
    assert "img.example.org" not in text
    # a card (the gone page's similar listings, the search app) shows the thumbnail
    from contract.catalog import ListingSummary, Photo
    from shared.webapp.listing import card_html
    card = card_html(ListingSummary.model_construct(
        listing_id=listing.ref, title="T", marketing_type="miete", property_type="wohnung", postal_code="54290", city="Trier",
        district=None, price=None, warm_rent=None, rooms=None, living_area=None, energy_class=None,
        photos=[Photo(**p) for p in photos]), href="/x", public_url=BASE)
    assert re.findall(r'<img src="([^"]+)"', card) == [f"{BASE}/bilder/klein/{title}"]


def test_energy_certificate_as_geg_87_asks(db: Database) -> None:
    listing = published(db, 2, energy_status="present", property_type="apartment")
    change(db, listing.ref, energy_certificate_type="consumption", energy_value=123.4, energy_carrier="Fernwärme", energy_year_built=1975, energy_class="D")
    text = client(db).get(f"/inserate/{listing.ref}").text
    section = text.split('id="energie"')[1].split("</section>")[0]
    facts = dict(re.findall(r"<div><dt>([^<]+)</dt><dd>(.*?)</dd></div>", section))
    assert {k: re.sub(r"<[^>]+>", "", v) for k, v in facts.items() if k != "Gültig bis"} == {
        "Art des Ausweises": "Verbrauchsausweis",
        "Endenergieverbrauch": "123,4 kWh/(m²·a)",
        "Wesentlicher Energieträger": "Fernwärme",
        "Baujahr": "1975",
        "Energieeffizienzklasse": "D",
    }
    change(db, listing.ref, energy_status="at_viewing")
    section = client(db).get(f"/inserate/{listing.ref}").text.split('id="energie"')[1].split("</section>")[0]
    assert re.sub(r"<[^>]+>", "", section.split("</h2>")[1]) == "Der Energieausweis liegt bei der Besichtigung vor."


def test_gone_is_410_with_similar_listings_and_a_draft_is_an_unknown_number(db: Database) -> None:
    listing = published(db, 3)
    change(db, listing.ref, status="withdrawn")
    browser = client(db)
    gone = browser.get(f"/inserate/{listing.ref}")
    assert gone.status_code == 410 and "Dieses Inserat ist nicht mehr verfügbar" in gone.text
    assert listing.title not in gone.text
    links = re.findall(r'<h3><a href="(/inserate/[^"]+)">', gone.text)
    with db.read_only() as session:
        rows = {r.ref: (r.status, r.city, r.marketing_type, r.property_type) for r in session.scalars(select(Listing).where(Listing.ref.in_([link.rsplit("/", 1)[1] for link in links])))}
    assert all(r == ("published", listing.city, listing.marketing_type, listing.property_type) for r in rows.values())
    assert len(rows) == len(links)
    draft = published(db, 4)
    change(db, draft.ref, status="draft", published_at=None)
    unknown = browser.get("/inserate/A-9999999")
    hidden_draft = browser.get(f"/inserate/{draft.ref}")
    assert (hidden_draft.status_code, hidden_draft.text) == (unknown.status_code, unknown.text) == (404, unknown.text)


def test_anfrage_stellen_leads_through_the_login_to_a_draft_to_confirm(db: Database) -> None:
    listing = published(db, 5)
    browser = client(db)
    first = browser.get(f"/app/anfrage/{listing.ref}")
    assert (first.status_code, first.headers["location"]) == (303, f"/app/anmelden?weiter=%2Fapp%2Fanfrage%2F{listing.ref}")
    login = browser.get(first.headers["location"])
    assert 'href="/oauth/konto-anlegen">Konto anlegen</a>' in login.text  # or sign up
    answer = browser.post(
        "/app/anmelden",
        data={"csrf_token": hidden(login.text, "csrf_token"), "email": SEEKER.email, "password": SEEKER.password, "weiter": f"/app/anfrage/{listing.ref}"},
    )
    assert answer.headers["location"] == f"/app/anfrage/{listing.ref}"
    form = browser.get(answer.headers["location"])
    assert form.status_code == 200 and 'name="nachricht"' in form.text
    refused = browser.post(f"/app/anfrage/{listing.ref}", data={"nachricht": "Ohne Token"})
    assert refused.status_code == 403
    message = "Ist die Wohnung noch frei? <Test>"
    fields = {"csrf_token": hidden(form.text, "csrf_token"), "anfrage_id": hidden(form.text, "anfrage_id"), "nachricht": message, "teilen": ["name", "email"]}
    sent = browser.post(f"/app/anfrage/{listing.ref}", data=fields)
    assert sent.status_code == 303 and sent.headers["location"].startswith("/app/bestaetigungen/C-")
    again = browser.post(f"/app/anfrage/{listing.ref}", data=fields)  # the same form sent twice (a double click, a reload)
    assert (again.status_code, again.headers["location"]) == (303, sent.headers["location"])
    ref = sent.headers["location"].rsplit("/", 1)[1]
    with db.read_only() as session:
        action = session.scalars(select(PendingAction).where(PendingAction.ref == ref)).one()
        assert (action.kind, action.subject_ref, action.status) == ("send_inquiry", listing.ref, "pending")
    page = browser.get(sent.headers["location"])
    assert page.status_code == 200 and "Ist die Wohnung noch frei? &lt;Test&gt;" in page.text
    assert f'<h2><a href="/inserate/{listing.ref}">' in page.text  # the listing's card
    # (the subject that goes out quotes the listing's title in « »: it is the e-mail's subject, shown exactly)
    assert [word for word in MODEL_WORDS if word != "«" and word in visible_text(page.text)] == []


def test_a_broker_cannot_inquire_and_sees_the_stock_page_with_the_same_pieces(db: Database) -> None:
    browser = client(db)
    login = browser.get("/app/anmelden")
    browser.post("/app/anmelden", data={"csrf_token": hidden(login.text, "csrf_token"), "email": OWNER.email, "password": OWNER.password})
    listing = published(db, 6)
    assert browser.get(f"/app/anfrage/{listing.ref}").status_code == 403
    own = published(db, 0, office_id=1)
    page = browser.get(f"/app/bestand/{own.ref}")
    assert page.status_code == 200
    assert 'id="eckdaten"' in page.text and 'id="energie"' in page.text and 'id="buero"' in page.text
    assert "Anfrage stellen" not in page.text
    assert [word for word in MODEL_WORDS if word in visible_text(page.text)] == []


def test_the_office_reads_an_inquiry_without_model_text(db: Database) -> None:
    browser = client(db)
    login = browser.get("/app/anmelden")
    browser.post("/app/anmelden", data={"csrf_token": hidden(login.text, "csrf_token"), "email": OWNER.email, "password": OWNER.password})
    with db.read_only() as session:
        ref, listing_ref, first = session.execute(
            text(
                "SELECT i.ref, l.ref, (SELECT m.body FROM inquiry_messages m WHERE m.inquiry_id = i.id ORDER BY m.id LIMIT 1) "
                "FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 1 ORDER BY i.id LIMIT 1"
            )
        ).one()
    page = browser.get(f"/app/anfragen/{ref}")
    assert page.status_code == 200
    assert f'<a href="/app/bestand/{listing_ref}">' in page.text
    assert first.splitlines()[0].strip() in visible_text(page.text)  # the seeker's own words, as text
    assert [word for word in MODEL_WORDS if word in visible_text(page.text)] == []
