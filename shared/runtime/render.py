"""German text of every result, made from the structured result alone (a host that shows a card gives its
model only this text, so it must be complete on its own)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from contract.envelope import Absent, AbsenceReason, ListResult, Suggestion
from contract.vocabulary import LABELS

# The German label of every result field in the text, for all tools of both servers. A field name means one
# thing wherever it occurs, so it has one label; a family that needs another meaning names its field otherwise.
LABEL = {
    # the catalog and its listings
    "listing_id": "Inserat",
    "title": "Titel",
    "status": "Status",
    "description": "Beschreibung",
    "marketing_type": "Vermarktung",
    "property_type": "Objektart",
    "property_subtype": "Objekttyp",
    "postal_code": "PLZ",
    "city": "Ort",
    "district": "Stadtteil",
    "state": "Bundesland",
    "street": "Straße",
    "house_number": "Hausnummer",
    "latitude": "Breitengrad",
    "longitude": "Längengrad",
    "coordinates_exact": "Koordinaten genau",
    "address": "Adresse",
    "costs": "Kosten",
    "price": "Preis",
    "price_per_sqm": "€/m²",
    "service_charges": "Hausgeld/Nebenkosten",
    "heating_costs": "Heizkosten",
    "deposit": "Kaution",
    "commission": "Provision",
    "commission_percent": "Provision in %",
    "areas": "Flächen und Räume",
    "living_area": "Wohnfläche m²",
    "plot_area": "Grundstück m²",
    "rooms": "Zimmer",
    "bedrooms": "Schlafzimmer",
    "bathrooms": "Badezimmer",
    "floor": "Etage",
    "year_built": "Baujahr",
    "condition": "Zustand",
    "energy": "Energieausweis",
    "status_label": "Stand",
    "certificate_type": "Ausweisart",
    "energy_value": "Kennwert kWh/(m²·a)",
    "energy_class": "Effizienzklasse",
    "energy_carrier": "Energieträger",
    "valid_until": "gültig bis",
    "expired": "abgelaufen",
    "features": "Ausstattung",
    "feature_labels": "Ausstattung",
    "photos": "Fotos",
    "provider": "Anbieter",
    "name": "Name",
    "phone": "Telefon",
    "email": "E-Mail",
    "website": "Website",
    "availability": "Verfügbarkeit",
    "available_from": "frei ab",
    "note": "Hinweis",
    "published_at": "veröffentlicht",
    "updated_at": "aktualisiert",
    "distance_km": "Entfernung km",
    "total": "Gesamt",
    "facets": "Aufschlüsselung",
    "count": "Anzahl",
    "notes": "Hinweise",
    # the envelope's parts where a result shows them as fields
    "hint": "Hinweis",
    "suggestions": "Vorschläge (nicht gesucht)",
    "reason": "Grund",
    "arguments": "Argumente",
    "searched": "gesucht",
    "request": "Ausgeführte Anfrage",
    "warnings": "Warnungen",
    "code": "Code",
    # Athaus für Makler: inquiries, valuations, proposals
    "inquiry_id": "Anfrage",
    "listing_title": "Objekt",
    "seeker_name": "Suchende/r",
    "created_at": "vom",
    "last_message_at": "letzte Nachricht",
    "age_days": "Alter in Tagen",
    "office_replied": "Büro hat geantwortet",
    "awaiting_reply_since": "wartet auf das Büro seit",
    "days_awaiting_reply": "Tage ohne Antwort",
    "message_count": "Nachrichten",
    "listing": "Objekt",
    "seeker": "Freigegebene Angaben der/des Suchenden",
    "further": "Weitere Angaben",
    "thread": "Verlauf",
    "author": "Von",
    "author_name": "Name",
    "sent_at": "gesendet",
    "text": "Text",
    "open_drafts": "Offene Entwürfe",
    "confirmation_id": "Bestätigung",
    "action": "Art",
    "summary": "Inhalt",
    "prepared_by": "vorbereitet von",
    "expires_at": "gültig bis",
    "valuation_id": "Bewertung",
    "subject": "für",
    "owner_name": "Eigentümer/in",
    "value_low": "Wert von",
    "value_high": "Wert bis",
    "price_per_sqm_low": "€/m² von",
    "price_per_sqm_high": "€/m² bis",
    "method": "Methode",
    "comparables_count": "Vergleichsobjekte",
    "created_by": "erstellt von",
    "proposal_id": "Vorschlag",
    "decided_at": "entschieden",
    "listing_price": "Preis",
    "listing_status": "Objektstatus",
    "seeker_label": "Suchauftrag",
    "criteria_summary": "sucht",
    # Athaus für Makler: situation report, stock, check and value estimate
    "office": "Büro",
    "as_of": "Stand",
    "sections": "Abschnitte",
    "section": "Abschnitt",
    "new": "neu (nie beantwortet)",
    "follow_ups": "Rückfragen",
    "by_age": "nach Wartezeit",
    "shown": "gezeigt",
    "all_shown": "alle gezeigt",
    "items": "Einträge",
    "first_contact": "Erstanfrage",
    "waiting_since": "wartet seit",
    "waiting_hours": "wartet (Stunden)",
    "kind": "Art",
    "subject_ref": "betrifft",
    "drafts_checked": "geprüfte Entwürfe",
    "failed_rules": "nicht erfüllt",
    "reasons": "Gründe",
    "days_left": "Tage bis Ablauf",
    "expiring": "laufen bald ab",
    "window_days": "Zeitraum (Tage)",
    "key_figures": "Kennzahlen",
    "days": "Tage",
    "since": "seit",
    "new_inquiries": "neue Anfragen",
    "replies_sent": "gesendete Antworten",
    "listings_published": "veröffentlichte Inserate",
    "average_first_response_hours": "mittlere Zeit bis zur ersten Antwort (Stunden)",
    "answered_inquiries": "beantwortete Anfragen",
    "unanswered_excluded": "unbeantwortet, nicht im Mittelwert",
    "publishable": "veröffentlichbar",
    "rules": "Regeln",
    "rule": "Regel",
    "verdict": "Urteil",
    "blocking": "Pflichtregel",
    "message": "Befund",
    "price_comparison": "Preisvergleich",
    "median_price_per_sqm": "Median €/m² der Vergleichsobjekte",
    "ratio": "Verhältnis",
    "comparables": "Vergleichsobjekte",
    "price_on_request_excluded": "ohne Preis, nicht verwendet",
    "living_area_unknown_excluded": "ohne Wohnfläche, nicht verwendet",
    "checked_at": "geprüft",
    "address_published": "Adresse im Exposé veröffentlicht",
    "status_history": "Statusverlauf",
    "old_status": "von",
    "new_status": "nach",
    "changed_at": "geändert",
    "changed_by": "durch",
    "inquiries": "Anfragen",
    "open": "offen",
    "latest": "neueste",
    "check": "Prüfung",
    "proposals": "Vorschläge",
    "estimable": "Spanne möglich",
    "source": "Quelle",
    "comparison_area": "Vergleichsgebiet",
    "postal_codes": "PLZ-Bereiche",
    "living_area_min": "Wohnfläche ab m²",
    "living_area_max": "Wohnfläche bis m²",
    "tolerance_percent": "Toleranz in %",
    "value_range": "Wertspanne",
    "low": "von",
    "median": "Median",
    "high": "bis",
    "price_per_sqm_median": "€/m² Median",
    "basis": "Grundlage",
    "listing_ids": "Inseratsnummern",
    "excluded": "nicht verwendet",
    "price_on_request": "Preis auf Anfrage",
    "living_area_unknown": "ohne Wohnfläche",
    "subject_listing": "Objekt selbst ausgeschlossen",
    "confidence": "Vertrauen",
    "level": "Stufe",
    "lowered_by": "mindert das Vertrauen",
    "factor": "Umstand",
}

# Fields a reader does not need in the text (they stay in structuredContent).
SILENT = {"resource_uri", "freshness", "feature_labels", "coordinates_exact", "currency", "absent"}

ABSENCE = {
    AbsenceReason.not_collected: "nicht abgefragt",
    AbsenceReason.empty_in_source: "keine Angabe",
    AbsenceReason.withheld: "zurückgehalten",
}


def number(value: float, digits: int | None = None) -> str:
    """A number in German notation (`1.234,5`): with `digits` decimals; by default none for a whole number and
    two otherwise."""
    if digits is None:
        digits = 2 if value % 1 else 0
    text = f"{value:,.{digits}f}"
    return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", ".")


def euro(amount: float) -> str:
    return f"{number(amount)} €"


def span(low: float | None, high: float | None, unit: str, *, digits: int | None = None, to: str = "–") -> str | None:
    """A range in German (`200.000–400.000 €`, `ab 50 m²`, `bis 3 Zimmer`); None when neither bound is given."""
    if low is not None and high is not None:
        return f"{number(low, digits)}{to}{number(high, digits)}{unit}"
    if low is not None:
        return f"ab {number(low, digits)}{unit}"
    if high is not None:
        return f"bis {number(high, digits)}{unit}"
    return None


def value_text(value: Any) -> str:
    if isinstance(value, Absent):
        return f"– ({ABSENCE[value.reason]}: {value.note})"
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, StrEnum):
        return LABELS.get(value, value.value)
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%d.%m.%Y %H:%M UTC")
    if isinstance(value, dt.date):
        return value.strftime("%d.%m.%Y")
    if isinstance(value, BaseModel) and {"amount", "currency"} <= set(type(value).model_fields):
        return euro(value.amount)
    if isinstance(value, list):
        return ", ".join(value_text(v) for v in value) if value else "–"
    return str(value)


def _label(name: str) -> str:
    return LABEL.get(name, name)


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, BaseModel) or isinstance(value, Absent) or "amount" in type(value).model_fields


def _labelled(model: BaseModel, name: str) -> Any:
    """A field's value, or its German `<name>_label` sibling where the model carries one."""
    label_field = f"{name}_label"
    return getattr(model, label_field) if label_field in type(model).model_fields else getattr(model, name)


