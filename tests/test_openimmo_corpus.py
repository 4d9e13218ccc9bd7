"""The OpenImmo corpus is the test of the import (issue 32): real exports as brokers' software writes them.

Every file of `../shared/openimmo-corpus/` is imported into the real database (SQLite and PostgreSQL) and each
accepted object compared field by field with `corpus-truth.json` (bench/openimmo_corpus.py does the comparing and
prints the table). The corpus comes from public repositories and stays outside the project (its SOURCES.md names
every origin and licence): without it these tests skip, saying why.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bench.openimmo_corpus import ACCEPTED, FileRun, corpus_dir, corpus_missing, run_corpus
from shared.db.models import Listing
from shared.db.session import Database
from tests.conftest import seeded_database
from tests.test_import_listings import broker as broker_writing

CORPUS = corpus_dir()
pytestmark = pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")


def broker(db: Database) -> Any:
    return broker_writing(db, frozenset({"makler:schreiben", "makler:lesen"}))


def corpus_file(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8")


@pytest.fixture
def db(tmp_path: Path) -> Any:
    with seeded_database(tmp_path, "corpus", listings=20) as database:
        yield database


@pytest.fixture
def runs(db: Database) -> list[FileRun]:
    return run_corpus(db, CORPUS)


def test_every_object_a_crm_would_accept_arrives_and_nothing_is_wrong_or_silently_dropped(runs: list[FileRun]) -> None:
    outcomes = {(r.file, o.position): o.outcome.value for r in runs for o in r.output.results if o.position}
    accepted = sorted(key for key, outcome in outcomes.items() if outcome in ACCEPTED)
    assert accepted == [
        ("ext-realty_import-fixture_foo.xml", 1),  # a draft: no title, no price (named)
        ("immowelt-export_laravel-openimmo_example.xml", 1),  # a draft: marketing type and kind assumed (named)
        ("immowelt-export_laravel-openimmo_tests-fixture.xml", 1),
        ("immowelt-export_with-objektkategorie-added.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 2),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 3),
        ("onoffice-export_eblick-contao-openimmo_demo_data2.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data2.xml", 3),
        ("onoffice-export_ext-realty_import-test_mainz-lerchenberg.xml", 1),
    ]
    kinds = Counter(check.kind for run in runs for check in run.checks)
    assert (kinds["wrong"], kinds["dropped"]) == (0, 0), [c for r in runs for c in r.checks if c.kind in ("wrong", "dropped")]
    assert kinds["right"] >= 150
    # what is still named rather than imported: photos as files of the ZIP the CRM sends (only the XML is passed here)
    assert sorted({(c.file, c.position) for r in runs for c in r.checks if c.kind == "named"}) == [
        ("ext-realty_import-fixture_foo.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 2),
        ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", 3),
        ("onoffice-export_eblick-contao-openimmo_demo_data2.xml", 1),
        ("onoffice-export_eblick-contao-openimmo_demo_data2.xml", 3),
    ]


def test_a_refusal_names_every_problem_at_once_with_its_path_and_a_contradiction_as_such(runs: list[FileRun]) -> None:
    reasons = {(r.file, o.position): o.reason for r in runs for o in r.output.results if o.outcome.value == "refused"}
    assert reasons[("onoffice-export_eblick-contao-openimmo_demo_data2.xml", 2)] == (
        "Widerspruch: ‹objektkategorie/vermarktungsart› sagt Kauf, aber ‹preise/kaufpreis› ist 0 und ‹preise/kaltmiete› 430, "
        "‹preise/warmmiete› 580 nennt eine Miete. Bitte im Maklerprogramm ergänzen oder berichtigen und erneut übertragen."
    )
    assert reasons[("ext-realty_import-fixture_two_objects.xml", 1)] == (
        "Die Postleitzahl ‹zip› in ‹geo/plz› ist keine fünfstellige deutsche Postleitzahl. ‹geo/ort› fehlt (und keine "
        "Postleitzahl, aus der der Ort folgt). Bitte im Maklerprogramm ergänzen oder berichtigen und erneut übertragen."
    )
    assert reasons[("csv-to-openimmo_minimal-template.xml", 1)] == (
        "Das Objekt hat keine ‹verwaltung_techn/objektnr_extern›; ohne sie ist es keinem Objekt im Bestand zuzuordnen. "
        "‹geo/plz› fehlt. ‹geo/ort› fehlt (und keine Postleitzahl, aus der der Ort folgt). Widerspruch: "
        "‹objektkategorie/vermarktungsart› nennt Kauf und Miete zugleich (KAUF und MIETE_PACHT). Bitte im "
        "Maklerprogramm ergänzen und erneut übertragen."
    )


def listing_of(db: Database, key: str) -> Listing:
    with db.read_only() as session:
        listing = session.scalar(select(Listing).where(Listing.external_id == key).order_by(Listing.id.desc()).limit(1))
        assert listing is not None
        session.expunge(listing)
        return listing


def test_town_and_district_as_crms_write_them_are_found_by_the_city_search(db: Database) -> None:
    call = broker(db)
    for name in ("onoffice-export_eblick-contao-openimmo_demo_data1.xml", "immowelt-export_laravel-openimmo_example.xml",
                 "onoffice-export_ext-realty_import-test_mainz-lerchenberg.xml"):
        result = call("import_listings", {"xml": corpus_file(name), "publish": False})
    places = {key: (listing_of(db, key).city, listing_of(db, key).district) for key in ("AB123", "ABCDE", "8333", "OR273")}
    assert places == {"AB123": ("Aachen", "Brand"), "ABCDE": ("Potsdam", None), "8333": ("Würzburg", "Heidingsfeld"),
                      "OR273": ("Mainz", "Lerchenberg")}
    found = {city: sorted(h["objektnr_extern"] for h in call("search_listings", {"city": city, "limit": 50})["items"]
                          if isinstance(h.get("objektnr_extern"), str))
             for city in ("Aachen", "Würzburg")}
    assert found == {"Aachen": ["AB123"], "Würzburg": ["8333"]}
    assert result["results"][0]["assumptions"][0] == {
        "field": "city", "note": "‹geo/ort› ‹Mainz / Lerchenberg› gelesen als Ort Mainz, Ortsteil Lerchenberg (Postleitzahl 55127)."
    }


def test_placeholder_coordinates_give_way_to_the_postal_codes_centre_and_say_so(db: Database) -> None:
    result = broker(db)("import_listings", {"xml": corpus_file("onoffice-export_eblick-contao-openimmo_demo_data1.xml"),
                                            "publish": False})
    potsdam = listing_of(db, "ABCDE")
    assert (round(potsdam.latitude, 1), round(potsdam.longitude, 1)) == (52.4, 13.1)
    said = ("Die Koordinaten 50,12345, 6,12345 liegen 545 km von der Postleitzahl 14482 entfernt (ein Platzhalter?); "
            "ersetzt durch die Mitte der Postleitzahl (ungefähr).")
    notes = [n for n in result["results"][1]["assumptions"] if n["field"] == "latitude"]
    assert (notes, potsdam.coordinates_note) == ([{"field": "latitude", "note": said}], said)
    address = broker(db)("get_listing", {"listing_id": potsdam.ref})["address"]
    assert (address["coordinates_exact"], address["coordinates_note"]) == (False, said)


def test_what_was_sent_arrives_heating_included_gives_a_warm_rent_texts_plain_and_in_their_own_fields(db: Database) -> None:
    call = broker(db)
    result = call("import_listings", {"xml": corpus_file("immowelt-export_laravel-openimmo_example.xml"), "publish": False})
    [obj] = result["results"]
    assert obj["reason"] == ("Als Entwurf angelegt, nicht veröffentlicht: in der Übertragung fehlt Vermarktungsart (Miete "
                             "angenommen), Objektart (Wohnung angenommen); bitte prüfen und ergänzen, dann veröffentlichen.")
    assert [n["field"] for n in obj["assumptions"]] == ["marketing_type", "property_type", "warm_rent", "features", "city", "latitude"]
    detail = call("get_listing", {"listing_id": obj["listing_id"]})
    assert (detail["status"], detail["costs"]["warm_rent"], detail["costs"]["heating_costs"]) == ("draft", 1262.0, 0.0)
    assert detail["description"].startswith("Diese Wohnung beeindruckt")
    assert "<br>" not in detail["description"] and "\n\nDie Zwei-Zimmer-Wohnung erstreckt sich" in detail["description"]
    assert detail["location_text"].startswith("Heidingsfeld war von 1367 bis 1929")
    assert "<br>" not in detail["location_text"] and "darstellt.\nHeidingsfeld, besitzt" in detail["location_text"]
    assert detail["other_text"].startswith("Sonstiges\nDa der Versand des Exposés automatisch erfolgt")
    assert sorted(detail["features"]) == ["cellar", "elevator", "underfloor_heating"]
    assert detail["energy"]["energy_carrier"] == "Luft-Wärmepumpe"  # <befeuerung LUFTWP="true"/>, no certificate
    # no <geokoordinaten>: the postal code's centre, said on the listing as in the result
    assert detail["address"]["coordinates_note"] == "Mitte der PLZ 97084 (Würzburg): keine Koordinaten angegeben."


def test_onoffice_certificate_fields_firing_pets_and_what_has_no_field_are_read_or_named(db: Database) -> None:
    result = broker(db)("import_listings", {"xml": corpus_file("onoffice-export_eblick-contao-openimmo_demo_data1.xml"),
                                            "publish": False})
    house = listing_of(db, "AB123")
    assert (house.energy_year_built, house.energy_carrier, house.location_text, house.equipment_text, house.other_text) == (
        2002, "Gas", "Top Lage!", "Das Objekt bietet eine variable Raumaufteilung mit vielen Nutzungsmöglichkeiten.",
        "Vereinbaren Sie noch heute Ihren persönlichen Besichtigungstermin!")
    first = result["results"][0]
    assert [n["field"] for n in first["not_imported"]] == [
        "anhaenge/anhang", "geo/anzahl_etagen", "infrastruktur/distanzen", "kontaktperson", "zustand_angaben/verkaufstatus",
    ]
    photos = next(n for n in first["not_imported"] if n["field"] == "anhaenge/anhang")
    assert photos["note"] == ("6 Fotos als Dateien der Übertragung (Titel.jpg, Essbereich.jpg, Zimmer1.jpg …); die Dateien "
                              "kommen nur in einer ZIP-Übertragung mit (zip_base64 oder ZIP an der Feed-Adresse).")
