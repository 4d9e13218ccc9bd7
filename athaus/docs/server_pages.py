"""Each server's pages: an overview (its tools grouped by right, resources, prompts) and one page per tool
(title, description, annotations, inputs, outputs, and a real call against the demo data)."""

from __future__ import annotations

from athaus.docs.examples import DEMO_LISTINGS, EXAMPLES_NOW, ExampleCall
from athaus.docs.markdown import (
    HINT_NAMES,
    as_json,
    fenced,
    flag,
    german_count,
    inputs_table,
    mono,
    outputs_table,
    page,
    prose,
    table,
    yes,
)
from contract.rights import Right
from contract.server import ServerSpec
from contract.tool import ToolSpec
from shared.demo import DEMO_ACCOUNTS


def tool_path(server: ServerSpec, spec: ToolSpec) -> str:
    """The tool's page under docs/, e.g. suche/calculate_purchase_costs.md."""
    return f"{server.name.value}/{spec.name}.md"


def tools_of(server: ServerSpec, right: Right) -> list[ToolSpec]:
    return [spec for spec in server.tools if spec.right == right]


def _access(right: Right) -> str:
    return "ohne Anmeldung nutzbar" if right.scope is None else "verlangt die Anmeldung mit diesem Recht"


def _who(login: str | None) -> str:
    if login is None:
        return "ohne Anmeldung"
    account = next(a for a in DEMO_ACCOUNTS if a.email == login)
    return f"als Demo-Konto {mono(login)} ({account.name}, {account.role}) mit allen Rechten dieses Servers"


def _example(call: ExampleCall) -> list[str]:
    when = EXAMPLES_NOW.strftime("%d.%m.%Y, %H:%M UTC")
    listings = german_count(DEMO_LISTINGS)
    return [
        "## Beispiel { data-search-exclude }",  # the search finds tools by what they do, not by demo data
        "",
        f"Ein echter Aufruf gegen die Demodaten ({listings} Inserate, wie sie `scripts/serve` beim ersten Start anlegt), "
        f"{_who(call.login)}, bei fest eingestellter Uhr ({when}). Die Doku ruft ihn bei jedem Bau neu auf; was hier steht, "
        "hat der Server so geantwortet.",
        "",
        "**Aufruf** (`tools/call`)",
        "",
        *fenced(as_json({"name": call.tool, "arguments": call.arguments}), "json"),
        "",
        "**Antwort als Text** (`content`, das liest das Modell)",
        "",
        *fenced(call.text, "text"),
        "",
        '??? example "Antwort als Daten (`structuredContent`)"',
        "",
        *fenced(as_json(call.structured), "json", indent="    "),
    ]


def tool_page(server: ServerSpec, spec: ToolSpec, call: ExampleCall) -> str:
    hints = spec.annotations.as_mcp()
    facts = [
        mono(spec.name),
        f"[{server.title}](../{server.docs_page}) ({mono(server.path)})",
        f"[{spec.right.label}](../rechte.md) ({mono(spec.right.key)}), {_access(spec.right)}",
    ]
    return page(
        [
            f"# {spec.title}",
            "",
            *table(["Name", "Server", "Recht (Scope)"], [facts]),
            prose(spec.description),
            "",
            "## Hinweise",
            "",
            "Die Annotationen, die der Server in `tools/list` mitschickt; was sie bedeuten, steht unter "
            "[Werkzeuge](../werkzeuge.md#verben).",
            "",
            *table(["Wirkung", *HINT_NAMES], [[mono(spec.effect.value), *(flag(hints[name]) for name in HINT_NAMES)]]),
            *([f"Abweichend von der Wirkung gesetzt, weil: {spec.hints_because}", ""] if spec.hints_because else []),
            *inputs_table(spec, heading="## Eingaben"),
            *outputs_table(spec, up="../", heading="## Rückgabe", items_heading="### Felder je Eintrag", objects=True),
            *_example(call),
        ]
    )


def server_page(server: ServerSpec) -> str:
    """One server's overview: its tools grouped by right in the order of the rights table, then resources and prompts."""
    lines = [
        f"# {server.title}",
        "",
        server.summary,
        "",
        f"Endpunkt: {mono(server.path)} (Streamable HTTP). Wie du ihn in ChatGPT, Claude oder einem anderen Client "
        "einrichtest, steht unter [Verbinden](verbinden/index.md). Wie die Werkzeuge aufgebaut sind, was sie zurückgeben "
        "und was ihre Fehlercodes bedeuten, steht auf der Seite [Werkzeuge](werkzeuge.md).",
        "",
        "## Werkzeuge",
        "",
        "In der Reihenfolge von `tools/list`: nach dem Recht, das ein Werkzeug verlangt, dann nach dem Namen. Jedes "
        "Werkzeug hat eine eigene Seite mit Eingaben, Rückgabe und einem echten Beispielaufruf.",
        "",
    ]
    for right in server.rights:
        lines += [f"### {right.label}", "", f"Recht (Scope): {mono(right.key)}, {_access(right)}.", ""]
        granted = tools_of(server, right)
        if not granted:
            lines += ["Noch keine Werkzeuge.", ""]
            continue
        rows = [[f"[{spec.title}]({tool_path(server, spec)})", mono(spec.name), mono(spec.effect.value)] for spec in granted]
        lines += table(["Werkzeug", "Name", "Wirkung"], rows)
    lines += ["## Ressourcen-Vorlagen", ""]
    if server.resources:
        rows = [
            [mono(r.uri_template), mono(r.name), r.title, prose(r.description), mono(r.right.key), mono(r.mime_type)]
            for r in server.resources
        ]
        lines += table(["URI-Vorlage", "Name", "Titel", "Beschreibung", "Recht", "MIME-Typ"], rows)
    else:
        lines += ["Keine.", ""]
    lines += ["## Prompts", ""]
    if not server.prompts:
        lines += ["Keine.", ""]
    for prompt in server.prompts:
        rows = [
            [mono(a.name), yes(a.required), yes(a.completes_from is not None), prose(a.description)] for a in prompt.arguments
        ]
        lines += [
            f"### {prompt.title}",
            "",
            f"{mono(prompt.name)}: {prose(prompt.description)}",
            "",
            *table(["Argument", "Pflicht", "Vervollständigung", "Beschreibung"], rows),
        ]
    lines += [
        "## Anweisungen an das Modell",
        "",
        "Diesen Text schickt der Server beim Verbindungsaufbau (`instructions`); ein Assistent liest ihn, bevor er "
        "Werkzeuge wählt.",
        "",
        *fenced(server.instructions, "text"),
    ]
    return page(lines)
