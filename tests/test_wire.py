"""The compact wire form: absence stays three-valued, what was not collected is declared once, and every
result of every tool validates against the schema sent for it."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import jsonschema
import pytest

from contract.catalog import Money
from contract.envelope import AbsenceReason, Absent, ContractModel, ListResult
from contract.labels import Label
from contract.servers import SERVERS
from contract.wire import compact_schema, compact_value


class Offer(ContractModel):
    ref: Annotated[str, Label("Nummer")]
    price: Annotated[Money | Absent, Label("Preis")]
    status: Annotated[str, Label("Status")]
    status_label: Annotated[str, Label("Status")]
    description: Annotated[str | Absent, Label("Beschreibung")]
    seen: Annotated[dt.date | None, Label("gesehen")] = None


def offer(ref: str, price: Money | Absent, description: str | Absent) -> Offer:
    return Offer(ref=ref, price=price, status="published", status_label="veröffentlicht", description=description)


WITHHELD = Absent(reason=AbsenceReason.withheld, note="Preis auf Anfrage.")
NOT_ASKED = Absent(reason=AbsenceReason.not_collected, note="Nicht abgefragt; include.description liefert ihn.")


def test_an_absent_value_is_left_out_with_its_reason_beside_it_and_a_present_one_is_the_value() -> None:
    wire = compact_value(offer("A-1", WITHHELD, "Altbau"))
    assert wire == {
        "ref": "A-1",
        "status": "published",
        "description": "Altbau",
        "seen": None,
        "absent": {"price": "withheld"},
        "absence_notes": {"price": {"withheld": "Preis auf Anfrage."}},
    }
    assert compact_value(offer("A-2", Money(amount=950), "Altbau"))["price"] == 950
    assert "absent" not in compact_value(offer("A-2", Money(amount=950), "Altbau"))


def test_what_a_call_did_not_collect_is_declared_once_per_result_not_on_every_item() -> None:
    page = ListResult[Offer].model_validate(
        {
            "status": "complete",
            "completeness": {"complete": True},
            "returned": 2,
            "total": 2,
            "match_type": "matches",
            "request": {},
            "sort_key": "ref",
            "freshness": {"data_as_of": "2026-11-01T09:00:00Z", "snapshot": "katalog-1"},
            "items": [offer("A-1", Money(amount=1), NOT_ASKED), offer("A-2", WITHHELD, NOT_ASKED)],
        }
    )
    wire = compact_value(page)
    assert wire["not_collected"] == {"description": NOT_ASKED.note}
    assert ["description" in item for item in wire["items"]] == [False, False]
    assert [item.get("absent") for item in wire["items"]] == [None, {"price": "withheld"}]
    assert wire["absence_notes"] == {"price": {"withheld": "Preis auf Anfrage."}}
    jsonschema.validate(wire, compact_schema(ListResult[Offer], output=True))


def test_a_note_that_differs_from_the_declared_one_travels_with_its_object() -> None:
    other = Absent(reason=AbsenceReason.withheld, note="Preis nur für Mitglieder.")
    page = ListResult[Offer].model_validate(
        {
            "status": "complete",
            "completeness": {"complete": True},
            "returned": 3,
            "total": 3,
            "match_type": "matches",
            "request": {},
            "sort_key": "ref",
            "freshness": {"data_as_of": "2026-11-01T09:00:00Z", "snapshot": "katalog-1"},
            "items": [offer("A-1", WITHHELD, "x"), offer("A-2", WITHHELD, "x"), offer("A-3", other, "x")],
        }
    )
    wire = compact_value(page)
    assert wire["absence_notes"] == {"price": {"withheld": "Preis auf Anfrage."}}
    assert [item["absent"]["price"] for item in wire["items"]] == [
        "withheld",
        "withheld",
        {"reason": "withheld", "note": "Preis nur für Mitglieder."},
    ]


def test_the_output_schema_types_every_value_without_titles_labels_or_descriptions() -> None:
    schema = compact_schema(Offer, output=True)
    assert schema == {
        "type": "object",
        "properties": {
            "ref": {"type": "string"},
            "price": {"type": "number"},
            "status": {"type": "string"},
            "description": {"type": "string"},
            "seen": {"type": ["string", "null"]},
        },
        "required": ["ref", "status", "seen"],  # price and description may be absent: the wire then leaves them out
    }


class Contact(ContractModel):
    name: Annotated[str, Label("Name")]
    street: Annotated[str, Label("Straße")]
    postal_code: Annotated[str, Label("PLZ")]
    city: Annotated[str, Label("Ort")]
    phone: Annotated[str | Absent, Label("Telefon")]
    rooms: Annotated[int, Label("Zimmer")]


class Card(ContractModel):
    title: Annotated[str, Label("Titel")]
    contact: Annotated[Contact, Label("Kontakt")]


def test_an_object_names_its_most_frequent_plain_fields_in_required_only_and_types_them_by_additional_properties() -> None:
    """The compact form of `required`: exactly as strict as writing each field out, and shorter. The keys the wire adds
    to such an object (absent; at the root the notes) are declared, so they are not read as one of its fields."""
    schema = compact_schema(Card, output=True)
    assert schema == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "contact": {
                "properties": {"phone": {"type": "string"}, "rooms": {"type": "integer"}, "absent": {"type": "object"}},
                "required": ["name", "street", "postal_code", "city", "rooms"],
                "additionalProperties": {"type": "string"},
            },
        },
        "required": ["title", "contact"],
    }
    no_phone = Absent(reason=AbsenceReason.empty_in_source, note="Nicht angegeben.")
    card = Card(title="Büro", contact=Contact(name="A", street="B", postal_code="04109", city="Leipzig", phone=no_phone, rooms=3))
    wire = compact_value(card)
    assert wire["contact"]["absent"] == {"phone": "empty_in_source"}
    jsonschema.validate(wire, schema)
    for wrong in ({**wire["contact"], "city": 7}, {k: v for k, v in wire["contact"].items() if k != "street"}, {**wire["contact"], "rooms": "3"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**wire, "contact": wrong}, schema)


def test_an_input_schema_keeps_descriptions_and_value_sets_but_no_generated_titles_or_null_defaults() -> None:
    tool = SERVERS["suche"].tool("search_listings")
    schema = compact_schema(tool.input_model, output=False)
    assert schema["properties"]["marketing_type"]["enum"] == ["buy", "rent"]
    assert "Kauf" in schema["properties"]["marketing_type"]["description"]
    assert "title" not in schema["properties"]["marketing_type"] and "default" not in schema["properties"]["city"]


@pytest.mark.parametrize("tool", [t for s in SERVERS.values() for t in s.tools], ids=lambda t: t.name)
def test_every_schema_is_valid_json_schema(tool: object) -> None:
    for output in (False, True):
        jsonschema.Draft202012Validator.check_schema(compact_schema(tool.output_model if output else tool.input_model, output=output))  # type: ignore[attr-defined]
