"""The German meanings of the contract's own names (verbs, effects, envelope fields, codes), for the docs.

tests/test_docs.py fails when a code has none."""

from __future__ import annotations

from contract.envelope import AbsenceReason, ReasonCode, WarningCode
from contract.errors import ErrorCode
from contract.tool import Effect

# --- German meanings, keyed by the contract's own names ------------------------------------------------

VERB_MEANINGS: dict[str, str] = {
    "search": "Freitext und Filter über große Mengen, Ergebnis seitenweise",
    "list": "kleine Mengen aus deinem Konto oder Büro, ohne Freitext",
    "get": "ein Ding mit allem Zusammenhang, den die nächste Entscheidung braucht",
    "check": "prüft etwas und meldet Befunde, ändert nichts",
    "estimate": "schätzt einen Wert und sagt, worauf die Schätzung beruht",
    "count": "zählt und schlüsselt auf, ohne Einträge zu liefern",
    "calculate": "rechnet nach festen Regeln und nennt sie",
    "show": "zeigt eine Übersicht, etwa den Lagebericht",
    "save": "ohne Kennung anlegen, mit Kennung ändern",
    "import": "viele Objekte aus einer Übertragung anlegen oder ändern; dieselbe Übertragung zweimal ändert nichts",
    "update": "ändern, wo es nichts anzulegen gibt, etwa einen Status",
    "draft": "einen Entwurf vorbereiten; hinaus geht nichts",
    "send": "Versenden vorbereiten; ausgeführt wird es erst durch deinen Klick",
    "decide": "eine Entscheidung vorbereiten; ausgeführt wird sie erst durch deinen Klick",
}

EFFECT_MEANINGS: dict[Effect, str] = {
    Effect.read: "liest nur und ändert nichts",
    Effect.save: "legt an oder ändert; request_id ist Pflicht, eine Wiederholung gibt das erste Ergebnis und legt nichts doppelt an",
    Effect.update: "ändert Bestehendes; derselbe Aufruf zweimal ergibt denselben Stand",
    Effect.draft: "legt einen Entwurf an; request_id ist Pflicht, eine Wiederholung gibt denselben Entwurf; nichts verlässt Athaus",
    Effect.outbound: "bereitet vor, was hinausgeht; der Klick eines Menschen führt es aus, ein Doppelklick nur einmal",
}

ENVELOPE_FIELDS: dict[str, str] = {
    "status": (
        "`complete` oder `partial`: `partial`, sobald `completeness.complete` false ist, und nie `success` für eine Teilantwort."
    ),
    "completeness": (
        "Ob die Antwort den ganzen angefragten Umfang enthält (`complete`), wenn nicht, warum (`reasons`, je ein Code "
        "mit einem Satz) und wo es weitergeht (`next_cursor`)."
    ),
    "match_type": "`matches`, wenn etwas gefunden wurde, `none` bei einem leeren Ergebnis.",
    "request": (
        "Die Anfrage, wie sie ausgeführt wurde: jede Eingabe mit dem verwendeten Wert, Standardwerte eingeschlossen; "
        "ein weggelassener Filter steht hier ausdrücklich als alles davon."
    ),
    "request_sources": (
        "Woher ein Wert unter `request` stammt, für jeden Wert, der nicht die Vorgabe des Servers ist: `caller` (von dir), "
        "`login` (aus der Anmeldung, etwa dein Büro), `cursor` (aus dem Cursor)."
    ),
    "warnings": "Hinweise mit festem Code und einem deutschen Satz, etwa wenn ein Standardumfang angewandt wurde.",
    "freshness": (
        "Wann sich die Daten zuletzt geändert haben (`data_as_of`) und zu welchem Datenstand Antwort und Cursor "
        "gehören (`snapshot`)."
    ),
    "hint": "Nur bei einem leeren Ergebnis: der nächste Schritt, gebaut aus genau dieser Anfrage.",
    "suggestions": (
        "Nur bei einem leeren Ergebnis: Änderungen deiner eigenen Eingabe (`arguments`, `reason`), die der Server "
        "nicht ausprobiert hat (`searched` ist immer false)."
    ),
    "returned": "Wie viele Einträge diese Antwort enthält.",
    "total": "Wie viele Einträge der angefragte Umfang insgesamt hat, soweit bekannt; sonst null.",
    "sort_key": (
        "Die vollständige Reihenfolge der Einträge; der eindeutige Schlüssel steht zuletzt, sodass sich Seiten nie überschneiden."
    ),
    "sort_key_label": "Dieselbe Reihenfolge in deutschen Worten, für den Text der Antwort.",
    "items": "Die Einträge dieser Seite, in der Reihenfolge von `sort_key`.",
}

