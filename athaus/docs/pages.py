"""The generated pages that span both servers: the start page, the Werkzeuge page, Rechte."""

from __future__ import annotations

from athaus.docs.examples import DEMO_LISTINGS
from athaus.docs.markdown import HINT_NAMES, flag, german_count, mono, page, table
from athaus.docs.meanings import (
    ABSENCE_MEANINGS,
    EFFECT_MEANINGS,
    ENVELOPE_FIELDS,
    ERROR_MEANINGS,
    REASON_MEANINGS,
    VERB_MEANINGS,
    WARNING_MEANINGS,
)
from contract.envelope import AbsenceReason, ListResult, ReasonCode, WarningCode
from contract.errors import ERROR_META_KEY, ErrorCode
from contract.rights import ServerName
from athaus.docs.server_pages import tool_path, tools_of
from contract.server import ServerSpec
from contract.servers import SERVERS
from contract.tool import EFFECT_HINTS, VERB_EFFECTS, Effect
from contract.vocabulary import PendingActionKind, stored_label
from shared.confirmations.execute import OFFICE_KINDS
from shared.demo import DEMO_ACCOUNTS


def _server_link(server: ServerSpec) -> str:
    return f"- [{server.title}]({server.docs_page}) ({mono(server.path)}): {server.summary}"


def _server_row(server: ServerSpec) -> list[str]:
    public = any(right.scope is None and tools_of(server, right) for right in server.rights)
    access = "öffentliche Werkzeuge ohne Anmeldung, dein Konto mit Anmeldung" if public else "mit Anmeldung"
    return [f"[{server.title}]({server.docs_page})<br>{mono(server.path)}", server.summary, access]


def index_page() -> str:
    """The start page: what Athaus MCP is, where to begin as a broker, a seeker or an engineer, the demo logins."""
    logins = [[mono(a.email), mono(a.password), a.name, a.role] for a in DEMO_ACCOUNTS]
    return page(
        [
            "# Athaus MCP",
            "",
            "Athaus MCP verbindet KI-Assistenten mit Athaus, der Immobilienplattform: ChatGPT und Claude als "
            "Connector, dazu jeden anderen MCP-Client. Zwei Server teilen sich eine Datenbank und einen Vertrag: "
            f"einer für Makler und ihr Büro ({mono(SERVERS[ServerName.broker].path)}), einer für Menschen, die ein "
            f"Zuhause suchen ({mono(SERVERS[ServerName.search].path)}).",
            "",
            *table(["Server und Endpunkt", "Wofür", "Zugang"], [_server_row(server) for server in SERVERS.values()]),
            "## Loslegen",
            "",
            "- **Als Maklerin oder Makler:** [Claude](verbinden/claude.md) oder [ChatGPT](verbinden/chatgpt.md) mit "
            f"{mono(SERVERS[ServerName.broker].path)} verbinden und mit deinem Athaus-Konto anmelden. Welche Rechte du "
            "dabei gewährst und was davon ohne deinen Klick läuft, steht unter [Rechte](rechte.md).",
            "- **Auf der Suche nach einem Zuhause:** dieselben Schritte mit "
            f"{mono(SERVERS[ServerName.search].path)}. Katalog, Exposé und Kaufnebenkosten gehen ohne Anmeldung; für "
            "Suchaufträge, Treffer und Anfragen meldest du dich an.",
            "- **Für Entwicklerinnen und Entwickler:** der [MCP Inspector](verbinden/inspector.md), der offizielle "
            "[Python-Client](verbinden/python.md) und der [TypeScript-Client](verbinden/typescript.md); wie die Werkzeuge "
            "gebaut sind, steht unter [Werkzeuge](werkzeuge.md), wie man die Server betreibt, unter [Betrieb](betrieb.md).",
            "",
            "Jedes Werkzeug hat eine eigene Seite mit Eingaben, Rückgabe und einem echten Aufruf gegen die Demodaten. "
            "Diese Seiten sind aus demselben Vertrag erzeugt, aus dem die Server ihre Werkzeuge registrieren; ein Test "
            "hält Vertrag, Server und Doku gleich.",
            "",
            "## Demo-Konten zum Ausprobieren",
            "",
            f"Ein frisch gestarteter Server (`scripts/serve`) legt Demodaten an: {german_count(DEMO_LISTINGS)} Inserate an "
            "echten deutschen Orten, "
            "Maklerbüros, Suchende, Suchaufträge und Anfragen. Mit diesen Konten meldest du dich an; auf der "
            "Zustimmungsseite kannst du weniger Rechte gewähren, als der Client erbittet.",
            "",
            *table(["E-Mail", "Passwort", "Name", "Wer"], logins),
            "Die Demodaten und ihre Konten sind nur zum Ausprobieren da; ihre Passwörter stehen hier öffentlich. Ein Start im "
            "Betrieb (Entwicklungsmodus aus) legt sie nie an; wie dort das erste Büro und die Konten entstehen, steht unter "
            "[Betrieb](betrieb.md).",
        ]
    )


