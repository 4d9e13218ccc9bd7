"""Labels sit on their fields: a text shows no field without a German label, and the contract says so at once."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from contract.envelope import Absent, ContractModel, ListResult
from contract.labels import NOT_IN_TEXT, Label, unlabelled_fields
from contract.rights import SEARCH_PUBLIC, ServerName
from contract.servers import SERVERS
from contract.tool import ContractError, Effect, ToolSpec, declare_tools
from shared.runtime.render import render


class Empty(ContractModel):
    pass


class Inner(ContractModel):
    amount_due: Annotated[float, Label("fällig")]
    forgotten: int


class Outer(ContractModel):
    title: Annotated[str, Label("Titel")]
    uri: Annotated[str, NOT_IN_TEXT]
    inner: Annotated[Inner, Label("Innen")]
    maybe: Annotated[int | Absent, Label("vielleicht")] = Field(description="…")


class Item(ContractModel):
    name: Annotated[str, Label("Name")]
    nameless: str


def spec(output: type) -> ToolSpec:
    return ToolSpec("get_thing", "Ding abrufen", "Ruft ein Ding ab.", Empty, output, Effect.read, SEARCH_PUBLIC)


def test_every_shown_field_is_found_without_a_label_nested_and_in_list_items() -> None:
    assert unlabelled_fields(Outer) == ["Inner.forgotten"]
    assert unlabelled_fields(ListResult[Item]) == ["Item.nameless"]


def test_a_tool_whose_text_would_show_an_unlabelled_field_is_refused_naming_tool_and_field() -> None:
    with pytest.raises(ContractError, match=r"'get_thing' \(suche\).*Inner\.forgotten"):
        declare_tools(ServerName.search, [spec(Outer)])


def test_a_fully_labelled_tool_is_accepted() -> None:
    class Labelled(ContractModel):
        title: Annotated[str, Label("Titel")]
        uri: Annotated[str, NOT_IN_TEXT]

    assert [s.name for s in declare_tools(ServerName.search, [spec(Labelled)])] == ["get_thing"]


def test_the_text_shows_the_declared_label_and_hides_what_is_not_in_text() -> None:
    class Shown(ContractModel):
        title: Annotated[str, Label("Titel")]
        uri: Annotated[str, NOT_IN_TEXT]

    assert render(Shown(title="Altbau", uri="athaus://x")) == "Titel: Altbau"


def test_every_declared_tool_of_both_servers_is_fully_labelled() -> None:
    for server in SERVERS.values():
        for tool in server.tools:
            assert unlabelled_fields(tool.output_model) == [], tool.name