# (meaning, example)
ABSENCE_MEANINGS: dict[AbsenceReason, tuple[str, str]] = {
    AbsenceReason.not_collected: (
        "Dieser Aufruf hat den Wert nicht abgefragt; es kann ihn trotzdem geben.",
        "die Beschreibung eines Treffers, solange `include.description` nicht true ist",
    ),
    AbsenceReason.empty_in_source: (
        "Die Quelle hat keinen Wert: der Anbieter hat nichts angegeben.",
        "ein Inserat ohne Angabe zur Etage",
    ),
    AbsenceReason.withheld: (
        "Es gibt einen Wert, er wird aber nicht gezeigt.",
        "„Preis auf Anfrage“; die genaue Adresse, die der Anbieter erst auf eine Anfrage nennt",
    ),
}

# (meaning, next step)
ERROR_MEANINGS: dict[ErrorCode, tuple[str, str]] = {
    ErrorCode.INVALID_ARGUMENT: (
        "Ein Argument ist unbekannt, hat die falsche Form oder einen unzulässigen Wert.",
        "Das genannte Argument korrigieren und erneut aufrufen.",
    ),
    ErrorCode.NOT_FOUND: (
        "Das angefragte Ding gibt es nicht, oder es ist für dich nicht sichtbar.",
        "Die Kennung prüfen, etwa mit einer Suche, und mit der richtigen erneut aufrufen.",
    ),
    ErrorCode.MISSING_RIGHT: (
        "Deinem Zugang fehlt das Recht, das dieses Werkzeug verlangt.",
        "Den Zugang verknüpfen oder erweitern; die Aufforderung dazu steht in `_meta[\"mcp/www_authenticate\"]`.",
    ),
    ErrorCode.CONFIRMATION_REQUIRED: (
        "Die Tat wartet auf den Klick eines Menschen.",
        "Die Bestätigungskarte oder die Web-App zeigen; der Klick dort führt aus.",
    ),
    ErrorCode.CONFIRMATION_EXPIRED: (
        "Die Bestätigung ist abgelaufen.",
        "Die Tat neu vorbereiten und neu bestätigen lassen.",
    ),
    ErrorCode.CONFIRMATION_INVALID: (
        "Das Token der Karte passt nicht zu dieser Bestätigung, deinem Konto oder deinem Büro; ausgeführt wurde nichts.",
        "Die neueste Karte dieser Bestätigung benutzen oder in der Web-App unter `/app/` bestätigen.",
    ),
    ErrorCode.CURSOR_EXPIRED: (
        "Der Cursor ist abgelaufen, beschädigt oder gehört zu einem älteren Datenstand.",
        "Ohne `cursor` von der ersten Seite an neu blättern.",
    ),
    ErrorCode.CONFLICT: (
        "Das Ding hat sich geändert, seit es gelesen wurde, oder sein Zustand lässt die Änderung nicht zu.",
        "Neu lesen und mit dem aktuellen Stand erneut aufrufen.",
    ),
    ErrorCode.SOURCE_UNAVAILABLE: (
        "Eine Datenquelle antwortet gerade nicht.",
        "Später erneut versuchen.",
    ),
    ErrorCode.TIME_BUDGET_EXCEEDED: (
        "Die Anfrage hat die Zeit überschritten, die ein Aufruf haben darf, und wurde abgebrochen.",
        "Enger fragen (weniger Suchwörter, Ort oder Preisspanne) oder später erneut versuchen.",
    ),
    ErrorCode.UPSTREAM_SCHEMA: (
        "Ein fremder Dienst, etwa ein Import-Feed, liefert Daten in einer Form, die der Server nicht versteht.",
        "Die Quelle prüfen lassen (Adresse, Format); bloßes Wiederholen hilft nicht.",
    ),
    ErrorCode.RATE_LIMITED: (
        "Zu viele Aufrufe in kurzer Zeit: je Person, verbundener Anwendung und Büro gilt eine Grenze je Minute, für "
        "ändernde Aufrufe eine engere.",
        "So viele Sekunden warten, wie `_meta[\"athaus/retryAfter\"]` nennt, dann erneut aufrufen.",
    ),
    ErrorCode.INPUT_REQUIRED: (
        "Eine Angabe fehlt; der Text ist genau eine Rückfrage.",
        "Die Frage dem Menschen stellen und mit seiner Antwort erneut aufrufen.",
    ),
    ErrorCode.INTERNAL: (
        "Ein unerwarteter Fehler im Server; Einzelheiten stehen nur im Protokoll des Servers.",
        "Später erneut versuchen; bleibt der Fehler, den Betreiber verständigen.",
    ),
}

