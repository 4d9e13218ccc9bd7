"""The closed value sets of both servers, with their German labels and the German words accepted as input.

Input values are English (`buy`, `apartment`); German words (`Kauf`, `Wohnung`) are normalised to them by
`contract.fields.lenient`. This module is the only home of these sets, their labels and their aliases: the
tables below are complete as written and nothing adds to them at import.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

# --- the catalog ------------------------------------------------------------------------------------------


class MarketingType(StrEnum):
    buy = "buy"
    rent = "rent"


class PropertyType(StrEnum):
    apartment = "apartment"
    house = "house"
    land = "land"
    commercial = "commercial"
    parking = "parking"


class Feature(StrEnum):
    balcony = "balcony"
    terrace = "terrace"
    garden = "garden"
    elevator = "elevator"
    cellar = "cellar"
    parking_space = "parking_space"
    fitted_kitchen = "fitted_kitchen"
    barrier_free = "barrier_free"
    guest_wc = "guest_wc"
    fireplace = "fireplace"
    underfloor_heating = "underfloor_heating"
    pets_allowed = "pets_allowed"


class ListingStatus(StrEnum):
    draft = "draft"
    published = "published"
    reserved = "reserved"
    sold = "sold"
    let = "let"
    withdrawn = "withdrawn"


class CertificateType(StrEnum):  # the kind of energy certificate (GEG §87)
    demand = "demand"
    consumption = "consumption"


class SortOrder(StrEnum):  # the order of a catalog or stock search
    newest = "newest"
    price_asc = "price_asc"
    price_desc = "price_desc"
    living_area_desc = "living_area_desc"


class FacetName(StrEnum):  # a breakdown of count_listings
    marketing_type = "marketing_type"
    property_type = "property_type"
    city = "city"
    price_band = "price_band"


class EnergyStatus(StrEnum):
    present = "present"
    at_viewing = "at_viewing"
    not_required = "not_required"
    missing = "missing"


# --- Athaus für Makler: inquiries, proposals, valuations, pending actions ---------------------------------


class InquiryStatus(StrEnum):
    open = "open"
    answered = "answered"
    closed = "closed"


class MessageAuthor(StrEnum):
    seeker = "seeker"
    office = "office"


class InquirySort(StrEnum):  # the order of search_inquiries; here for its German labels and input words
    newest = "newest"
    oldest = "oldest"


class ProposalStatus(StrEnum):
    open = "open"
    accepted = "accepted"
    rejected = "rejected"


class ValuationSubject(StrEnum):
    listing = "listing"
    owner_lead = "owner_lead"


class PendingActionKind(StrEnum):  # `PendingAction.kind`: a prepared action that waits for a human's click
    send_reply = "send_reply"
    send_inquiry = "send_inquiry"
    decide_proposal = "decide_proposal"


class ConfirmationStatus(StrEnum):  # what became of a prepared action
    pending = "pending"
    sent = "sent"
    discarded = "discarded"
    expired = "expired"
    sent_without_click = "sent_without_click"


class ConfirmedVia(StrEnum):  # how the person decided a prepared action (`PendingAction.via`)
    card = "card"  # the confirmation card in a host that renders MCP Apps
    page = "page"  # Athaus's own confirmation page of this one draft (/app/bestaetigungen/C-…), in the person's browser
    app = "app"  # the web app's list of waiting confirmations (/app/)
    no_click = "no_click"  # the office owner allowed this kind without a click


class Decision(StrEnum):  # the two buttons of a confirmation card
    send = "send"
    discard = "discard"


class ProposalDecision(StrEnum):
    accept = "accept"
    reject = "reject"
class WriteResult(StrEnum):  # what a save_/update_ call did
    created = "created"
    changed = "changed"
    unchanged = "unchanged"


# --- Athaus Immobiliensuche: the seeker's account ------------------------------------------------------------


class SearchOrderStatus(StrEnum):
    active = "active"
    paused = "paused"
    ended = "ended"


class AlertFrequency(StrEnum):
    instant = "instant"
    daily = "daily"
    weekly = "weekly"


class MatchKind(StrEnum):
    new_listing = "new_listing"
    price_drop = "price_drop"
    status_change = "status_change"
    proposal = "proposal"


class MatchState(StrEnum):
    new = "new"
    seen = "seen"
    interesting = "interesting"
    not_interested = "not_interested"


# --- Athaus für Makler: the OpenImmo import -------------------------------------------------------------------


class TransferScope(StrEnum):  # `<uebertragung umfang>`: VOLL is the whole stock of the feed, TEIL a part of it
    full = "full"
    partial = "partial"


class TransferSource(StrEnum):  # where import_listings read the transfer from
    upload = "upload"
    feed = "feed"


class ImportAction(StrEnum):  # `<aktion aktionart>` of one object; no aktionart means a new object
    new = "new"
    change = "change"
    delete = "delete"


class ImportOutcome(StrEnum):  # what the import did with one object
    created = "created"
    changed = "changed"
    unchanged = "unchanged"
    withdrawn = "withdrawn"
    refused = "refused"


class ValueExclusion(StrEnum):  # why a value of a numeric (or date) field was not stored (data-fidelity rule 14)
    on_request = "on_request"
    approximate = "approximate"
    ambiguous = "ambiguous"
    not_a_number = "not_a_number"
    out_of_range = "out_of_range"
    not_a_date = "not_a_date"


# German label of every value. A StrEnum member equals its string, so this table is looked up by value: two
# sets that share a value (`open` of inquiries and proposals, `newest` of InquirySort and the catalog's
# SortOrder) share its label, and must be given the same one here.
LABELS: dict[StrEnum, str] = {
    MarketingType.buy: "Kauf",
    MarketingType.rent: "Miete",
    PropertyType.apartment: "Wohnung",
    PropertyType.house: "Haus",
    PropertyType.land: "Grundstück",
    PropertyType.commercial: "Gewerbe",
    PropertyType.parking: "Stellplatz/Garage",
    Feature.balcony: "Balkon",
    Feature.terrace: "Terrasse",
    Feature.garden: "Garten",
    Feature.elevator: "Aufzug",
    Feature.cellar: "Keller",
    Feature.parking_space: "Stellplatz",
    Feature.fitted_kitchen: "Einbauküche",
    Feature.barrier_free: "Barrierefrei",
    Feature.guest_wc: "Gäste-WC",
    Feature.fireplace: "Kamin",
    Feature.underfloor_heating: "Fußbodenheizung",
    Feature.pets_allowed: "Haustiere erlaubt",
    ListingStatus.draft: "Entwurf",
    ListingStatus.published: "veröffentlicht",
    ListingStatus.reserved: "reserviert",
    ListingStatus.sold: "verkauft",
    ListingStatus.let: "vermietet",
    ListingStatus.withdrawn: "zurückgezogen",
    CertificateType.demand: "Bedarfsausweis",
    CertificateType.consumption: "Verbrauchsausweis",
    SortOrder.price_asc: "Preis aufsteigend",
    SortOrder.price_desc: "Preis absteigend",
    SortOrder.living_area_desc: "größte Wohnfläche zuerst",
    FacetName.marketing_type: "Vermarktung",
    FacetName.property_type: "Objektart",
    FacetName.city: "Ort",
    FacetName.price_band: "Preisband",
    EnergyStatus.present: "Energieausweis liegt vor",
    EnergyStatus.at_viewing: "Energieausweis liegt zur Besichtigung vor",
    EnergyStatus.not_required: "kein Energieausweis erforderlich (z. B. Denkmalschutz)",
    EnergyStatus.missing: "keine Angabe zum Energieausweis",
    InquiryStatus.open: "offen",
    InquiryStatus.answered: "beantwortet",
    InquiryStatus.closed: "geschlossen",
    MessageAuthor.seeker: "Suchende/r",
    MessageAuthor.office: "Büro",
    InquirySort.newest: "neueste zuerst",
    InquirySort.oldest: "älteste zuerst",
    ProposalStatus.open: "offen",
    ProposalStatus.accepted: "angenommen",
    ProposalStatus.rejected: "abgelehnt",
    ValuationSubject.listing: "Objekt im Bestand",
    ValuationSubject.owner_lead: "Eigentümer-Kontakt",
    PendingActionKind.send_reply: "Antwort senden",
    PendingActionKind.send_inquiry: "Anfrage senden",
    PendingActionKind.decide_proposal: "Vorschlag entscheiden",
    ConfirmationStatus.pending: "wartet auf deinen Klick",
    ConfirmationStatus.sent: "gesendet",
    ConfirmationStatus.discarded: "verworfen",
    ConfirmationStatus.expired: "abgelaufen",
    ConfirmationStatus.sent_without_click: "ohne Klick gesendet (vom Büro freigegeben)",
    ConfirmedVia.card: "in der Bestätigungskarte",
    ConfirmedVia.page: "auf der Athaus-Bestätigungsseite",
    ConfirmedVia.app: "in der Athaus-Web-App",
    ConfirmedVia.no_click: "ohne Klick (vom Büro freigegeben)",
    Decision.send: "senden",
    Decision.discard: "verwerfen",
    ProposalDecision.accept: "annehmen",
    ProposalDecision.reject: "ablehnen",
    WriteResult.created: "angelegt",
    WriteResult.changed: "geändert",
    WriteResult.unchanged: "unverändert",
    SearchOrderStatus.active: "aktiv",
    SearchOrderStatus.paused: "pausiert",
    SearchOrderStatus.ended: "beendet",
    AlertFrequency.instant: "sofort",
    AlertFrequency.daily: "täglich",
    AlertFrequency.weekly: "wöchentlich",
    MatchKind.new_listing: "Neues Inserat",
    MatchKind.price_drop: "Preissenkung",
    MatchKind.status_change: "Statusänderung",
    MatchKind.proposal: "Vorschlag eines Maklers",
    MatchState.new: "neu",
    MatchState.seen: "gesehen",
    MatchState.interesting: "interessant",
    MatchState.not_interested: "nicht interessant",
    TransferScope.full: "vollständig (VOLL)",
    TransferScope.partial: "Teilübertragung (TEIL)",
    TransferSource.upload: "übergebene Datei",
    TransferSource.feed: "Feed-Adresse des Büros",
    ImportAction.new: "neu",
    ImportAction.change: "Änderung",
    ImportAction.delete: "Löschung",
    ImportOutcome.created: "angelegt",
    ImportOutcome.changed: "geändert",
    ImportOutcome.unchanged: "unverändert",
    ImportOutcome.withdrawn: "zurückgezogen",
    ImportOutcome.refused: "abgelehnt",
    ValueExclusion.on_request: "auf Anfrage oder Verhandlungssache",
    ValueExclusion.approximate: "nur ungefähr angegeben",
    ValueExclusion.ambiguous: "mehrdeutig geschrieben",
    ValueExclusion.not_a_number: "keine Zahl",
    ValueExclusion.out_of_range: "außerhalb des möglichen Bereichs",
    ValueExclusion.not_a_date: "kein Datum",
}

# German (and a few colloquial) words accepted as input, normalised to the English value. Per value set; matched
# after `contract.fields.lenient` folds case, reads `_` and `-` as spaces and joins runs of white space.
GERMAN_ALIASES: dict[type[StrEnum], dict[str, str]] = {
    Decision: {"senden": "send", "verwerfen": "discard", "bestaetigen": "send", "bestätigen": "send"},
    ProposalDecision: {"annehmen": "accept", "ablehnen": "reject"},
    MarketingType: {"kauf": "buy", "kaufen": "buy", "miete": "rent", "mieten": "rent"},
    PropertyType: {
        "wohnung": "apartment",
        "haus": "house",
        "grundstueck": "land",
        "grundstück": "land",
        "gewerbe": "commercial",
        "stellplatz": "parking",
        "garage": "parking",
    },
    Feature: {
        "balkon": "balcony",
        "terrasse": "terrace",
        "garten": "garden",
        "aufzug": "elevator",
        "fahrstuhl": "elevator",
        "lift": "elevator",
        "keller": "cellar",
        "stellplatz": "parking_space",
        "einbaukueche": "fitted_kitchen",
        "einbauküche": "fitted_kitchen",
        "barrierefrei": "barrier_free",
        "gaeste-wc": "guest_wc",
        "gäste-wc": "guest_wc",
        "kamin": "fireplace",
        "fussbodenheizung": "underfloor_heating",
        "fußbodenheizung": "underfloor_heating",
        "haustiere": "pets_allowed",
    },
    ListingStatus: {
        "entwurf": "draft",
        "veröffentlicht": "published",
        "veroeffentlicht": "published",
        "online": "published",
        "aktiv": "published",
        "reserviert": "reserved",
        "verkauft": "sold",
        "vermietet": "let",
        "zurückgezogen": "withdrawn",
        "zurueckgezogen": "withdrawn",
        "deaktiviert": "withdrawn",
    },
    InquiryStatus: {
        "offen": "open",
        "neu": "open",
        "beantwortet": "answered",
        "geschlossen": "closed",
        "erledigt": "closed",
        "abgeschlossen": "closed",
    },
    InquirySort: {"neueste": "newest", "neu": "newest", "aelteste": "oldest", "älteste": "oldest", "alt": "oldest"},
    ProposalStatus: {"offen": "open", "angenommen": "accepted", "abgelehnt": "rejected"},
    SearchOrderStatus: {
        "aktiv": "active",
        "fortsetzen": "active",
        "pausiert": "paused",
        "pausieren": "paused",
        "angehalten": "paused",
        "beendet": "ended",
        "beenden": "ended",
    },
    AlertFrequency: {
        "sofort": "instant",
        "täglich": "daily",
        "taeglich": "daily",
        "wöchentlich": "weekly",
        "woechentlich": "weekly",
    },
    MatchKind: {
        "neues inserat": "new_listing",
        "neu": "new_listing",
        "preissenkung": "price_drop",
        "preis gesenkt": "price_drop",
        "statusänderung": "status_change",
        "statusaenderung": "status_change",
        "vorschlag": "proposal",
        "maklervorschlag": "proposal",
    },
    MatchState: {
        "neu": "new",
        "ungesehen": "new",
        "gesehen": "seen",
        "interessant": "interesting",
        "nicht interessant": "not_interested",
        "uninteressant": "not_interested",
    },
}


def label(value: StrEnum) -> str:
    return LABELS[value]


def labelled(name: str, value: StrEnum) -> dict[str, Any]:
    """A result field and its German sibling `<name>_label`, as the result models carry them (and the text
    rendering reads them): `**labelled("status", status)` gives `status=status, status_label=label(status)`."""
    return {name: value, f"{name}_label": label(value)}


def stored_label(enum: type[StrEnum], value: str) -> str:
    """The German label of a stored `value` of `enum`; a value the set does not know (yet) is shown as stored."""
    try:
        return label(enum(value))
    except ValueError:
        return value


# German labels of what a seeker may share with a provider (Inquiry.shared_profile keys).
SHARED_PROFILE_LABELS: dict[str, str] = {
    "name": "Name",
    "about": "Über mich",
    "first_name": "Vorname",
    "last_name": "Nachname",
    "email": "E-Mail",
    "phone": "Telefon",
    "address": "Adresse",
    "household": "Haushalt",
    "household_size": "Personen im Haushalt",
    "adults": "Erwachsene",
    "children": "Kinder",
    "pets": "Haustiere",
    "smoker": "Raucher",
    "occupation": "Beruf",
    "employment": "Beschäftigung",
    "income": "Einkommen",
    "net_income": "Nettoeinkommen",
    "move_in": "Einzugstermin",
    "move_in_date": "Einzugstermin",
    "financing": "Finanzierung",
    "financing_confirmed": "Finanzierung bestätigt",
    "equity": "Eigenkapital",
    "schufa": "SCHUFA-Auskunft",
    "contact_preference": "Kontaktweg",
}
