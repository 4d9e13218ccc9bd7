"""A listing as a person sees it on a page, built from the contract's exposé (`ListingDetail`) and summary
(`ListingSummary`): the gallery, the key facts, the energy certificate as GEG §87 asks of an advertisement, the
description in its paragraphs, the location, the provider, and a card of a listing. One set of pieces for the public
exposé, the office's stock page, the gone page and the confirmation page.

A person never reads a model's note here: an absent value is left out (or says "auf Anfrage" where the provider
withholds it), no quote frame, no field name. Every value of other people passes through `html.escape`. A photo is
shown only when it is served from the deployment's own address (no third-party request from a visitor's browser,
and the demo's img.example.org addresses, which never resolve, are never a broken image); otherwise a drawing of
the property type, captioned as an illustration."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from contract.catalog import ListingDetail, ListingSummary, Money, Photo
from contract.envelope import AbsenceReason, Absent
from contract.vocabulary import CertificateType, EnergyStatus, MarketingType, PropertyType, label
from shared.german import date_text, number
from shared.images import NAME as IMAGE_NAME
from shared.webapp.illustrations import illustration

ILLUSTRATION_CAPTION = "Illustration – noch kein Foto dieses Objekts"
PARAGRAPHS = re.compile(r"\n\s*\n")
_CLASS_COLOURS = {"A+": "#00843d", "A": "#1f9a3c", "B": "#7cb832", "C": "#c6d82d", "D": "#fff200", "E": "#fdb913", "F": "#f47b20", "G": "#e2231a", "H": "#b2181b"}

STYLE = """
main.wide,header.wide{max-width:68rem}
.kicker{color:var(--muted);font-size:.9rem;margin:-.6rem 0 .4rem}
.summary{font-size:1.1rem;font-weight:600;margin:0 0 1rem}
.gallery{display:grid;gap:.5rem;grid-template-columns:repeat(4,1fr);margin:0 0 1.2rem}
.gallery figure{margin:0;background:var(--card);border:1px solid var(--border);border-radius:.5rem;overflow:hidden}
.gallery figure.lead{grid-column:1/-1}
.gallery img,.gallery svg{display:block;width:100%;height:auto;aspect-ratio:4/3;object-fit:cover}
.gallery figure.lead img,.gallery figure.lead svg{aspect-ratio:16/9;max-height:30rem}
.gallery figure.lead svg{max-height:16rem}
.illustration{background:#e9e3da}
.gallery figcaption{font-size:.85rem;color:var(--muted);padding:.3rem .6rem;overflow-wrap:break-word}
@media (max-width:30rem){.gallery{grid-template-columns:1fr 1fr}}
.expose{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:52rem){.expose{grid-template-columns:minmax(0,1fr) 19rem}.expose aside{grid-row:1/span 9;grid-column:2}}
.expose section,.expose aside>div{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem 1.2rem}
.expose aside{display:flex;flex-direction:column;gap:1rem}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:.8rem;margin:0}
@media (max-width:30rem){.facts{grid-template-columns:1fr 1fr}}
.facts div{display:flex;flex-direction:column}
.facts dt{font-size:.85rem;color:var(--muted)}
.facts dd{font-weight:600;margin:0;overflow-wrap:break-word;hyphens:auto}
.description p{margin:0 0 .8rem;overflow-wrap:anywhere}
.chips{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;padding:0;margin:0}
.chips li{background:var(--soft);border:1px solid var(--border);border-radius:1rem;padding:.15rem .7rem;font-size:.9rem}
.energy-class{display:inline-flex;align-items:center;gap:.4rem;font-weight:700}
.energy-class span{display:inline-block;width:1.1rem;height:1.1rem;border-radius:.2rem;border:1px solid var(--border)}
.price{font-size:1.5rem;font-weight:700;margin:0}
.price-note{color:var(--muted);margin:0 0 .8rem}
a.button{display:block;text-align:center;font-weight:600;padding:.65rem 1rem;border-radius:.4rem;background:var(--accent);
color:var(--accent-text);text-decoration:none}
a{color:var(--link,inherit)}
.cards{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));list-style:none;padding:0;margin:0 0 1rem}
article.card{background:var(--card);border:1px solid var(--border);border-radius:.6rem;overflow:hidden;display:flex;flex-direction:column;height:100%;padding:0;margin:0;box-sizing:border-box}
.card img,.card svg{display:block;width:100%;height:auto;aspect-ratio:16/10;object-fit:cover}
.card .text{padding:.6rem .9rem .8rem}
.card .pic{position:relative}
.card svg{max-height:10rem}
.card .badge{position:absolute;left:.5rem;top:.5rem;background:#fff;color:#1d1d1b;font-size:.75rem;padding:.1rem .45rem;border-radius:.3rem}
.card h2,.card h3{font-size:1rem;margin:0 0 .3rem;overflow-wrap:break-word;hyphens:auto}
.card p{margin:0;color:var(--muted);font-size:.9rem}
.card .card-price{color:var(--text);font-weight:700;font-size:1rem}
"""


def _given(value: object) -> object | None:
    return None if isinstance(value, Absent) else value


def _withheld(value: object) -> bool:
    return isinstance(value, Absent) and value.reason is AbsenceReason.withheld


def _num(value: float) -> str:
    """A measure in German, with as many decimals as it has (78 m², 78,5 m², 2,5 Zimmer)."""
    digits = 0 if value % 1 == 0 else (1 if round(value * 10) == value * 10 else 2)
    return number(value, digits)


def _money(value: object) -> str | None:
    return number(value.amount, 0 if value.amount % 1 == 0 else 2) + " €" if isinstance(value, Money) else None


def _floor(floor: int) -> str:
    return "Erdgeschoss" if floor == 0 else (f"{floor}. Etage" if floor > 0 else f"{-floor}. Untergeschoss")


# ---- photos ------------------------------------------------------------------------------------------------


def shown_photos(photos: Sequence[Photo] | Absent, public_url: str) -> tuple[list[Photo], list[Photo]]:
    """The photos a page can show (served from the deployment's own address) by their group: the title photo first,
    then the others in their order, and the floor plans apart. A photo without a group is a photo."""
    if isinstance(photos, Absent):
        return [], []
    own = public_url.rstrip("/") + "/"
    loadable = [photo for photo in photos if photo.url.startswith(own)]
    plans = [photo for photo in loadable if photo.group == "floor_plan"]
    others = [photo for photo in loadable if photo.group != "floor_plan"]
    return sorted(others, key=lambda photo: photo.group != "title"), plans


def sized(url: str, size: str) -> str:
    """A stored image's URL in one of the store's sizes (klein, mittel, gross: shared/images/web.py); any other URL as
    it is."""
    head, _, name = url.rpartition("/")
    if head.endswith("/bilder") and IMAGE_NAME.fullmatch(name):
        return f"{head}/{size}/{name}"
    return url


def _figure(photo: Photo, alt: str, css: str = "", lazy: bool = True) -> str:
    """A gallery photo: the medium size, a link to the large one."""
    caption = f"<figcaption>{escape(photo.caption)}</figcaption>" if photo.caption else ""
    loading = ' loading="lazy"' if lazy else ""
    return (
        f'<figure class="{css}"><a href="{escape(sized(photo.url, "gross"))}"><img src="{escape(sized(photo.url, "mittel"))}" '
        f'alt="{escape(photo.caption or alt)}"{loading} width="800" height="600"></a>{caption}</figure>'
    )


def placeholder(property_type: PropertyType, css: str = "lead") -> str:
    drawing = illustration(property_type.value, f"Illustration: {label(property_type)}")
    return f'<figure class="{css}">{drawing}<figcaption>{ILLUSTRATION_CAPTION}</figcaption></figure>'


def gallery(detail: ListingDetail, public_url: str) -> str:
    pictures, _ = shown_photos(detail.photos, public_url)
    if not pictures:
        return f'<div class="gallery">{placeholder(detail.property_type)}</div>'
    first, *rest = pictures
    items = _figure(first, f"Titelbild: {detail.title}", "lead", lazy=False)
    items += "".join(_figure(photo, f"Foto {n}: {detail.title}") for n, photo in enumerate(rest, start=2))
    return f'<div class="gallery" aria-label="Fotos">{items}</div>'


def _floor_plans(detail: ListingDetail, public_url: str) -> str:
    _, plans = shown_photos(detail.photos, public_url)
    if not plans:
        return ""
    items = "".join(_figure(photo, f"Grundriss {n}") for n, photo in enumerate(plans, start=1))
    return f'<section aria-labelledby="grundrisse"><h2 id="grundrisse">Grundrisse</h2><div class="gallery">{items}</div></section>'


# ---- facts -------------------------------------------------------------------------------------------------


def price_line(marketing_type: MarketingType, price: object, warm_rent: object) -> tuple[str, str]:
    """The headline price: (what, amount) — the warm rent of a rental where known, else the cold rent or purchase price."""
    rent = marketing_type == MarketingType.rent
    if rent and _money(warm_rent):
        return "Warmmiete", _money(warm_rent) or ""
    what = "Kaltmiete" if rent else "Kaufpreis"
    if _money(price):
        return what, _money(price) or ""
    return what, "auf Anfrage" if _withheld(price) else "ohne Angabe"


def summary_text(marketing_type: MarketingType, price: object, warm_rent: object, rooms: object, area: object, city: str) -> str:
    """One line: price, rooms, living area and town (the preview of a shared link, the card)."""
    what, amount = price_line(marketing_type, price, warm_rent)
    parts = [f"{what} {amount}"]
    if isinstance(rooms, (int, float)):
        parts.append(f"{_num(rooms)} Zimmer")
    if isinstance(area, (int, float)):
        parts.append(f"{_num(area)} m²")
    return " · ".join([*parts, city])


def key_facts(detail: ListingDetail) -> list[tuple[str, str]]:
    costs, areas = detail.costs, detail.areas
    rent = detail.marketing_type == MarketingType.rent
    facts: list[tuple[str, str]] = []
    what = "Kaltmiete" if rent else "Kaufpreis"
    facts.append((what, _money(costs.price) or ("auf Anfrage" if _withheld(costs.price) else "ohne Angabe")))
    if rent:
        facts += [(name, shown) for name, value in (("Nebenkosten", costs.service_charges), ("Heizkosten", costs.heating_costs), ("Warmmiete", costs.warm_rent)) if (shown := _money(value))]
    elif (hausgeld := _money(costs.service_charges)) is not None:
        facts.append(("Hausgeld", hausgeld))
    for name, value, unit in (("Zimmer", areas.rooms, ""), ("Wohnfläche", areas.living_area, " m²"), ("Grundstück", areas.plot_area, " m²")):
        if isinstance(value, (int, float)):
            facts.append((name, _num(value) + unit))
    if isinstance(areas.floor, int):
        facts.append(("Etage", _floor(areas.floor)))
    if isinstance(detail.year_built, int):
        facts.append(("Baujahr", str(detail.year_built)))
    available, note = _given(detail.availability.available_from), _given(detail.availability.note)
    if available is not None or note:
        facts.append(("Frei ab", date_text(available) if available is not None else str(note)))  # type: ignore[arg-type]
    if rent and (deposit := _given(costs.deposit)):
        facts.append(("Kaution", str(deposit)))
    if (commission := _given(costs.commission)):
        facts.append(("Provision", str(commission)))
    return facts


def _dl(facts: Sequence[tuple[str, str]], css: str = "facts") -> str:
    return f'<dl class="{css}">' + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts) + "</dl>"


def energy_class_badge(energy_class: str) -> str:
    colour = _CLASS_COLOURS.get(energy_class.upper(), "transparent")
    return f'<span class="energy-class"><span style="background:{colour}" aria-hidden="true"></span>{escape(energy_class)}</span>'


def energy(detail: ListingDetail) -> str:
    """The energy certificate with what GEG §87 requires of an advertisement: the kind of certificate, the final
    energy demand or consumption, the main energy source, the year of construction and (residential) the class."""
    cert = detail.energy
    head = '<section aria-labelledby="energie"><h2 id="energie">Energieausweis</h2>'
    if cert.status is EnergyStatus.at_viewing:
        return head + "<p>Der Energieausweis liegt bei der Besichtigung vor.</p></section>"
    if cert.status is EnergyStatus.not_required:
        return head + "<p>Für dieses Objekt ist kein Energieausweis erforderlich.</p></section>"
    kind = _given(cert.certificate_type)
    rows: list[tuple[str, str]] = []
    if kind is not None:
        rows.append(("Art des Ausweises", "Bedarfsausweis" if kind == CertificateType.demand else "Verbrauchsausweis"))
    if isinstance(cert.energy_value, (int, float)):
        what = "Endenergieverbrauch" if kind == CertificateType.consumption else "Endenergiebedarf"
        rows.append((what, f"{_num(cert.energy_value)} kWh/(m²·a)"))
    if (carrier := _given(cert.energy_carrier)):
        rows.append(("Wesentlicher Energieträger", str(carrier)))
    year = _given(cert.year_built) or _given(detail.year_built)
    if year is not None:
        rows.append(("Baujahr", str(year)))
    if (valid := _given(cert.valid_until)) is not None:
        rows.append(("Gültig bis", date_text(valid)))  # type: ignore[arg-type]
    if not rows and _given(cert.energy_class) is None:
        return head + "<p>Der Anbieter macht keine Angaben zum Energieausweis.</p></section>"
    facts = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in rows)
    if (cls := _given(cert.energy_class)):
        facts += f"<div><dt>Energieeffizienzklasse</dt><dd>{energy_class_badge(str(cls))}</dd></div>"
    return head + f'<dl class="facts">{facts}</dl></section>'


def description(detail: ListingDetail) -> str:
    text = _given(detail.description)
    if not text:
        return ""
    paragraphs = "".join(
        "<p>" + "<br>".join(escape(line) for line in part.strip().splitlines()) + "</p>" for part in PARAGRAPHS.split(str(text)) if part.strip()
    )
    return f'<section class="description" aria-labelledby="beschreibung"><h2 id="beschreibung">Beschreibung</h2>{paragraphs}</section>'


def features(detail: ListingDetail) -> str:
    if not detail.feature_labels:
        return ""
    chips = "".join(f"<li>{escape(name)}</li>" for name in detail.feature_labels)
    return f'<section aria-labelledby="ausstattung"><h2 id="ausstattung">Ausstattung</h2><ul class="chips">{chips}</ul></section>'


def place_text(postal_code: str, city: str, district: object) -> str:
    shown = _given(district)
    return f"{postal_code} {city}" + (f"-{shown}" if shown and shown != city else "")


def location(detail: ListingDetail) -> str:
    """District and town; the exact address with a map link only where the provider publishes it, else the area."""
    address = detail.address
    lines = [place_text(address.postal_code, address.city, address.district), address.state]
    street, number_ = _given(address.street), _given(address.house_number)
    if address.coordinates_exact and street:
        lines.insert(0, f"{street} {number_ or ''}".strip())
        lat, lon = f"{address.latitude:.6f}", f"{address.longitude:.6f}"
        link = f"https://www.openstreetmap.org/?mlat={lat}&amp;mlon={lon}#map=17/{lat}/{lon}"
        map_text, note = "Lage auf OpenStreetMap ansehen", ""
    else:
        link = "https://www.openstreetmap.org/search?query=" + quote(f"{address.postal_code} {address.city}")
        map_text = f"Gegend auf OpenStreetMap ansehen (PLZ {address.postal_code})"
        note = "<p>Die genaue Adresse nennt der Anbieter auf Anfrage.</p>"
    shown = "<br>".join(escape(line) for line in lines)
    return (
        f'<section aria-labelledby="lage"><h2 id="lage">Lage</h2><p>{shown}</p>{note}'
        f'<p><a href="{link}" rel="noopener noreferrer">{escape(map_text)}</a></p></section>'
    )


def provider(detail: ListingDetail) -> str:
    office = detail.provider
    rows = [f"<p><strong>{escape(office.name)}</strong><br>{escape(office.city)}</p>"]
    if (phone := _given(office.phone)):
        rows.append(f'<p>Telefon: <a href="tel:{escape(re.sub(r"[^0-9+]", "", str(phone)))}">{escape(str(phone))}</a></p>')
    if (email := _given(office.email)):
        rows.append(f'<p>E-Mail: <a href="mailto:{escape(str(email))}">{escape(str(email))}</a></p>')
    if (website := _given(office.website)) and str(website).startswith(("https://", "http://")):
        rows.append(f'<p><a href="{escape(str(website))}" rel="noopener noreferrer nofollow">Website des Anbieters</a></p>')
    return '<div aria-labelledby="anbieter"><h2 id="anbieter">Anbieter</h2>' + "".join(rows) + "</div>"


def kind_text(marketing_type: MarketingType, property_type: PropertyType) -> str:
    return f"{label(property_type)} zur {'Miete' if marketing_type == MarketingType.rent else 'Kauf'}".replace("zur Kauf", "zum Kauf")


# ---- assembled -------------------------------------------------------------------------------------------


def expose_html(detail: ListingDetail, *, public_url: str, inquiry_href: str | None, office_panel: str = "") -> str:
    """The exposé's body below its heading (the title): the one layout of the public page and the office's page."""
    what, amount = price_line(detail.marketing_type, detail.costs.price, detail.costs.warm_rent)
    ask = (
        f'<a class="button" href="{escape(inquiry_href)}">Anfrage stellen</a>'
        '<p class="price-note" style="margin-top:.5rem">Du meldest dich an (oder legst ein Konto an), schreibst deine '
        "Nachricht und bestätigst sie, bevor sie hinausgeht.</p>"
        if inquiry_href
        else ""
    )
    aside = f'<aside><div><p class="price-note">{escape(what)}</p><p class="price">{escape(amount)}</p>{ask}</div>{provider(detail)}{office_panel}</aside>'
    summary = summary_text(detail.marketing_type, detail.costs.price, detail.costs.warm_rent, detail.areas.rooms, detail.areas.living_area, detail.address.city)
    return (
        f'<p class="kicker">{escape(kind_text(detail.marketing_type, detail.property_type))} · Inserat {escape(detail.listing_id)}</p>'
        f'<p class="summary">{escape(summary)}</p>{gallery(detail, public_url)}'
        f'<div class="expose"><section aria-labelledby="eckdaten"><h2 id="eckdaten">Eckdaten</h2>{_dl(key_facts(detail))}</section>'
        f"{aside}"
        f"{description(detail)}{features(detail)}{energy(detail)}{location(detail)}{_floor_plans(detail, public_url)}</div>"
    )


def og_head(detail: ListingDetail, *, url: str, public_url: str) -> str:
    """OpenGraph and a description, so a shared link previews with the title, price, rooms, area, town and a photo
    (only a real one)."""
    summary = summary_text(detail.marketing_type, detail.costs.price, detail.costs.warm_rent, detail.areas.rooms, detail.areas.living_area, detail.address.city)
    pictures, _ = shown_photos(detail.photos, public_url)
    tags = [
        ("name", "description", summary),
        ("property", "og:type", "website"),
        ("property", "og:site_name", "Athaus"),
        ("property", "og:locale", "de_DE"),
        ("property", "og:title", detail.title),
        ("property", "og:description", summary),
        ("property", "og:url", url),
        ("name", "twitter:card", "summary_large_image" if pictures else "summary"),
    ]
    if pictures:
        tags.append(("property", "og:image", sized(pictures[0].url, "gross")))
    return "".join(f'<meta {kind}="{name}" content="{escape(value)}">' for kind, name, value in tags) + f'<link rel="canonical" href="{escape(url)}">'


def card_html(item: ListingSummary, *, href: str, public_url: str, heading: str = "h3") -> str:
    """One listing as a card: the title photo (or the labelled drawing), price, rooms, area, place, energy class."""
    pictures, _ = shown_photos(item.photos, public_url)
    image = (
        f'<img src="{escape(sized(pictures[0].url, "klein"))}" alt="" loading="lazy" width="640" height="400">'
        if pictures
        else '<div class="pic">' + illustration(item.property_type.value, f"Illustration: {label(item.property_type)}, kein Foto")
        + '<span class="badge" aria-hidden="true">Illustration</span></div>'
    )
    what, amount = price_line(item.marketing_type, item.price, item.warm_rent)
    measures = " · ".join(
        part for part in (
            f"{_num(item.rooms)} Zimmer" if isinstance(item.rooms, (int, float)) else "",
            f"{_num(item.living_area)} m²" if isinstance(item.living_area, (int, float)) else "",
        ) if part
    )
    energy_class = f" · Energieklasse {escape(item.energy_class)}" if isinstance(item.energy_class, str) else ""
    return (
        f'<article class="card">{image}<div class="text"><{heading}><a href="{escape(href)}">{escape(item.title)}</a></{heading}>'
        f'<p class="card-price">{escape(what)} {escape(amount)}</p><p>{escape(measures)}{energy_class}</p>'
        f"<p>{escape(place_text(item.postal_code, item.city, item.district))}</p></div></article>"
    )


def cards_html(items: Sequence[tuple[ListingSummary, str]], *, public_url: str) -> str:
    return '<ul class="cards">' + "".join(f"<li>{card_html(item, href=href, public_url=public_url)}</li>" for item, href in items) + "</ul>"