def _shown_fields(model: BaseModel) -> list[str]:
    fields = type(model).model_fields
    return [n for n in fields if n not in SILENT and not (n.endswith("_label") and n.removesuffix("_label") in fields)]


def render_object(model: BaseModel, indent: str = "") -> list[str]:
    lines: list[str] = []
    for name in _shown_fields(model):
        value = _labelled(model, name)
        if value is None:
            continue
        if _is_leaf(value) and not (isinstance(value, list) and value and isinstance(value[0], BaseModel)):
            lines.append(f"{indent}{_label(name)}: {value_text(value)}")
        elif isinstance(value, list):
            lines.append(f"{indent}{_label(name)}:")
            for item in value:
                lines.append(f"{indent}  - " + item_line(item))
        else:
            lines.append(f"{indent}{_label(name)}:")
            lines.extend(render_object(value, indent + "  "))
    return lines


def item_line(item: BaseModel) -> str:
    """One line per list item: its present scalar fields, labelled where a bare value would be unclear."""
    parts: list[str] = []
    for name in _shown_fields(item):
        value = _labelled(item, name)
        if value is None or isinstance(value, Absent) or (isinstance(value, list) and not value):
            continue
        if isinstance(value, BaseModel) and not _is_leaf(value):
            continue
        if isinstance(value, list) and isinstance(value[0], BaseModel):
            continue
        text = value_text(value)
        parts.append(text if name in {"listing_id", "title", "city", "postal_code", "value", "label"} else f"{_label(name)} {text}")
    return " · ".join(parts)


