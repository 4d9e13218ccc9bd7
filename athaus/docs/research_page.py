"""The generated page "ChatGPT: Recherche und Unternehmenswissen" of the Verbinden section: what a person adds
where in ChatGPT, and what each server offers there (its `search` and `fetch`, from contract/connectors.py)."""

from __future__ import annotations

from athaus.docs.markdown import mono, page, table
from athaus.docs.server_pages import tool_path
from contract.connectors import RESULTS_SHOWN
from contract.servers import SERVERS
from contract.tool import CONNECTOR_TOOLS
from shared.addresses import EXPOSE_PATH, OFFICE_INQUIRY_PATH, STOCK_LISTING_PATH

PATH = "verbinden/chatgpt-recherche.md"

# What a result's address opens, per server (the routes of shared/addresses.py).
OPENS = {
    "suche": f"das öffentliche Exposé ({mono(EXPOSE_PATH)}, ohne Anmeldung)",
    "makler": f"das Objekt ({mono(STOCK_LISTING_PATH)}) oder die Anfrage ({mono(OFFICE_INQUIRY_PATH)}) in der Web-App (mit Anmeldung)",
}
WHERE = {
    "suche": "Tiefe Recherche (Deep Research) in jedem Tarif, der eigene Apps erlaubt",
    "makler": "Unternehmenswissen (Company Knowledge) im Business- oder Enterprise-Arbeitsbereich des Büros, und Tiefe Recherche",
}


def research_page() -> str:
    rows = []
    for server in SERVERS.values():
        for spec in server.tools:
            if spec.name in CONNECTOR_TOOLS:
                link = f"[{mono(spec.name)}](../{tool_path(server, spec)})"
                rows.append([server.title, link, spec.title, spec.right.label, OPENS[server.name.value]])
    where = [[server.title, mono(server.path), WHERE[server.name.value]] for server in SERVERS.values()]
    return page(
        [
            "# ChatGPT: Recherche und Unternehmenswissen",
            "",
            "Für die *Tiefe Recherche* (Deep Research) und das *Unternehmenswissen* (Company Knowledge) nimmt ChatGPT "
            "einen MCP-Server nur auf, wenn er genau zwei Werkzeuge in der Form anbietet, die OpenAI vorgibt: "
            f"{mono('search')} (eine Zeile, liefert Ergebnisse mit id, Titel und Adresse) und {mono('fetch')} (eine id, "
            "liefert den ganzen Text). Beide Athaus-Server bieten sie an; außerhalb dieser Funktionen bleiben die "
            "übrigen Werkzeuge wie gewohnt nutzbar ([ChatGPT](chatgpt.md)).",
            "",
            "## Wo man sie hinzufügt",
            "",
            *table(["Server", "Adresse", "in ChatGPT"], where),
            "In Business- und Enterprise-Arbeitsbereichen legt jemand mit Admin-Rechten die App einmal an "
            "(**Einstellungen → Apps → Erstellen**, Adresse des Servers, Authentifizierung **OAuth**) und gibt sie für "
            "Recherche bzw. Unternehmenswissen frei; danach meldet sich jede Person selbst an und stimmt den Rechten zu "
            "(Anmeldung wie in [ChatGPT](chatgpt.md#3-anmelden-und-zustimmen)). Für Athaus für Makler genügt dafür das "
            "Recht „Büro lesen“: gesucht wird nur im eigenen Büro.",
            "",
            "## Was jeder Server dort anbietet",
            "",
            *table(["Server", "Werkzeug", "Titel", "Recht", "die Adresse eines Ergebnisses öffnet"], rows),
            f"Eine Suche liefert höchstens {RESULTS_SHOWN} Ergebnisse (bei Athaus für Makler je Art); gibt es mehr, sagt "
            "die Antwort es (completeness) statt eine Vollständigkeit vorzutäuschen. read_as nennt, wie die Zeile "
            "gelesen wurde: PLZ, Ort, Zimmer, Fläche, Preis, Kauf oder Miete, Objektart, der Rest als Suchwörter. "
            "Eine Nummer eines anderen Büros ist für Athaus für Makler dasselbe wie eine, die es nicht gibt. Das "
            "Lesen einer Anfrage mit fetch wird wie bei get_inquiry im Protokoll der personenbezogenen Lesezugriffe "
            "vermerkt.",
        ]
    )
