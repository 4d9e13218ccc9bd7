"""The one place where handler results become the result envelope (seed 002, rules 3, 10, 11)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from contract.envelope import (
    Completeness,
    EffectiveValue,
    IncompleteReason,
    Page,
    ReasonCode,
    Suggestion,
    Tally,
    ValueSource,
)
from shared.wording import NOT_WIDENED, SUGGESTIONS_UNSEARCHED


def empty_hint(request_hint: str | None, suggestions: list[Suggestion]) -> str:
    parts = ["Keine Treffer für diese Anfrage.", NOT_WIDENED]
    if request_hint:
        parts.append(request_hint)
    if suggestions:
        parts.append(SUGGESTIONS_UNSEARCHED)
    return " ".join(parts)


def _common(result: Page[Any] | Tally, *, empty: bool, reasons: list[IncompleteReason], next_cursor: str | None) -> dict[str, Any]:
    complete = not reasons
    fields: dict[str, Any] = {
        "status": "complete" if complete else "partial",
        "completeness": Completeness(complete=complete, reasons=reasons, next_cursor=next_cursor),
        "total": result.total,
        "match_type": "none" if empty else "matches",
        "request": {name: echoed.value for name, echoed in result.request.items()},
        "request_sources": {name: echoed.source for name, echoed in result.request.items() if echoed.source is not ValueSource.default},
        "warnings": result.warnings,
        "freshness": result.freshness,
    }
    if empty:
        fields["hint"] = empty_hint(result.empty_hint, result.suggestions)
        fields["suggestions"] = result.suggestions
    return fields


def build(result: Page[Any] | Tally, output_model: type[BaseModel]) -> BaseModel:
    if isinstance(result, Page):
        reasons = list(result.incomplete)
        if result.next_cursor:
            reasons.insert(
                0,
                IncompleteReason(
                    code=ReasonCode.MORE_PAGES_AVAILABLE,
                    message="Weitere Seiten: derselbe Aufruf mit dem cursor dieser Antwort.",
                ),
            )
        empty = not result.items and result.next_cursor is None
        counting: dict[str, Any] = {}
        if "total_at_least" in output_model.model_fields:  # a list that may stop counting says whether it did
            counting = {"total_exact": result.total is not None, "total_at_least": result.total_at_least}
        return output_model(
            **_common(result, empty=empty, reasons=reasons, next_cursor=result.next_cursor),
            **counting,
            returned=len(result.items),
            sort_key=result.sort_key,
            sort_key_label=result.sort_key_label,
            # the list's own name: `items`, or what the output model names it (the connectors' `results`)
            **{getattr(output_model, "items_key", "items"): result.items},
            **result.body,
        )
    return output_model(
        **_common(result, empty=result.total == 0, reasons=[], next_cursor=None),
        **result.body,
    )


def effective_request(args: BaseModel, implied: dict[str, Any] | None = None, exclude: set[str] = frozenset()) -> dict[str, EffectiveValue]:  # type: ignore[assignment]
    """Every input field as executed, with its source (rule 11). `implied` spells out what an omitted
    field means ("all of it", rule 1) instead of echoing a bare null; it may also add fixed scope."""
    implied = implied or {}
    echoed: dict[str, EffectiveValue] = {}
    for name in type(args).model_fields:
        if name in exclude:
            continue
        sent = name in args.model_fields_set and getattr(args, name) is not None
        value = getattr(args, name)
        if not sent and name in implied:
            value = implied[name]
        echoed[name] = EffectiveValue(
            value=value.model_dump(mode="json") if isinstance(value, BaseModel) else _plain(value),
            source=ValueSource.caller if sent else ValueSource.default,
        )
    for name, value in implied.items():
        echoed.setdefault(name, EffectiveValue(value=_plain(value), source=ValueSource.default))
    return echoed


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value.value if hasattr(value, "value") and not isinstance(value, bool | int | float | str) else value