def _suggestion_line(suggestion: Suggestion) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in suggestion.arguments.items())
    return f"- {suggestion.reason} ({args})"


def _envelope_lines(result: BaseModel) -> list[str]:
    data = result
    lines: list[str] = []
    completeness = data.completeness  # type: ignore[attr-defined]
    if completeness.complete:
        lines.append("Vollständig: ja, die Antwort deckt die ganze Anfrage ab.")
    else:
        reasons = "; ".join(f"{r.code.value}: {r.message}" for r in completeness.reasons)
        lines.append(f"Vollständig: nein ({reasons})")
    if completeness.next_cursor:
        lines.append(f"Nächste Seite: cursor = {completeness.next_cursor}")
    for warning in data.warnings:  # type: ignore[attr-defined]
        lines.append(f"Warnung {warning.code.value}: {warning.message}")
    request = ", ".join(
        f"{name}={_request_value(v.value)}"
        + (" (Standard)" if v.source.value == "default" else "")
        for name, v in data.request.items()  # type: ignore[attr-defined]
    )
    lines.append(f"Ausgeführte Anfrage: {request}")
    if data.hint:  # type: ignore[attr-defined]
        lines.append(data.hint)  # type: ignore[attr-defined]
    for suggestion in data.suggestions or []:  # type: ignore[attr-defined]
        lines.append(_suggestion_line(suggestion))
    lines.append(f"Datenstand: {value_text(data.freshness.data_as_of)}")  # type: ignore[attr-defined]
    return lines


def _request_value(value: Any) -> str:
    if value is None:
        return "keine Einschränkung"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_request_value(v)}" for k, v in value.items() if v is not None) + "}"
    return value_text(value)


def render(result: BaseModel) -> str:
    if isinstance(result, ListResult):
        head = (
            f"{result.returned} Einträge auf dieser Seite, {result.total} insgesamt (Reihenfolge: {result.sort_key})."
            if result.total is not None
            else f"{result.returned} Einträge auf dieser Seite (Reihenfolge: {result.sort_key})."
        )
        lines = [head, *(f"- {item_line(item)}" for item in result.items), *_envelope_lines(result)]
        return "\n".join(lines)
    if "completeness" in type(result).model_fields:
        body = {n: getattr(result, n) for n in type(result).model_fields if n not in _ENVELOPE_FIELDS}
        lines = [line for name, value in body.items() for line in _field_lines(name, value)]
        return "\n".join([*lines, *_envelope_lines(result)])
    return "\n".join(render_object(result))


_ENVELOPE_FIELDS = {"status", "completeness", "match_type", "request", "warnings", "freshness", "hint", "suggestions"}


def _field_lines(name: str, value: Any) -> list[str]:
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        lines = [f"{_label(name)}:"]
        for item in value:
            lines.extend(render_object(item, "  "))
        return lines
    return [f"{_label(name)}: {value_text(value)}"]
