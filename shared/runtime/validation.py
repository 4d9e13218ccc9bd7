"""Pydantic validation errors as one German sentence that names the field and the next step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from shared.german import decimal

_MESSAGES = {
    "missing": "fehlt",
    "extra_forbidden": "ist kein Argument dieses Werkzeugs",
    "string_pattern_mismatch": "hat nicht das erwartete Format",
    "string_too_long": "ist zu lang",
    "greater_than": "ist zu klein",
    "greater_than_equal": "ist zu klein",
    "less_than": "ist zu groß",
    "less_than_equal": "ist zu groß",
    "enum": "ist kein erlaubter Wert",
    "literal_error": "ist kein erlaubter Wert",
    "int_parsing": "muss eine ganze Zahl sein",
    "int_type": "muss eine ganze Zahl sein",
    "int_from_float": "muss eine ganze Zahl sein",
    "int_parsing_size": "ist zu groß",  # an integer argument sent as 1e30: far past every bound
    "float_parsing": "muss eine Zahl sein",
    "float_type": "muss eine Zahl sein",
    "finite_number": "muss eine endliche Zahl sein (nicht unendlich, nicht NaN)",
    "bool_parsing": "muss true oder false sein",
    "bool_type": "muss true oder false sein",
    "string_type": "muss ein Text sein",
    "list_type": "muss eine Liste sein",
    "dict_type": "muss ein Objekt sein",
    "model_type": "muss ein Objekt sein",
    "date_from_datetime_parsing": "muss ein Datum (JJJJ-MM-TT) sein",
    "date_parsing": "muss ein Datum (JJJJ-MM-TT) sein",
}


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _bound(value: Any) -> str:
    return decimal(value) if isinstance(value, int | float) else str(value)


def _problem(detail: Any) -> tuple[str, str]:
    """The field of one validation problem and what is wrong with it, what is allowed."""
    field = _field_path(tuple(detail["loc"]))
    kind = detail["type"]
    ctx = detail.get("ctx") or {}
    if kind == "value_error":
        problem = str(ctx.get("error", detail["msg"]))
        if field:
            problem = f"ist ungültig ({problem})"
    else:
        problem = _MESSAGES.get(kind, "ist ungültig")
        if kind in {"enum", "literal_error"} and "expected" in ctx:
            problem += f" (erlaubt: {str(ctx['expected']).replace(' or ', ' oder ')})"
        elif kind in {"greater_than", "greater_than_equal"}:
            problem += f" (mindestens {_bound(ctx.get('ge', ctx.get('gt')))})"
        elif kind in {"less_than", "less_than_equal"}:
            problem += f" (höchstens {_bound(ctx.get('le', ctx.get('lt')))})"
        elif kind == "string_pattern_mismatch" and field.endswith("listing_id"):
            problem += " (Inseratsnummer wie A-0000042)"
        elif kind == "missing" and field == "request_id":
            problem += " (ein neuer Idempotenzschlüssel je Auftrag, z. B. eine UUID; bei einer Wiederholung derselbe)"
        elif kind == "string_too_long":
            problem += f" (höchstens {ctx.get('max_length')} Zeichen)"
    return field, problem


def problems_of(error: ValidationError) -> list[tuple[str, str]]:
    """(field, what is wrong with it and what is allowed) for every problem, in German, as german_message says them."""
    return [_problem(detail) for detail in error.errors()]


def german_message(error: ValidationError) -> str:
    """Every problem in one answer, each with the field, what is wrong, what is allowed; then the next step. A caller
    that fixes one argument at a time would need as many calls as there are mistakes."""
    problems = problems_of(error)
    sentences = [f"Das Argument {field} {problem}" if field else f"Die Angaben passen nicht zusammen: {problem}" for field, problem in problems]
    if len(sentences) == 1:
        return f"{sentences[0]}: bitte korrigieren und das Werkzeug erneut aufrufen."
    listed = "; ".join(sentence[0].lower() + sentence[1:] for sentence in sentences)
    return f"{len(sentences)} Angaben sind ungültig: {listed}. Bitte alle korrigieren und das Werkzeug erneut aufrufen."


MAX_TEXT_CHARS = 2_000  # longer than any real value of any argument (a query, a place, a note); one cap for all


def unstorable_text(name: str, value: object, caps: Mapping[str, int] | None = None, cap: int = MAX_TEXT_CHARS) -> str | None:
    """The German sentence for the first string in `value` (nested lists and objects included) that cannot be stored
    or is longer than any real value, naming the argument; None when every string is fine.

    One check for every argument that reaches the server: tool arguments, completion values, resource-template
    variables and prompt arguments. NUL cannot be stored by PostgreSQL, a lone surrogate cannot be encoded at all.
    `caps` raises the length cap for top-level arguments that declare a longer maximum themselves (an OpenImmo
    transfer); every other string is held to MAX_TEXT_CHARS."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{name}.{key}" if name else str(key)
            item_cap = max(cap, (caps or {}).get(key, cap))
            found = unstorable_text(path, key) or unstorable_text(path, item, cap=item_cap)
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = unstorable_text(f"{name}[{index}]", item, cap=cap)
            if found:
                return found
        return None
    if not isinstance(value, str):
        return None
    if "\x00" in value:
        return f"Das Argument {name} enthält ein Nullzeichen (\\u0000), das kein Text enthalten kann: bitte das Zeichen entfernen und erneut senden."
    if any("\ud800" <= char <= "\udfff" for char in value):
        return (
            f"Das Argument {name} enthält ein einzelnes Ersatzzeichen (UTF-16-Surrogat) ohne Partner: bitte gültiges "
            "Unicode senden (etwa das ganze Emoji oder den Buchstaben) und erneut aufrufen."
        )
    if len(value) > cap:
        return f"Das Argument {name} ist mit {len(value)} Zeichen zu lang (höchstens {cap}): bitte kürzen und erneut senden."
    return None


def declared_text_caps(model: type[BaseModel]) -> dict[str, int]:
    """Top-level string fields of an input model that declare a max_length above MAX_TEXT_CHARS (by argument name)."""
    caps: dict[str, int] = {}
    for field_name, info in model.model_fields.items():
        for constraint in info.metadata:
            limit = getattr(constraint, "max_length", None)
            if isinstance(limit, int) and limit > MAX_TEXT_CHARS:
                caps[info.alias or field_name] = limit
    return caps