# (meaning, next step)
REASON_MEANINGS: dict[ReasonCode, tuple[str, str]] = {
    ReasonCode.MORE_PAGES_AVAILABLE: (
        "Es gibt weitere Seiten.",
        "Mit denselben Argumenten und `cursor` = `next_cursor` weiterblättern.",
    ),
    ReasonCode.RESULT_LIMIT_REACHED: (
        "Die Obergrenze an Einträgen für eine Anfrage ist erreicht; mehr liefert der Server nicht.",
        "Enger filtern, bis die Antwort vollständig ist.",
    ),
    ReasonCode.TIME_BUDGET_EXCEEDED: (
        "Die Zeit für diese Anfrage war um, bevor alles durchsucht war.",
        "Enger filtern oder später erneut versuchen.",
    ),
    ReasonCode.SOURCE_UNAVAILABLE: (
        "Ein Teil der Daten war nicht erreichbar; die Meldung nennt, welcher.",
        "Später erneut versuchen.",
    ),
    ReasonCode.VISIBILITY_RESTRICTED: (
        "Es gibt weitere Einträge, die für dich nicht sichtbar sind.",
        "Mit dem nötigen Recht erneut fragen; ohne bleibt die Liste unvollständig.",
    ),
    ReasonCode.TOTAL_NOT_COUNTED: (
        "Die Suche hat mehr Treffer, als sie genau zählt (1.000): `total` ist null, `total_at_least` die Untergrenze; "
        "genau zu zählen würde jede Suche so langsam machen wie die Zahl ihrer Treffer.",
        "Die genaue Zahl liefert `count_listings` mit denselben Filtern; engere Filter ergeben eine genau gezählte Liste.",
    ),
    ReasonCode.NOT_UNDERSTOOD: (
        "Ein Teil der Suchzeile (`search`) wurde nicht sicher verstanden: eine Zahl ohne Einheit, ein Ort, den mehrere "
        "Gemeinden tragen, ein Wort, das in keinem Inserat steht; die Meldung nennt ihn, `read_as` sagt, wie gesucht wurde.",
        "Eine der Zeilen aus `suggestions` (oder der Meldung) senden: mit dem gemeinten Ort, der wahrscheinlichen "
        "Schreibung oder ohne den unverstandenen Teil.",
    ),
}

WARNING_MEANINGS: dict[WarningCode, str] = {
    WarningCode.DEFAULT_SCOPE_APPLIED: (
        "Der Server hat für den Umfang einen Standardwert eingesetzt; welchen, steht unter `request` mit der Herkunft `default`."
    ),
    WarningCode.STALE_INDEX: (
        "Der Suchindex ist älter als üblich; neue oder geänderte Einträge fehlen vielleicht. `freshness` nennt den Stand."
    ),
    WarningCode.VALUE_NORMALISED: (
        "Ein Eingabewert wurde vereinheitlicht, etwa „Wohnung“ zu `apartment` oder die eindeutige Kurzform „Freiburg“ "
        "zu „Freiburg im Breisgau“; `request` zeigt den verwendeten Wert."
    ),
    WarningCode.TERMS_IGNORED: (
        "Teile der Volltextsuche wurden nicht gesucht: Füllwörter, Wörter ohne Buchstaben a–z oder Ziffern, Operatoren, "
        "die es nicht gibt (etwa ~ oder NOT); die Meldung nennt jedes und was stattdessen gesucht wurde."
    ),
    WarningCode.PRICE_ON_REQUEST_EXCLUDED: (
        "Ein Preisfilter schließt Inserate mit „Preis auf Anfrage“ aus, weil ihr Preis nicht bekannt ist."
    ),
    WarningCode.VALUE_UNKNOWN_EXCLUDED: (
        "Ein Filter schließt Einträge aus, deren Wert für dieses Feld unbekannt ist, etwa eine fehlende Wohnfläche oder "
        "eine Warmmiete ohne angegebene Heizkosten."
    ),
}
