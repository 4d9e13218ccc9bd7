"""Every tool's four hints, compared with a table that says why (issue 17, item 4).

A tool that sends, withdraws, ends or clears is destructive; a tool is idempotent only if the same call twice changes
nothing more than once. A new tool fails here until it has its row (and its reason)."""

from __future__ import annotations

import pytest

from contract.broker import SERVER as BROKER
from contract.search import SERVER as SEARCH
from contract.tool import ContractError, Effect, ToolSpec, declare_tools
from contract.rights import BROKER_READ
from contract.broker_stock import TOOLS as STOCK_TOOLS

R, D, I, O = "readOnly", "destructive", "idempotent", "openWorld"
READS = "liest nur"

# (server, tool): (readOnly, destructive, idempotent, openWorld, why)
HINTS: dict[tuple[str, str], tuple[bool, bool, bool, bool, str]] = {
    **{
        ("makler", name): (True, False, True, False, READS)
        for name in (
            "check_listing", "estimate_value", "get_inquiry", "get_listing", "list_proposals", "list_valuations",
            "search_inquiries", "search_listings", "show_situation_report", "search", "fetch", "get_confirmation",
        )
    },
    **{
        ("suche", name): (True, False, True, False, READS)
        for name in (
            "calculate_purchase_costs", "count_listings", "get_listing", "search_listings", "get_inquiry", "list_inquiries",
            "list_matches", "list_search_orders", "search", "fetch", "get_confirmation",
        )
    },
    ("makler", "draft_reply"): (False, False, True, False, "legt einen Entwurf an (nichts geht hinaus); request_id ist Pflicht, zweimal: derselbe Entwurf"),
    ("makler", "import_listings"): (False, True, True, True, "VOLL/DELETE ziehen zurück; dieselbe Übertragung zweimal ändert nichts; liest den Feed des Büros"),
    ("makler", "save_listing"): (False, True, True, False, "mit listing_id überschreibt, null leert ein Feld; request_id ist Pflicht, zweimal: ein Objekt"),
    ("makler", "save_valuation"): (False, False, True, False, "legt nur an; request_id ist Pflicht, also speichert derselbe Aufruf einmal"),
    ("makler", "update_listing_status"): (False, True, True, False, "zieht zurück / verkauft; derselbe Status zweimal ändert nichts mehr"),
    ("makler", "decide_confirmation"): (False, True, True, True, "sendet E-Mail oder verwirft; der zweite Klick führt nichts aus"),
    ("makler", "decide_proposal"): (False, True, True, True, "lehnt endgültig ab oder schickt das Exposé; zweimal: derselbe Entwurf, nichts doppelt"),
    ("makler", "send_reply"): (False, True, True, True, "sendet eine E-Mail an Suchende; ein zweites Mal geht nichts hinaus"),
    ("suche", "save_search_order"): (False, True, True, False, "mit search_order_id ersetzt es, was die Person festgelegt hat; request_id ist Pflicht"),
    ("suche", "update_match"): (False, False, True, False, "setzt nur eine umkehrbare Markierung; zweimal dieselbe ändert nichts"),
    ("suche", "update_search_order"): (False, True, True, False, "ended beendet endgültig; derselbe Status zweimal ändert nichts mehr"),
    ("suche", "decide_confirmation"): (False, True, True, True, "sendet die Anfrage per E-Mail oder verwirft; der zweite Klick führt nichts aus"),
    ("suche", "draft_inquiry"): (False, False, True, False, "legt einen Entwurf an (nichts geht hinaus); request_id ist Pflicht, zweimal: derselbe Entwurf"),
    ("suche", "send_inquiry"): (False, True, True, True, "sendet eine E-Mail an den Anbieter; ein zweites Mal geht nichts hinaus"),
}


def test_every_tool_has_a_row_and_no_row_is_stale() -> None:
    served = {(server.name.value, spec.name) for server in (BROKER, SEARCH) for spec in server.tools}
    assert served == set(HINTS)


@pytest.mark.parametrize(
    ("server", "spec"), [(s, t) for s in (BROKER, SEARCH) for t in s.tools], ids=[f"{s.name.value}-{t.name}" for s in (BROKER, SEARCH) for t in s.tools]
)
def test_hints_match_the_table(server: object, spec: ToolSpec) -> None:
    read_only, destructive, idempotent, open_world, why = HINTS[(server.name.value, spec.name)]  # type: ignore[attr-defined]
    assert spec.annotations.as_mcp() == {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }, why


def test_every_creating_tool_takes_an_idempotency_key() -> None:
    creating = [spec for server in (BROKER, SEARCH) for spec in server.tools if spec.effect in (Effect.save, Effect.draft)]
    assert {spec.name for spec in creating} == {"draft_reply", "import_listings", "save_listing", "save_valuation", "save_search_order", "draft_inquiry"}
    for spec in creating:
        if spec.name == "import_listings":  # keyed by the transfer itself: each object's objektnr_extern
            continue
        assert spec.input_model.model_fields["request_id"].is_required(), spec.name
        assert "48 h gültig" in (spec.input_model.model_fields["request_id"].description or "")


def test_a_hint_set_per_tool_needs_its_reason_and_sending_stays_destructive() -> None:
    base = next(t for t in STOCK_TOOLS if t.effect is Effect.read)
    from dataclasses import replace

    with pytest.raises(ContractError, match="hints_because"):
        declare_tools(BROKER.name, [replace(base, destructive=False)])
    with pytest.raises(ContractError, match="reading tool"):
        declare_tools(BROKER.name, [replace(base, idempotent=False, hints_because="x")])
    save = next(t for t in BROKER.tools if t.name == "save_valuation")
    optional_key = save.input_model.model_fields["request_id"]
    loose = type("LooseKey", (save.input_model,), {"__annotations__": {"request_id": str | None}, "request_id": None})
    assert optional_key.is_required() and not loose.model_fields["request_id"].is_required()
    with pytest.raises(ContractError, match="requires its request_id"):
        declare_tools(BROKER.name, [replace(save, input_model=loose)])
    send = next(t for t in BROKER.tools if t.name == "send_reply")
    with pytest.raises(ContractError, match="outbound tool is destructive"):
        declare_tools(BROKER.name, [replace(send, destructive=False, hints_because="x")])
    assert BROKER_READ.server is BROKER.name
