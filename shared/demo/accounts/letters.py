"""The German messages of one inquiry thread: about one topic (viewing, documents, energy, costs, moving in)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from shared.demo.accounts.people import DemoUser
from shared.demo.accounts.stock import DemoListing
from shared.demo.german import de_number
from shared.demo.offices import DemoOffice

Message = tuple[str, int | None, str, dt.datetime]  # author ("seeker" | "office"), author's user id, body, time

_WEEKDAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")
_MONTHS = (
    "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November",
    "Dezember",
)
# How messages name the object: nominative, accusative, "Interesse …", pronoun
_OBJECT_WORDS = {
    "apartment": ("die Wohnung", "die Wohnung", "an der Wohnung", "Sie"),
    "house": ("das Haus", "das Haus", "am Haus", "Es"),
    "land": ("das Grundstück", "das Grundstück", "am Grundstück", "Es"),
    "commercial": ("die Fläche", "die Fläche", "an der Fläche", "Sie"),
    "parking": ("der Stellplatz", "den Stellplatz", "am Stellplatz", "Er"),
}
# The shared profile's household, as the seeker says it in a message.
_HOUSEHOLD_SENTENCES = {
    "1 Erwachsener": "Ich suche für mich allein.",
    "2 Erwachsene": "Wir sind ein Paar ohne Kinder.",
    "2 Erwachsene, 1 Kind": "Wir sind eine Familie mit einem Kind.",
    "2 Erwachsene, 2 Kinder": "Wir sind eine Familie mit zwei Kindern.",
    "1 Erwachsener, 1 Kind": "Ich bin alleinerziehend mit einem Kind.",
}


class Letters:
    """The messages of one inquiry thread: plausible German, about one topic (viewing, documents, …)."""

    def __init__(
        self, rng: random.Random, listing: DemoListing, seeker: DemoUser, household: str, opened_at: dt.datetime,
        office: DemoOffice, members: Sequence[DemoUser],
    ) -> None:
        self.rng = rng
        self.listing = listing
        self.seeker = seeker
        self.household = household  # as the seeker shared it
        self.opened_at = opened_at
        self.office = office
        self.members = list(members)
        topics = ["viewing", "viewing", "documents"]
        if listing.property_type in ("apartment", "house", "commercial"):
            topics += ["energy", "available"]
        if listing.service_charges is not None and listing.property_type in ("apartment", "house"):
            topics.append("costs")
        self.topic = rng.choice(topics)
        self.slot: str | None = None  # a viewing appointment the office offered
        self.confirmed = False  # … and the seeker accepted
        self.broker = rng.choice(self.members) if self.members else None

    @property
    def words(self) -> tuple[str, str, str, str]:
        return _OBJECT_WORDS[self.listing.property_type]

    def messages(self, times: Sequence[dt.datetime], closing: bool) -> list[Message]:
        seeker = self.seeker
        result = []
        # A closed thread of three or four messages ends with the seeker withdrawing (and the office's thanks).
        for n, at in enumerate(times):
            if n % 2 == 0:
                body = self.seeker_opening() if n == 0 else self.seeker_follow_up(at, closing)
                result.append(("seeker", seeker.id, body, at))
            else:
                body = self.office_reply(at, first=n == 1, author=self.broker, final=closing and n == 3)
                result.append(("office", self.broker.id if self.broker else None, body, at))
        return result

    # seeker

    def _seeker_signature(self) -> str:
        return f"\n\nViele Grüße\n{self.seeker.name}"

    def seeker_opening(self) -> str:
        rng, lst = self.rng, self.listing
        nom, acc, _, _ = self.words
        household = _HOUSEHOLD_SENTENCES.get(self.household, "")
        match self.topic:
            case "viewing":
                text = rng.choice((
                    f"Guten Tag,\n\nich interessiere mich sehr für Ihr Angebot „{lst.title}“ ({lst.ref}) und würde "
                    "gern einen Besichtigungstermin vereinbaren. Ich bin werktags ab 17 Uhr und samstags flexibel.",
                    f"Hallo,\n\nist {nom} ({lst.ref}) noch verfügbar? {household} Gern würde ich mir {acc} bei einer "
                    "Besichtigung ansehen. Passt Ihnen ein Termin in der kommenden Woche?",
                ))
            case "documents":
                extra = (
                    " sowie die Protokolle der letzten Eigentümerversammlungen"
                    if lst.property_type == "apartment" and lst.marketing_type == "buy" else ""
                )
                text = (
                    f"Guten Tag,\n\nkönnten Sie mir bitte das vollständige Exposé zu {lst.ref} mit Grundriss{extra} "
                    f"zusenden? {acc[0].upper() + acc[1:]} klingt sehr interessant."
                )
            case "energy":
                text = (
                    f"Guten Tag,\n\nim Inserat {lst.ref} finde ich nicht alle Angaben zum Energieausweis. Können Sie "
                    "mir den Ausweis schicken oder mir Kennwert, Energieträger und Art des Ausweises nennen?"
                )
            case "costs":
                if lst.marketing_type == "buy":
                    text = (
                        f"Guten Tag,\n\nwie hoch ist das Hausgeld für {acc} ({lst.ref}), und wie hoch ist die "
                        "Erhaltungsrücklage der Eigentümergemeinschaft?"
                    )
                else:
                    text = (
                        f"Guten Tag,\n\nwie setzen sich die Nebenkosten für {acc} ({lst.ref}) zusammen, und sind die "
                        "Heizkosten schon enthalten?"
                    )
            case _:
                month = _MONTHS[(self.opened_at.month + rng.randint(1, 3) - 1) % 12]
                text = (
                    f"Hallo,\n\nab wann wäre {nom} ({lst.ref}) frei? Ein Einzug zum 1. {month} wäre ideal. "
                    f"{household}"
                )
        return text + self._seeker_signature()

    def seeker_follow_up(self, at: dt.datetime, closing: bool) -> str:
        rng = self.rng
        _, acc, _, _ = self.words
        if closing:
            text = rng.choice((
                "Guten Tag,\n\nvielen Dank für Ihre Mühe. Wir haben uns inzwischen für ein anderes Objekt entschieden "
                "und ziehen unsere Anfrage zurück.",
                f"Hallo,\n\nnach reiflicher Überlegung passt {acc} leider doch nicht zu uns. Danke für Ihre schnelle "
                "Rückmeldung!",
            ))
        elif self.slot:
            self.confirmed = True
            documents = (
                "die Finanzierungsbestätigung" if self.listing.marketing_type == "buy"
                else "die Selbstauskunft und die letzten drei Gehaltsnachweise"
            )
            text = f"Guten Tag,\n\nvielen Dank, der Termin {self.slot} passt mir gut. Ich bringe {documents} mit."
        else:
            text = rng.choice((
                f"Guten Tag,\n\nvielen Dank für die Informationen! Ich würde {acc} gern besichtigen – wann wäre das "
                "möglich?",
                "Hallo,\n\ndanke für die schnelle Antwort. Gibt es in den nächsten Tagen noch einen freien "
                "Besichtigungstermin?",
            ))
        return text + self._seeker_signature()

    # office

    def _slot(self, at: dt.datetime) -> str:
        day = (at + dt.timedelta(days=self.rng.randint(2, 6))).date()
        if day.weekday() == 6:
            day += dt.timedelta(days=1)
        hour = self.rng.choice(("10:00", "11:00", "11:30") if day.weekday() == 5 else ("16:30", "17:00", "17:30", "18:00"))
        return f"am {_WEEKDAYS[day.weekday()]}, {day:%d.%m.}, um {hour} Uhr"

    def _office_signature(self, author: DemoUser | None) -> str:
        name = f"{author.name}\n" if author else ""
        return f"\n\nMit freundlichen Grüßen\n{name}{self.office.name}"

    def office_reply(self, at: dt.datetime, first: bool, author: DemoUser | None, final: bool = False) -> str:
        lst, seeker = self.listing, self.seeker
        nom, acc, dat, pronoun = self.words
        greeting = f"Guten Tag {seeker.salutation},\n\n"
        address = f"{lst.street} {lst.house_number}, {lst.postal_code} {lst.city}" if lst.street else lst.city
        if final:
            text = (
                "vielen Dank für Ihre Rückmeldung, schade! Wir schließen Ihre Anfrage damit ab. Gern informieren wir "
                "Sie, wenn wir ein ähnliches Objekt anbieten können."
            )
        elif not first and self.confirmed:
            text = (
                f"sehr gern – dann sehen wir uns {self.slot}. Die genaue Adresse lautet {address}. Bitte geben Sie "
                "kurz Bescheid, falls Ihnen etwas dazwischenkommt."
            )
        elif not first:
            self.slot = self._slot(at)
            text = (
                f"gern biete ich Ihnen einen Besichtigungstermin {self.slot} an. Die genaue Adresse lautet {address}. "
                "Geben Sie mir bitte kurz Bescheid, ob Ihnen der Termin passt."
            )
        else:
            match self.topic:
                case "viewing":
                    self.slot = self._slot(at)
                    text = (
                        f"vielen Dank für Ihr Interesse {dat} ({lst.ref}). {pronoun} ist noch verfügbar. Gern "
                        f"biete ich Ihnen einen Besichtigungstermin {self.slot} an. Passt Ihnen das?"
                    )
                case "documents":
                    text = (
                        "vielen Dank für Ihre Anfrage. Anbei erhalten Sie das Exposé mit Grundriss. "
                        + ("Die Protokolle und den Wirtschaftsplan stellen wir Ihnen nach der Besichtigung zur "
                           "Verfügung. " if lst.property_type == "apartment" and lst.marketing_type == "buy" else "")
                        + "Bei Fragen bin ich gern für Sie da."
                    )
                case "energy":
                    text = {
                        "present": "gern, den Energieausweis habe ich Ihnen angehängt. Die Pflichtangaben "
                                   "(Kennwert, Energieträger, Baujahr) stehen auch im Exposé.",
                        "at_viewing": "der Energieausweis wird gerade erstellt und liegt spätestens bei der "
                                      "Besichtigung vor. Ich schicke ihn Ihnen, sobald wir ihn haben.",
                        "not_required": "das Gebäude steht unter Denkmalschutz, deshalb ist kein Energieausweis "
                                        "erforderlich. Zur Heizung und zu den Verbrauchskosten gebe ich Ihnen gern "
                                        "Auskunft.",
                        "missing": "der Energieausweis liegt uns leider noch nicht vor; die Eigentümer haben ihn "
                                   "beauftragt. Ich melde mich, sobald er da ist.",
                    }.get(lst.energy_status, "den Energieausweis reiche ich Ihnen gern nach.")
                case "costs":
                    charges = de_number(lst.service_charges or 0)
                    if lst.marketing_type == "buy":
                        text = (
                            f"das Hausgeld beträgt {charges} € im Monat, davon sind etwa zwei Drittel auf Mieter "
                            "umlegbar. Die Erhaltungsrücklage nenne ich Ihnen nach Rücksprache mit der Verwaltung."
                        )
                    else:
                        heating = (
                            f"; die Heizkosten kommen mit {de_number(lst.heating_costs)} € hinzu"
                            if lst.heating_costs else "; die Heizkosten sind darin enthalten"
                        )
                        text = (
                            f"die Nebenkostenvorauszahlung beträgt {charges} € im Monat{heating}. Die letzte "
                            "Abrechnung lege ich Ihnen zur Besichtigung vor."
                        )
                case _:
                    if lst.available_from:
                        when = f"ab dem {lst.available_from:%d.%m.%Y}"
                    else:
                        when = {"sofort": "sofort", "nach Vereinbarung": "nach Vereinbarung"}.get(
                            lst.availability_note or "", "nach Absprache"
                        )
                    text = f"{nom} ist {when} bezugsfrei. Gern vereinbaren wir vorher einen Besichtigungstermin."

        return greeting + text + self._office_signature(author)
