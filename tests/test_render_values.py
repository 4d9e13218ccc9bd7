"""One value in German and one list line (shared/runtime/render.py): the plain values taken by their exact type first
(issue 21) are written as before, and what only looks plain (an enum is a str, a bool an int) keeps its own rule."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from contract.envelope import AbsenceReason, Absent, ContractModel
from contract.labels import Label, Style
from contract.vocabulary import LABELS, MarketingType
from shared.runtime.render import GERMAN_TIME, item_line, value_text, when


def test_a_point_in_time_is_german_local_time_in_winter_summer_and_at_the_switch() -> None:
    for utc in (
        dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC),
        dt.datetime(2026, 7, 1, 22, 30, tzinfo=dt.UTC),  # the next day in Germany
        dt.datetime(2026, 3, 29, 0, 59, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 29, 1, 0, tzinfo=dt.UTC),  # summer time begins
        dt.datetime(2026, 10, 25, 0, 59, tzinfo=dt.UTC),
        dt.datetime(2026, 10, 25, 1, 0, tzinfo=dt.UTC),  # and ends
        dt.datetime(999, 5, 6, 7, 8, tzinfo=dt.UTC),
    ):
        assert when(utc) == utc.astimezone(GERMAN_TIME).strftime("%d.%m.%Y %H:%M")
    assert when(dt.datetime(2026, 7, 1, 22, 30, tzinfo=dt.UTC)) == "02.07.2026 00:30"


class Colour(StrEnum):
    red = "red"


def test_plain_values_and_their_look_alikes_keep_their_rules() -> None:
    assert value_text("Altbau", Label("Typ", unit="m²")) == "Altbau m²"
    assert value_text(MarketingType.rent) == LABELS[MarketingType.rent] != "rent"  # an enum is a str, shown by its label
    assert value_text(Colour.red) == "red"  # an enum without a German label: its value
    assert value_text(True) == "ja" and value_text(False, Label("x", unit="m²")) == "nein m²"  # a bool is an int, not a number
    assert value_text(1234.5, Label("Preis", unit="€")) == "1.234,50 €"
    assert value_text(1234, Label("Preis", unit="€")) == "1.234 €"
    assert value_text(8.77, Label("Miete", unit="€/m²", style=Style.whole)) == "8,77 €/m²"
    assert value_text(72, Label("Stunden", style=Style.hours)) == "3 Tage"
    assert value_text(dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC)) == "02.01.2026 04:04"
    assert value_text(dt.date(2026, 1, 2)) == "02.01.2026"
    assert value_text(Absent(reason=AbsenceReason.withheld, note="nicht öffentlich")) == "– (zurückgehalten: nicht öffentlich)"


class Part(ContractModel):
    name: Annotated[str, Label("Teil")]


class Row(ContractModel):
    ref: Annotated[str, Label("Nummer", bare=True)]
    title: Annotated[str, Label("Titel", quoted="vom Anbieter", frame_only=True)]
    kind: Annotated[MarketingType, Label("Art", bare=True)]
    rooms: Annotated[float | None, Label("Zimmer")] = None
    energy: Annotated[str | Absent, Label("Energie")] = "B"
    parts: Annotated[list[Part], Label("Teile")] = []
    tags: Annotated[list[str], Label("Merkmale")] = []
    nested: Annotated[Part | None, Label("Innen")] = None
    hidden: Annotated[str, Label("Geheim", brief=False)] = "x"


def test_a_list_line_shows_present_plain_fields_and_leaves_out_absent_empty_nested_and_unbriefed_ones() -> None:
    row = Row(
        ref="A-1", title="Hell «ruhig»", kind=MarketingType.buy, rooms=3.5,
        energy=Absent(reason=AbsenceReason.withheld, note="n"), parts=[Part(name="p")], tags=[], nested=Part(name="q"),
    )
    assert item_line(row) == f"A-1; «Hell ‹ruhig›»; {LABELS[MarketingType.buy]}; Zimmer 3,5"
    assert item_line(row.model_copy(update={"energy": "C", "tags": ["Balkon", "Keller"], "rooms": None})) == (
        f"A-1; «Hell ‹ruhig›»; {LABELS[MarketingType.buy]}; Energie C; Merkmale Balkon, Keller"
    )