def tools_page() -> str:
    verb_rows = []
    for verb, effect in VERB_EFFECTS.items():
        verb_rows.append([mono(f"{verb}_"), VERB_MEANINGS[verb], mono(effect.value), *(flag(h) for h in EFFECT_HINTS[effect])])
    effect_rows = [[mono(effect.value), EFFECT_MEANINGS[effect]] for effect in Effect]
    order_rows = [
        [mono(server.path), str(rank), mono(right.key), right.label]
        for server in SERVERS.values()
        for rank, right in enumerate(server.rights, start=1)
    ]
    envelope_rows = [[mono(name), ENVELOPE_FIELDS[name]] for name in ListResult.model_fields]
    absence_rows = [[mono(reason.value), *ABSENCE_MEANINGS[reason]] for reason in AbsenceReason]
    reason_rows = [[mono(code.value), *REASON_MEANINGS[code]] for code in ReasonCode]
    warning_rows = [[mono(code.value), WARNING_MEANINGS[code]] for code in WarningCode]
    error_rows = [[mono(code.value), *ERROR_MEANINGS[code]] for code in ErrorCode]
    server_links = [_server_link(server) for server in SERVERS.values()]
    return page(
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
            *table(["Verb", "Bedeutung", "Wirkung", *HINT_NAMES], verb_rows),
            "`openWorldHint` wird true, wo ein Werkzeug einen fremden Dienst fragt, etwa einen Import-Feed oder einen "
            "Geocoder; ein Entwurf tut das nie. Wo die Wirkung allein es nicht sagt, setzt ein Werkzeug "
            "`destructiveHint` und `idempotentHint` selbst und nennt auf seiner Seite den Grund: destruktiv ist, was "
            "sendet, zurückzieht, beendet, leert oder überschreibt, was ein Mensch festgelegt hat (etwa `save_listing` "
            "und `save_search_order` mit einer Nummer, oder `import_listings` mit VOLL); idempotent ist ein Werkzeug "
            "nur, wenn derselbe Aufruf zweimal nicht mehr ändert als einmal. Darum verlangt jedes Werkzeug, das etwas "
            "anlegt (`save_…`, `draft_…`), request_id: die Wiederholung nach einer Zeitüberschreitung gibt das erste "
            "Ergebnis zurück statt einen zweiten Datensatz. Alle vier Hinweise werden immer "
            "ausdrücklich gesendet, denn die Vorgaben des Protokolls sind die unsicheren.",
            "",
            "### Wirkungen",
            "",
            *table(["Wirkung", "Bedeutung"], effect_rows),
            "## Hinweise für Modelle",
            "",
            "Die Hinweise sagen einem Assistenten, wann er nachfragen sollte. `readOnlyHint` tragen die Werkzeuge, die "
            "nur lesen. Ein Entwurf zählt nicht zu dem, was etwas bewirkt: er bleibt in Athaus, bis ein Mensch ihn "
            "freigibt. Was hinausgeht (`send_`, `decide_`), bereitet das Werkzeug nur vor; ausgeführt wird es durch den "
            "Klick eines Menschen in der [Bestätigungskarte](bestaetigungskarte.md) oder in der Athaus-Web-App. So fragt ein Assistent nicht vor "
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
            *table(["Server", "Rang", "Recht (Scope)", "Bezeichnung"], order_rows),
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
            *table(["Feld", "Bedeutung"], envelope_rows),
            "Findet eine Suche nichts, ist `match_type` gleich `none`. `request` zeigt, was gefragt wurde; der Server "
            "hat nichts erweitert. `hint` nennt einen nächsten Schritt aus genau dieser Anfrage, und `suggestions` "
            "schlägt Änderungen deiner Eingabe vor, die der Server nicht ausprobiert hat.",
            "",
            "### Warum eine Liste unvollständig ist",
            "",
            "Die Codes in `completeness.reasons`:",
            "",
            *table(["Code", "Bedeutung", "Nächster Schritt"], reason_rows),
            "### Warnungen",
            "",
            "Die Codes in `warnings`:",
            "",
            *table(["Code", "Bedeutung"], warning_rows),
            "## Fehlende Werte",
            "",
            "Wo ein Wert fehlt, steht an seiner Stelle ein Objekt, das sagt, welche der drei Arten des Fehlens es ist, "
            "mit einem deutschen Satz, warum, und wo möglich, wie man den Wert bekommt, zum Beispiel "
            '`{"absent": true, "reason": "withheld", "note": "Preis auf Anfrage: …"}`.',
            "",
            *table(["Grund (`reason`)", "Bedeutung", "Beispiel"], absence_rows),
            "## Fehler",
            "",
            f"Die Codes in `_meta[\"{ERROR_META_KEY}\"]` bleiben stabil; der deutsche Satz daneben kann sich ändern.",
            "",
            *table(["Code", "Bedeutung", "Nächster Schritt"], error_rows),
        ]
    )


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
            links = [f"[{spec.title}]({tool_path(server, spec)}) ({mono(spec.name)})" for spec in tools_of(server, right)]
            rows.append([mono(right.key), right.label, "<br>".join(links) or "noch keine Werkzeuge"])
        lines += table(["Recht (Scope)", "Bezeichnung", "Werkzeuge"], rows)
    lines += [
        "## Ohne Klick",
        "",
        "Was hinausgeht (`send_`, `decide_`), bereitet ein Werkzeug nur vor; ausgeführt wird es durch den Klick eines "
        "Menschen in der [Bestätigungskarte](bestaetigungskarte.md) oder in der Athaus-App. Ruft ein Assistent ein `send_`-Werkzeug ohne Klick auf, "
        "kommt die Karte erneut (Status `pending`), kein Fehler.",
        "",
        "Ohne Klick läuft eine Tat nur, wenn die Inhaberin oder der Inhaber eines Büros diese Art von Tat in der App "
        "ausdrücklich freigegeben hat (Einstellung des Büros, gespeichert als `send_without_click`; ab Werk ist keine Art "
        "freigegeben). Nur dann führt ein `send_`- oder `decide_`-Aufruf sofort aus, und sein Ergebnis sagt es: Status "
        "`sent_without_click`. Für Suchende gibt es keine Freigabe ohne Klick.",
        "",
        *table(
            ["Art", "Werkzeug", "ohne Klick freigebbar"],
            [
                [f"{stored_label(PendingActionKind, kind.value)} ({mono(kind.value)})", mono(tool), "ja, vom Büro" if kind.value in OFFICE_KINDS else "nein"]
                for kind, tool in (
                    (PendingActionKind.send_reply, "send_reply"),
                    (PendingActionKind.decide_proposal, "decide_proposal"),
                    (PendingActionKind.send_inquiry, "send_inquiry"),
                )
            ],
        ),
        "Eine Ablehnung (`decide_proposal` mit `reject`) gilt sofort: es geht nichts hinaus. Den Klick selbst führt "
        "`decide_confirmation` aus, ein Werkzeug, das nur die Karte sieht (`_meta.ui.visibility: [\"app\"]`, "
        "`openai/visibility: private`); es verlangt dasselbe Recht wie das Senden an seinem Server.",
    ]
    return page(lines)
