"""The pages under docs/, generated from the contract: the index, the Werkzeuge page, one page per server.

Every table is rendered from contract/ (tool specs, rights, hints, schemas, codes), so the committed docs
cannot drift from what the servers register; `check_docs` names the pages that did drift. The German
meanings of the codes live here beside the renderer, and tests/test_docs.py fails when a code has none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contract.envelope import Absent, AbsenceReason, ListResult, ReasonCode, WarningCode
from contract.errors import ERROR_META_KEY, ErrorCode
from contract.rights import ServerName
from contract.server import ServerSpec
from contract.servers import SERVERS
from contract.tool import EFFECT_HINTS, VERB_EFFECTS, Effect, ToolSpec

HEADER = (
    "<!-- Erzeugt mit `athaus docs build` aus contract/. Nicht von Hand bearbeiten: "
    "Änderungen gehören in den Vertrag (contract/) oder in athaus/docs.py. -->"
)
HINT_NAMES = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


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
    "update": "ändern, wo es nichts anzulegen gibt, etwa einen Status",
    "draft": "einen Entwurf vorbereiten; hinaus geht nichts",
    "send": "Versenden vorbereiten; ausgeführt wird es erst durch deinen Klick",
    "decide": "eine Entscheidung vorbereiten; ausgeführt wird sie erst durch deinen Klick",
}

EFFECT_MEANINGS: dict[Effect, str] = {
    Effect.read: "liest nur und ändert nichts",
    Effect.save: "legt an oder ändert; derselbe Aufruf zweimal ergibt denselben Stand",
    Effect.update: "ändert Bestehendes; derselbe Aufruf zweimal ergibt denselben Stand",
    Effect.draft: "legt bei jedem Aufruf einen neuen Entwurf an; nichts verlässt Athaus",
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
    "returned": "Wie viele Einträge diese Antwort enthält.",
    "total": "Wie viele Einträge der angefragte Umfang insgesamt hat, soweit bekannt; sonst null.",
    "match_type": "`matches`, wenn etwas gefunden wurde, `none` bei einem leeren Ergebnis.",
    "request": (
        "Die Anfrage, wie sie ausgeführt wurde, Standardwerte eingeschlossen, je Wert mit seiner Herkunft "
        "(`caller`: von dir, `default`: Vorgabe des Servers, `cursor`: aus dem Cursor)."
    ),
    "sort_key": (
        "Die vollständige Reihenfolge der Einträge; der eindeutige Schlüssel steht zuletzt, sodass sich Seiten nie überschneiden."
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
        "Die Bestätigung ist abgelaufen oder wurde schon benutzt.",
        "Die Tat neu vorbereiten und neu bestätigen lassen.",
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
    ErrorCode.UPSTREAM_SCHEMA: (
        "Ein fremder Dienst, etwa ein Import-Feed, liefert Daten in einer Form, die der Server nicht versteht.",
        "Die Quelle prüfen lassen (Adresse, Format); bloßes Wiederholen hilft nicht.",
    ),
    ErrorCode.RATE_LIMITED: (
        "Zu viele Aufrufe in kurzer Zeit.",
        "Kurz warten, dann erneut aufrufen.",
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
}

WARNING_MEANINGS: dict[WarningCode, str] = {
    WarningCode.DEFAULT_SCOPE_APPLIED: (
        "Der Server hat für den Umfang einen Standardwert eingesetzt; welchen, steht unter `request` mit der Herkunft `default`."
    ),
    WarningCode.STALE_INDEX: (
        "Der Suchindex ist älter als üblich; neue oder geänderte Einträge fehlen vielleicht. `freshness` nennt den Stand."
    ),
    WarningCode.VALUE_NORMALISED: (
        "Ein Eingabewert wurde vereinheitlicht, etwa „Wohnung“ zu `apartment`; `request` zeigt den verwendeten Wert."
    ),
    WarningCode.TERMS_IGNORED: "Wörter der Volltextsuche wurden nicht gesucht, etwa Füllwörter; die Meldung nennt sie.",
    WarningCode.PRICE_ON_REQUEST_EXCLUDED: (
        "Ein Preisfilter schließt Inserate mit „Preis auf Anfrage“ aus, weil ihr Preis nicht bekannt ist."
    ),
    WarningCode.VALUE_UNKNOWN_EXCLUDED: (
        "Ein Filter schließt Einträge aus, deren Wert für dieses Feld unbekannt ist, etwa eine fehlende Wohnfläche."
    ),
}

# --- Markdown helpers -------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")


def _prose(text: str) -> str:
    """Free text from the contract, made safe for Markdown (a prefix star like Balk* is not emphasis)."""
    return text.replace("*", "\\*")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return [*lines, ""]


def _code(value: str) -> str:
    return f"`{value}`"


def _bool(value: bool) -> str:
    return _code("true" if value else "false")


def _yes(value: bool) -> str:
    return "ja" if value else "nein"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return _bool(value)
    if isinstance(value, int | float):
        return _code(_number(value))
    if isinstance(value, str):
        return _code(value)
    return _code(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _page(lines: list[str]) -> str:
    return "\n".join([HEADER, "", *lines]).rstrip("\n") + "\n"


# --- JSON Schema to German Markdown -----------------------------------------------------------------------

_BASE_TYPES = {"string": "Text", "integer": "Ganzzahl", "number": "Zahl", "boolean": "Wahrheitswert", "null": "null"}
_FORMATS = {"date": "Datum", "date-time": "Zeitpunkt"}
ABSENT_TYPE = f"Objekt {_code(Absent.__name__)}"
_BOUNDS = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))


class _Schema:
    """Renders the types of one JSON schema; `objects` collects the named objects met, in order."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.objects: list[str] = []

    def resolve(self, node: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return name, self.defs[name]
        return None, node

    def type_of(self, node: dict[str, Any]) -> str:
        name, target = self.resolve(node)
        if name is not None and "properties" in target:
            if name not in self.objects:
                self.objects.append(name)
            return f"Objekt {_code(name)}"
        if "anyOf" in target:
            branches = [b for b in target["anyOf"] if b.get("type") != "null"]
            return " oder ".join(self.type_of(branch) for branch in branches)
        if "enum" in target:
            return " | ".join(_code(str(value)) for value in target["enum"])
        kind = target.get("type")
        if kind == "array":
            item = self.type_of(target.get("items", {}))
            return f"Liste von ({item})" if " | " in item or " oder " in item else f"Liste von {item}"
        if kind == "object":
            values = target.get("additionalProperties")
            return f"Zuordnung Name → {self.type_of(values)}" if isinstance(values, dict) else "Objekt"
        if kind is None:
            return "beliebig"
        base = _FORMATS.get(target.get("format", ""), _BASE_TYPES[kind])
        limits = [f"{symbol} {_number(target[key])}" for key, symbol in _BOUNDS if key in target]
        if "minLength" in target:
            limits.append(f"mindestens {target['minLength']} Zeichen")
        if "maxLength" in target:
            limits.append(f"höchstens {target['maxLength']} Zeichen")
        if "pattern" in target:
            limits.append(f"Muster {_code(target['pattern'])}")
        return f"{base} ({', '.join(limits)})" if limits else base

    def properties(self, node: dict[str, Any]) -> dict[str, Any]:
        return self.resolve(node)[1].get("properties", {})


def _nullable(node: dict[str, Any]) -> bool:
    return any(branch.get("type") == "null" for branch in node.get("anyOf", ()))


def _input_rows(schema: _Schema, node: dict[str, Any]) -> list[list[str]]:
    required = set(schema.resolve(node)[1].get("required", ()))
    rows = []
    for name, prop in schema.properties(node).items():
        default = prop.get("default")
        rows.append(
            [
                _code(name),
                schema.type_of(prop),
                _yes(name in required),
                "—" if default is None else _value(default),
                _prose(prop.get("description", "—")),
            ]
        )
    return rows


def _inputs(spec: ToolSpec) -> list[str]:
    root = spec.input_schema()
    schema = _Schema(root)
    if not root.get("properties"):
        return ["**Eingaben:** keine.", ""]
    header = ["Argument", "Typ", "Pflicht", "Standard", "Beschreibung"]
    lines = ["**Eingaben**", "", *_table(header, _input_rows(schema, root))]
    done = 0
    while done < len(schema.objects):  # nested objects, each once, in the order they are met
        name = schema.objects[done]
        rows = _input_rows(schema, {"$ref": f"#/$defs/{name}"})
        lines += [f"Objekt {_code(name)}:", "", *_table(["Feld", *header[1:]], rows)]
        done += 1
    return lines


def _output_rows(schema: _Schema, node: dict[str, Any], envelope: bool) -> list[list[str]]:
    rows = []
    for name, prop in schema.properties(node).items():
        description = ENVELOPE_FIELDS[name] if envelope and name in ENVELOPE_FIELDS else _prose(prop.get("description", "—"))
        rows.append([_code(name), schema.type_of(prop), _yes(_nullable(prop)), description])
    return rows


def _outputs(spec: ToolSpec) -> list[str]:
    root = spec.output_schema()
    schema = _Schema(root)
    envelope = "completeness" in root.get("properties", {})
    header = ["Feld", "Typ", "kann null sein", "Beschreibung"]
    rows = _output_rows(schema, root, envelope)
    lines = ["**Rückgabe** (`structuredContent`)", "", *_table(header, rows)]
    if issubclass(spec.output_model, ListResult):
        item_rows = _output_rows(schema, root["properties"]["items"]["items"], envelope=False)
        lines += ["**Felder je Treffer**", "", *_table(header, item_rows)]
        rows += item_rows
    notes = []
    if envelope:
        notes.append("Die Felder des Listen-Umschlags erklärt die Seite [Werkzeuge](werkzeuge.md).")
    if any(ABSENT_TYPE in row[1] for row in rows):
        notes.append("`Absent` steht für einen fehlenden Wert und sagt, warum er fehlt (siehe [Werkzeuge](werkzeuge.md)).")
    return [*lines, *([" ".join(notes), ""] if notes else [])]


# --- Pages ------------------------------------------------------------------------------------------------


def _tool_section(spec: ToolSpec) -> list[str]:
    hints = spec.annotations.as_mcp()
    header = ["Recht", "Wirkung", *HINT_NAMES]
    row = [_code(spec.right.key), _code(spec.effect.value), *(_bool(hints[name]) for name in HINT_NAMES)]
    return [
        f"#### {spec.name}: {spec.title}",
        "",
        _prose(spec.description),
        "",
        *_table(header, [row]),
        *_inputs(spec),
        *_outputs(spec),
    ]


def server_page(server: ServerSpec) -> str:
    """One server's reference: tools grouped by right in the order of the rights table, then resources and prompts."""
    lines = [
        f"# {server.title}",
        "",
        server.summary,
        "",
        f"Endpunkt: {_code(server.path)} (Streamable HTTP). Wie die Werkzeuge aufgebaut sind, was sie zurückgeben und was "
        "ihre Fehlercodes bedeuten, steht auf der Seite [Werkzeuge](werkzeuge.md).",
        "",
        "## Werkzeuge",
        "",
        "In der Reihenfolge von `tools/list`: nach dem Recht, das ein Werkzeug verlangt, dann nach dem Namen.",
        "",
    ]
    for right in server.rights:
        access = "ohne Anmeldung nutzbar." if right.scope is None else "verlangt die Anmeldung mit diesem Recht."
        lines += [f"### {right.label}", "", f"Recht (Scope): {_code(right.key)}, {access}", ""]
        granted = [spec for spec in server.tools if spec.right == right]
        if not granted:
            lines += ["Noch keine Werkzeuge.", ""]
        for spec in granted:
            lines += _tool_section(spec)
    lines += ["## Ressourcen-Vorlagen", ""]
    if server.resources:
        rows = [
            [_code(r.uri_template), _code(r.name), r.title, _prose(r.description), _code(r.right.key), _code(r.mime_type)]
            for r in server.resources
        ]
        lines += _table(["URI-Vorlage", "Name", "Titel", "Beschreibung", "Recht", "MIME-Typ"], rows)
    else:
        lines += ["Keine.", ""]
    lines += ["## Prompts", ""]
    if not server.prompts:
        lines += ["Keine.", ""]
    for prompt in server.prompts:
        rows = [
            [_code(a.name), _yes(a.required), _yes(a.completes_from is not None), _prose(a.description)] for a in prompt.arguments
        ]
        lines += [
            f"### {prompt.name}: {prompt.title}",
            "",
            _prose(prompt.description),
            "",
            *_table(["Argument", "Pflicht", "Vervollständigung", "Beschreibung"], rows),
        ]
    return _page(lines)


def _server_link(server: ServerSpec) -> str:
    return f"- [{server.title}]({server.docs_page}) ({_code(server.path)}): {server.summary}"


def index_page() -> str:
    return _page(
        [
            "# Athaus MCP",
            "",
            "Athaus MCP verbindet KI-Assistenten mit Athaus, der Immobilienplattform: ChatGPT und Claude als "
            "Remote-Connector, dazu jeden anderen MCP-Client. Zwei Server teilen sich eine Datenbank und einen Vertrag: "
            f"einer für Makler und ihr Büro ({_code(SERVERS[ServerName.broker].path)}), einer für Menschen, die ein "
            f"Zuhause suchen ({_code(SERVERS[ServerName.search].path)}).",
            "",
            "Alle Seiten hier sind aus dem Vertrag erzeugt, aus dem auch die Server ihre Werkzeuge registrieren.",
            "",
            "## Seiten",
            "",
            "- [Werkzeuge](werkzeuge.md): Namen, Verben, Hinweise, was jedes Werkzeug zurückgibt, Fehlercodes.",
            "- [Rechte](rechte.md): welches Recht welches Werkzeug verlangt, und wann etwas ohne Klick läuft.",
            *(_server_link(server) for server in SERVERS.values()),
        ]
    )


def tools_page() -> str:
    verb_rows = []
    for verb, effect in VERB_EFFECTS.items():
        verb_rows.append([_code(f"{verb}_"), VERB_MEANINGS[verb], _code(effect.value), *(_bool(h) for h in EFFECT_HINTS[effect])])
    effect_rows = [[_code(effect.value), EFFECT_MEANINGS[effect]] for effect in Effect]
    order_rows = [
        [_code(server.path), str(rank), _code(right.key), right.label]
        for server in SERVERS.values()
        for rank, right in enumerate(server.rights, start=1)
    ]
    envelope_rows = [[_code(name), ENVELOPE_FIELDS[name]] for name in ListResult.model_fields]
    absence_rows = [[_code(reason.value), *ABSENCE_MEANINGS[reason]] for reason in AbsenceReason]
    reason_rows = [[_code(code.value), *REASON_MEANINGS[code]] for code in ReasonCode]
    warning_rows = [[_code(code.value), WARNING_MEANINGS[code]] for code in WarningCode]
    error_rows = [[_code(code.value), *ERROR_MEANINGS[code]] for code in ErrorCode]
    server_links = [_server_link(server) for server in SERVERS.values()]
    return _page(
        [
            "# Werkzeuge",
            "",
            "Wie die Werkzeuge der MCP-Server von Athaus aufgebaut sind. Die Werkzeuge selbst stehen je Server, "
            "geordnet nach dem Recht, das sie verlangen:",
            "",
            *server_links,
            "",
            "Diese Seiten sind aus demselben Vertrag erzeugt, aus dem die Server ihre Werkzeuge registrieren; ein Test "
            "hält Vertrag, Server und Doku gleich. Die genauen Eingaben und Rückgaben beschreibt jeder Server außerdem "
            "selbst in `tools/list`, für das Modell geschrieben, mit `inputSchema` und `outputSchema`.",
            "",
            "## Namen",
            "",
            "Werkzeugnamen sind englisch, in snake_case, mit dem Verb vorn (`search_listings`, `get_listing`). So "
            "benennen auch die Verzeichnisse von ChatGPT und Claude ihre Werkzeuge, und so wählt ein Modell am "
            "sichersten das richtige. Alles, was ein Mensch liest, also Titel, Beschreibung und Ergebnistext, ist deutsch.",
            "",
            "Eingabewerte sind englisch (`buy`, `rent`, `apartment`); deutsche Wörter wie „Kauf“ oder „Wohnung“ nimmt "
            "der Server auch und übersetzt sie. Derselbe Name kann auf beiden Servern stehen und dort Verschiedenes "
            "bedeuten: `get_inquiry` ist bei Athaus für Makler eine Anfrage an dein Büro, bei der Immobiliensuche deine "
            "eigene Anfrage zu einem Inserat.",
            "",
            "## Verben",
            "",
            "Das Verb legt die Wirkung fest, die Wirkung die vier Hinweise, die der Server zu jedem Werkzeug mitschickt. "
            "Der Vertrag prüft das beim Laden: passt das Verb eines Werkzeugs nicht zu seiner Wirkung, startet kein Server.",
            "",
            *_table(["Verb", "Bedeutung", "Wirkung", *HINT_NAMES], verb_rows),
            "`openWorldHint` wird true, wo ein Werkzeug einen fremden Dienst fragt, etwa einen Import-Feed oder einen "
            "Geocoder; ein Entwurf tut das nie. Alle vier Hinweise werden immer ausdrücklich gesendet, denn die "
            "Vorgaben des Protokolls sind die unsicheren.",
            "",
            "### Wirkungen",
            "",
            *_table(["Wirkung", "Bedeutung"], effect_rows),
            "## Hinweise für Modelle",
            "",
            "Die Hinweise sagen einem Assistenten, wann er nachfragen sollte. `readOnlyHint` tragen die Werkzeuge, die "
            "nur lesen. Ein Entwurf zählt nicht zu dem, was etwas bewirkt: er bleibt in Athaus, bis ein Mensch ihn "
            "freigibt. Was hinausgeht (`send_`, `decide_`), bereitet das Werkzeug nur vor; ausgeführt wird es durch den "
            "Klick eines Menschen in der Bestätigungskarte oder in der Athaus-Web-App. So fragt ein Assistent nicht vor "
            "jedem Entwurf nach, sondern vor dem, was wirklich etwas tut.",
            "",
            "Ohne Klick läuft eine solche Tat nur, wenn der Inhaber eines Büros diese Art in der Web-App ausdrücklich "
            "freigegeben hat; das Ergebnis sagt es dann.",
            "",
            "## Reihenfolge in tools/list",
            "",
            "Jeder Server ordnet seine Werkzeuge nach dem Recht, das sie verlangen, in der Reihenfolge der Tabelle unten, "
            "und innerhalb eines Rechts nach dem Namen. Die Reihenfolge ist bei jedem Start dieselbe. `tools/list` ist "
            "für jeden Aufrufer gleich; jedes Werkzeug nennt in `securitySchemes` sein Recht (`noauth` oder `oauth2` mit "
            "dem Scope).",
            "",
            *_table(["Server", "Rang", "Recht (Scope)", "Bezeichnung"], order_rows),
            "## Was ein Werkzeug zurückgibt",
            "",
            "- **Text** (`content`): deutsch und für sich vollständig. Zeigt ein Assistent eine Karte an, bekommt sein "
            "Modell nur diesen Text.",
            "- **`structuredContent`**: dieselben Daten für Programme, gültig gegen das `outputSchema` des Werkzeugs.",
            "- **`confirmation`**: was auf einen Klick wartet (Kennung, Tat, Zusammenfassung, Status, Ablauf, wo zu "
            "klicken ist). Das Token für den Klick reist nur in `_meta` an die Karte, nie im Text oder in "
            "`structuredContent`.",
            f"- **Fehler**: ein Ergebnis mit `isError`, einem deutschen Satz, der den nächsten Schritt nennt, und dem "
            f"Code in `_meta[\"{ERROR_META_KEY}\"]`. Stacktraces, SQL oder interne Kennungen erreichen das Modell nie.",
            "- **Fehlende Angabe**: genau eine Rückfrage; bei Clients, die Elicitation anbieten, als `input_required`, "
            "sonst als Fehler mit dem Code `INPUT_REQUIRED`, dessen Text die Frage ist. Frage, leeres Ergebnis und "
            "Fehler teilen sich nie ein Feld.",
            "",
            "## Listen und Suchen",
            "",
            "Jede Liste und jede Suche trägt denselben Umschlag. Dass es etwas nicht gibt, belegt eine leere Antwort "
            "erst, wenn `completeness.complete` true ist.",
            "",
            *_table(["Feld", "Bedeutung"], envelope_rows),
            "Findet eine Suche nichts, ist `match_type` gleich `none`. `request` zeigt, was gefragt wurde; der Server "
            "hat nichts erweitert. `hint` nennt einen nächsten Schritt aus genau dieser Anfrage, und `suggestions` "
            "schlägt Änderungen deiner Eingabe vor, die der Server nicht ausprobiert hat.",
            "",
            "### Warum eine Liste unvollständig ist",
            "",
            "Die Codes in `completeness.reasons`:",
            "",
            *_table(["Code", "Bedeutung", "Nächster Schritt"], reason_rows),
            "### Warnungen",
            "",
            "Die Codes in `warnings`:",
            "",
            *_table(["Code", "Bedeutung"], warning_rows),
            "## Fehlende Werte",
            "",
            "Wo ein Wert fehlt, steht an seiner Stelle ein Objekt, das sagt, welche der drei Arten des Fehlens es ist, "
            "mit einem deutschen Satz, warum, und wo möglich, wie man den Wert bekommt, zum Beispiel "
            '`{"absent": true, "reason": "withheld", "note": "Preis auf Anfrage: …"}`.',
            "",
            *_table(["Grund (`reason`)", "Bedeutung", "Beispiel"], absence_rows),
            "## Fehler",
            "",
            f"Die Codes in `_meta[\"{ERROR_META_KEY}\"]` bleiben stabil; der deutsche Satz daneben kann sich ändern.",
            "",
            *_table(["Code", "Bedeutung", "Nächster Schritt"], error_rows),
        ]
    )


# --- Public API -------------------------------------------------------------------------------------------


def rights_page() -> str:
    """The section "Rechte": every right of both servers with its tools, and when an action runs without a click."""
    lines = [
        "# Rechte",
        "",
        "Jedes Werkzeug verlangt genau ein Recht. Rechte sind OAuth-Scopes: Beim Verbinden zeigt die Zustimmungsseite, "
        "welche Rechte ein Assistent erbittet, und du kannst weniger gewähren. Ein Token gilt nur für den Server, für den "
        "es ausgestellt wurde (Athaus für Makler oder Athaus Immobiliensuche).",
        "",
        "Fehlt einer Verbindung das Recht eines Werkzeugs, antwortet es mit `isError`, dem Code `MISSING_RIGHT` und der "
        "Aufforderung `WWW-Authenticate` in `_meta[\"mcp/www_authenticate\"]`, damit der Assistent dich den Zugriff "
        "verbinden oder erweitern lassen kann. `tools/list` ist für alle gleich; jedes Werkzeug nennt sein Recht in "
        "`_meta.securitySchemes` (`noauth` oder `oauth2` mit dem Scope).",
        "",
        "Bei Athaus für Makler gilt jedes Recht nur für das eigene Büro: ein Büro sieht nie die Daten eines anderen.",
        "",
    ]
    for server in SERVERS.values():
        lines += [f"## {server.title}", ""]
        rows = []
        for right in server.rights:
            names = [spec.name for spec in server.tools if spec.right == right]
            rows.append([_code(right.key), right.label, ", ".join(_code(n) for n in names) or "noch keine Werkzeuge"])
        lines += _table(["Recht (Scope)", "Bezeichnung", "Werkzeuge"], rows)
    lines += [
        "## Ohne Klick",
        "",
        "Was hinausgeht (`send_`, `decide_`), bereitet ein Werkzeug nur vor; ausgeführt wird es durch den Klick eines "
        "Menschen in der Bestätigungskarte oder in der Athaus-App. Ruft ein Assistent ein `send_`-Werkzeug ohne Klick auf, "
        "kommt die Karte erneut (Status `pending`), kein Fehler.",
        "",
        "Ohne Klick läuft eine Tat nur, wenn die Inhaberin oder der Inhaber eines Büros diese Art von Tat in der App "
        "ausdrücklich freigegeben hat (zum Beispiel: Antworten auf eine einfache Exposé-Anfrage). Nur dann führt ein "
        "`send_`- oder `decide_`-Aufruf sofort aus, und sein Ergebnis sagt, dass er ohne Klick ausgeführt wurde. Für "
        "Suchende gibt es keine Freigabe ohne Klick.",
    ]
    return _page(lines)


def build_docs() -> dict[str, str]:
    """Every generated page, as {path relative to docs/: content}."""
    pages = {"index.md": index_page(), "werkzeuge.md": tools_page(), "rechte.md": rights_page()}
    for server in SERVERS.values():
        pages[server.docs_page] = server_page(server)
    return dict(sorted(pages.items()))


def write_docs(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for path, content in build_docs().items():
        (root / path).write_text(content, encoding="utf-8", newline="\n")


def check_docs(root: Path) -> list[str]:
    """The generated paths whose file under `root` is missing or differs; empty when docs and contract agree."""
    stale = []
    for path, content in build_docs().items():
        file = root / path
        if not file.is_file() or file.read_bytes() != content.encode("utf-8"):
            stale.append(path)
    return stale
