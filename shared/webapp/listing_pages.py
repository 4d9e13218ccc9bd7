"""The pages around a listing that are not the exposé itself: the gone page with similar listings, the office's panel
on its own listing, and the seeker's inquiry form ("Anfrage stellen"), built from the pieces of `listing`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from html import escape
from zoneinfo import ZoneInfo

from starlette.responses import Response

from contract.broker_stock import StockListingDetail
from contract.broker_inquiries import InquiryDetail
from contract.catalog import ListingDetail, ListingSummary
from contract.confirmations import CONFIRM_PAGE_PATH
from contract.vocabulary import SHARED_PROFILE_LABELS, label
from shared.webapp.listing import PARAGRAPHS, cards_html, price_line, summary_text
from shared.webapp.pages import listing_page

GERMAN_TIME = ZoneInfo("Europe/Berlin")  # the time a person in Germany reads
SHAREABLE = ("name", "email", "phone")  # what of the account a seeker may share with a provider (ContactItem)


def gone_html(similar: Sequence[tuple[ListingSummary, str]], *, city: str, public_url: str) -> str:
    lead = (
        '<p class="notice info" role="status">Dieses Inserat wird nicht mehr angeboten: es ist verkauft, vermietet, '
        "reserviert oder vom Anbieter zurückgezogen.</p>"
    )
    if not similar:
        return lead + f"<p>Ähnliche Inserate in {escape(city)} gibt es gerade nicht.</p>"
    return lead + f'<h2>Ähnliche Inserate in {escape(city)}</h2>{cards_html(similar, public_url=public_url)}'


def office_panel(detail: StockListingDetail, *, public_href: str | None) -> str:
    """What only the office sees beside its own listing: status, whether the address is public, its numbers."""
    rows = [("Status", detail.status_label), ("Adresse im Exposé", "veröffentlicht" if detail.address_published else "nur auf Anfrage")]
    if isinstance(detail.objektnr_extern, str):
        rows.append(("Objektnr. extern", detail.objektnr_extern))
    facts = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    link = f'<p><a href="{escape(public_href)}">Öffentliches Exposé ansehen</a></p>' if public_href else "<p>Nicht öffentlich.</p>"
    return f'<div aria-labelledby="buero"><h2 id="buero">Für dein Büro</h2><dl>{facts}</dl>{link}</div>'


def default_message(detail: ListingDetail) -> str:
    return (
        f"Guten Tag,\n\nich interessiere mich für Ihr Inserat „{detail.title}“ ({detail.listing_id}) und bitte um weitere "
        "Informationen und einen Termin zur Besichtigung.\n\nMit freundlichen Grüßen"
    )


def inquiry_page(
    detail: ListingDetail, *, action: str, csrf_token: str, request_key: str, message: str, shared: Sequence[str], problem: str | None,
    user_name: str,
) -> Response:
    """The seeker's message to the provider; sent only after the confirmation page's click. `request_key` is the
    draft's idempotency key, one per form shown: a second submit of the same form returns the first draft."""
    summary = summary_text(detail.marketing_type, detail.costs.price, detail.costs.warm_rent, detail.areas.rooms, detail.areas.living_area, detail.address.city)
    error = f'<p class="notice error" role="alert">{escape(problem)}</p>' if problem else ""
    boxes = "".join(
        f'<label><input type="checkbox" name="teilen" value="{item}"{" checked" if item in shared else ""}>'
        f"{escape(SHARED_PROFILE_LABELS[item])}</label>"
        for item in SHAREABLE
    )
    body = (
        f'<p class="kicker">Angemeldet als {escape(user_name)}</p>'
        f'<div class="panel" style="max-width:none"><p><a href="/inserate/{escape(detail.listing_id)}">{escape(detail.title)}</a></p>'
        f"<p>{escape(summary)} · {escape(detail.provider.name)}</p></div>{error}"
        f'<form method="post" action="{escape(action)}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        f'<input type="hidden" name="anfrage_id" value="{escape(request_key)}">'
        '<label for="nachricht">Deine Nachricht an den Anbieter</label>'
        f'<textarea id="nachricht" name="nachricht" rows="8" required maxlength="4000" style="width:100%;box-sizing:border-box;font:inherit;padding:.5rem">'
        f"{escape(message)}</textarea>"
        f"<fieldset><legend>Diese Angaben aus deinem Konto gehen mit:</legend>{boxes}</fieldset>"
        "<p>Im nächsten Schritt siehst du genau, was hinausgeht; erst dein Klick auf „Senden“ schickt die Anfrage ab.</p>"
        '<div class="actions"><button class="primary" type="submit">Anfrage vorbereiten</button></div></form>'
    )
    return listing_page("Anfrage stellen", f'<div style="max-width:44rem">{body}</div>')


def _when(value: dt.datetime) -> str:
    return value.astimezone(GERMAN_TIME).strftime("%d.%m.%Y %H:%M")


def _paragraphs(text: str) -> str:
    return "".join("<p>" + "<br>".join(escape(line) for line in part.strip().splitlines()) + "</p>" for part in PARAGRAPHS.split(text) if part.strip())


def inquiry_html(detail: InquiryDetail, *, listing_href: str) -> str:
    """An inquiry to the office as a person reads it: the listing, what the seeker shared, the thread, open drafts."""
    listing = detail.listing
    what, amount = price_line(listing.marketing_type, listing.price, None)
    facts = [("Status", label(detail.status)), ("Eingang", _when(detail.created_at)), ("Nachrichten", str(detail.message_count))]
    if detail.days_awaiting_reply is not None:
        facts.append(("Tage ohne Antwort", str(detail.days_awaiting_reply)))
    seeker = detail.seeker
    shared = [(name, value) for name, value in (("Name", seeker.name), ("E-Mail", seeker.email), ("Telefon", seeker.phone)) if isinstance(value, str)]
    shared += [(entry.label, entry.value) for entry in seeker.further]
    person = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in shared) or "<dd>Keine Angaben freigegeben.</dd>"
    thread = "".join(
        f'<article><p class="label">{escape(label(message.author))}'
        f"{' · ' + escape(message.author_name) if isinstance(message.author_name, str) else ''} · {_when(message.sent_at)}</p>"
        f'<div class="description">{_paragraphs(message.text)}</div></article>'
        for message in detail.thread
    )
    drafts = "".join(
        f'<li><a href="{CONFIRM_PAGE_PATH}{escape(draft.confirmation_id)}">{escape(draft.confirmation_id)}</a>: {escape(draft.summary)}</li>'
        for draft in detail.open_drafts
    )
    notes = "".join(f"<li>{escape(note)}</li>" for note in detail.delivery_notes)
    return (
        '<div style="max-width:44rem">'
        f'<div class="panel" style="max-width:none"><p><a href="{escape(listing_href)}">{escape(listing.title)}</a></p>'
        f"<p>{escape(what)} {escape(amount)} · {escape(listing.city)} · Inserat {escape(listing.listing_id)}</p></div>"
        f'<dl class="facts">{"".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts)}</dl>'
        f'<h2 class="section">Angaben der oder des Suchenden</h2><div class="panel" style="max-width:none"><dl>{person}</dl></div>'
        f'<h2 class="section">Verlauf</h2>{thread}'
        + (f'<h2 class="section">Wartet auf deinen Klick</h2><ul>{drafts}</ul>' if drafts else "")
        + (f'<h2 class="section">Nicht zugestellt</h2><ul>{notes}</ul>' if notes else "")
        + "</div>"
    )
