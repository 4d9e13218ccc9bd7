"""The committed docs under docs/ are what the contract generates: in sync, in tools/list order, with every
hint taken from EFFECT_HINTS, every code of the contract and every setting given a German meaning, and one
page per tool with a real call against the demo data. A change to one tool shows up on its pages only."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path

import pytest

from athaus.docs import build_docs, check_docs, generated_files, write_docs
from athaus.docs.configuration import SETTING_MEANINGS
from athaus.docs.examples import DEMO_LISTINGS, ExampleCalls, dump_calls, load_calls, missing_examples
from athaus.docs.markdown import HEADER
from athaus.docs.nav import HAND_WRITTEN, site_nav
from athaus.docs.server_pages import tool_path
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
from contract.errors import ErrorCode
from contract.rights import RIGHTS, ServerName
from contract.search import SERVER as SEARCH_SERVER
from contract.servers import SERVERS
from contract.tool import EFFECT_HINTS, VERB_EFFECTS, Annotations, Effect
from shared.settings import Settings

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
HINTS = list(Annotations(True, False, True, False).as_mcp())  # the four MCP hint names, in protocol order


def read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def first_table(text: str) -> list[dict[str, str]]:
    """The first Markdown table in `text`, as one dict per row keyed by the header cells."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
        block.append([cell.strip().replace("\\|", "|") for cell in cells])
    header, _separator, *rows = block
    return [dict(zip(header, row, strict=True)) for row in rows]


def table_after(text: str, heading: str) -> list[dict[str, str]]:
    lines = text.splitlines()
    return first_table("\n".join(lines[lines.index(heading) + 1 :]))


@pytest.fixture
def calls(docs_calls: ExampleCalls) -> ExampleCalls:
    return docs_calls


@pytest.fixture
def pages(docs_pages: dict[str, str]) -> dict[str, str]:
    return docs_pages


def test_committed_docs_equal_what_the_contract_generates(pages: dict[str, str]) -> None:
    stale = check_docs(DOCS, pages)
    assert stale == [], f"docs/ differs from the contract in {stale}: run `athaus docs build` and commit the result"


def test_generated_docs_do_not_depend_on_the_hash_seed(calls: ExampleCalls, pages: dict[str, str], tmp_path: Path) -> None:
    """The pages from the same calls under another hash seed. (That the calls themselves do not depend on it, the
    drift test above shows: the committed pages come from another process, with another seed.)"""
    saved = tmp_path / "calls.json"
    saved.write_text(dump_calls(calls), encoding="utf-8")
    script = (
        "import json, pathlib, sys; from athaus.docs import build_docs; from athaus.docs.examples import load_calls; "
        "print(json.dumps(build_docs(load_calls(pathlib.Path(sys.argv[1]).read_text(encoding='utf-8')))))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    run = subprocess.run([sys.executable, "-c", script, str(saved)], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == pages


def test_saved_calls_read_back_the_same(calls: ExampleCalls) -> None:
    assert load_calls(dump_calls(calls)) == calls


def test_generated_docs_do_not_depend_on_the_environment(calls: ExampleCalls, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example calls run with the defaults of every setting, whatever ATHAUS_* variables say."""
    monkeypatch.setenv("ATHAUS_PUBLIC_URL", "https://elsewhere.example")
    monkeypatch.setenv("ATHAUS_CURSOR_TTL_SECONDS", "5")
    from athaus.docs.examples import _fixed_settings

    settings = _fixed_settings("sqlite://")
    assert settings.public_url == "http://127.0.0.1:8000" and settings.cursor_ttl_seconds == 3600


def test_generated_pages_start_with_the_do_not_edit_comment(pages: dict[str, str]) -> None:
    for path, content in pages.items():
        first = content.splitlines()[0]
        assert first == HEADER and "athaus docs build" in first and "contract/" in first, path


def test_every_tool_has_an_example_call() -> None:
    assert missing_examples() == [], "add an entry to EXAMPLES in athaus/docs/examples.py"


def test_every_tool_page_shows_a_real_call_and_its_answer(calls: ExampleCalls, pages: dict[str, str]) -> None:
    for server in SERVERS.values():
        for spec in server.tools:
            call = calls[server.name, spec.name]
            text = pages[tool_path(server, spec)]
            assert text.startswith(f"{HEADER}\n\n# {spec.title}\n"), spec.name
            example = text.split("\n## Beispiel", 1)[1]
            assert json.dumps({"name": spec.name, "arguments": call.arguments}, ensure_ascii=False, indent=2) in example
            assert call.text.strip() and call.text in example, spec.name
            assert json.dumps(call.structured, ensure_ascii=False, indent=2).replace("\n", "\n    ") in example, spec.name


def test_the_demo_catalog_of_the_examples_is_the_one_serve_seeds() -> None:
    assert DEMO_LISTINGS == Settings().demo_listings == 2400


def test_search_page_lists_the_tools_in_tools_list_order(pages: dict[str, str]) -> None:
    text = read("suche.md")
    linked = re.findall(r"\]\(suche/([a-z_]+)\.md\)", text)
    assert linked == [spec.name for spec in SEARCH_SERVER.tools]


def test_search_page_groups_tools_under_their_right() -> None:
    tools_part = read("suche.md").split("\n## Werkzeuge\n", 1)[1].split("\n## Ressourcen-Vorlagen\n", 1)[0]
    sections = re.split(r"^### ", tools_part, flags=re.M)[1:]
    rights = RIGHTS[ServerName.search]
    assert [section.splitlines()[0] for section in sections] == [right.label for right in rights]
    for right, section in zip(rights, sections, strict=True):
        expected = [spec.name for spec in SEARCH_SERVER.tools if spec.right == right]
        assert re.findall(r"\]\(suche/([a-z_]+)\.md\)", section) == expected, right.label
        assert f"Recht (Scope): `{right.key}`" in section
        if not expected:
            assert "Noch keine Werkzeuge." in section


def test_tool_pages_show_each_tools_own_hints() -> None:
    for server in SERVERS.values():
        for spec in server.tools:
            text = read(tool_path(server, spec))
            facts = first_table(text)[0]
            assert facts["Name"] == f"`{spec.name}`" and f"(`{spec.right.key}`)" in facts["Recht (Scope)"], spec.name
            row = first_table(text.split("\n## Hinweise\n", 1)[1])[0]
            hints = spec.annotations.as_mcp()
            assert {name: row[name] for name in HINTS} == {name: f"`{str(hints[name]).lower()}`" for name in HINTS}, spec.name
            assert row["Wirkung"] == f"`{spec.effect.value}`", spec.name


def test_the_navigation_holds_every_page_once_and_groups_tools_by_right(pages: dict[str, str]) -> None:
    def leaves(items: list) -> list[str]:
        found: list[str] = []
        for item in items:
            value = item if isinstance(item, str) else next(iter(item.values()))
            found += [value] if isinstance(value, str) else leaves(value)
        return found

    nav = site_nav()
    assert sorted(leaves(nav)) == sorted([*pages, *HAND_WRITTEN])
    assert all((DOCS / path).is_file() for path in HAND_WRITTEN)
    search = next(item["Athaus Immobiliensuche"] for item in nav if "Athaus Immobiliensuche" in item)
    public = next(item[RIGHTS[ServerName.search][0].label] for item in search if RIGHTS[ServerName.search][0].label in item)
    assert [next(iter(entry.values())) for entry in public] == [
        tool_path(SEARCH_SERVER, spec) for spec in SEARCH_SERVER.tools if spec.right.scope is None
    ]


def test_hand_written_pages_are_not_generated() -> None:
    assert not set(HAND_WRITTEN) & set(generated_files(DOCS))


def _changed(server: ServerName, tool: str, **changes: str) -> dict:
    """SERVERS with one tool of one server changed, as a contract edit would change it."""
    spec = SERVERS[server]
    tools = tuple(dataclasses.replace(t, **changes) if t.name == tool else t for t in spec.tools)
    return {**SERVERS, server: dataclasses.replace(spec, tools=tools)}


def test_a_changed_description_shows_up_on_its_tool_page_and_nowhere_else(
    calls: ExampleCalls, pages: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = _changed(ServerName.search, "count_listings", description="Zählt Inserate, neu beschrieben.")
    for module in ("athaus.docs", "athaus.docs.pages", "athaus.docs.nav"):  # every docs module that reads SERVERS
        monkeypatch.setattr(f"{module}.SERVERS", edited)
    changed = build_docs(calls)
    assert sorted(path for path in pages if changed[path] != pages[path]) == ["suche/count_listings.md"]
    assert "Zählt Inserate, neu beschrieben." in changed["suche/count_listings.md"]
    shutil.copytree(DOCS, tmp_path / "docs")
    assert check_docs(tmp_path / "docs", changed) == ["suche/count_listings.md"]


def test_a_removed_tool_leaves_no_page_behind(calls: ExampleCalls, pages: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "docs"
    shutil.copytree(DOCS, root)
    (root / "suche" / "retired_tool.md").write_text(f"{HEADER}\n\n# Ausgemustert\n", encoding="utf-8")
    assert check_docs(root, pages) == ["suche/retired_tool.md"]
    assert write_docs(root, pages) == ["suche/retired_tool.md"]
    assert not (root / "suche" / "retired_tool.md").exists() and check_docs(root, pages) == []


def test_every_setting_has_a_german_meaning_on_the_configuration_page() -> None:
    assert list(SETTING_MEANINGS) == list(Settings.model_fields), "athaus/docs/configuration.py: SETTING_MEANINGS"
    rows = first_table(read("konfiguration.md"))
    assert [row["Variable"] for row in rows] == [f"`ATHAUS_{name.upper()}`" for name in Settings.model_fields]


def test_verbs_table_hints_equal_effect_hints() -> None:
    rows = table_after(read("werkzeuge.md"), "## Verben")
    documented = {row["Verb"].strip("`").removesuffix("_"): (row["Wirkung"], [row[name] for name in HINTS]) for row in rows}
    expected = {
        verb: (f"`{effect.value}`", [f"`{str(hint).lower()}`" for hint in EFFECT_HINTS[effect]])
        for verb, effect in VERB_EFFECTS.items()
    }
    assert documented == expected


@pytest.mark.parametrize(
    ("codes", "meanings", "heading"),
    [
        (ErrorCode, ERROR_MEANINGS, "## Fehler"),
        (ReasonCode, REASON_MEANINGS, "### Warum eine Liste unvollständig ist"),
        (WarningCode, WARNING_MEANINGS, "### Warnungen"),
        (AbsenceReason, ABSENCE_MEANINGS, "## Fehlende Werte"),
        (Effect, EFFECT_MEANINGS, "### Wirkungen"),
    ],
    ids=["ErrorCode", "ReasonCode", "WarningCode", "AbsenceReason", "Effect"],
)
def test_every_code_has_a_documented_meaning(codes: type[StrEnum], meanings: dict, heading: str) -> None:
    missing = [code.value for code in codes if code not in meanings]
    assert not missing, f"no German meaning in athaus/docs.py for {codes.__name__} {missing}"
    assert set(meanings) == set(codes), f"athaus/docs.py documents codes {codes.__name__} does not have"
    for code, meaning in meanings.items():
        texts = meaning if isinstance(meaning, tuple) else (meaning,)
        assert all(text.strip() for text in texts), f"{codes.__name__}.{code.value}: empty meaning"
    rows = table_after(read("werkzeuge.md"), heading)
    assert [next(iter(row.values())) for row in rows] == [f"`{code.value}`" for code in codes]


def test_every_verb_and_envelope_field_has_a_documented_meaning() -> None:
    assert list(VERB_MEANINGS) == list(VERB_EFFECTS)
    assert list(ENVELOPE_FIELDS) == list(ListResult.model_fields)
    rows = table_after(read("werkzeuge.md"), "## Listen und Suchen")
    assert [row["Feld"] for row in rows] == [f"`{name}`" for name in ListResult.model_fields]
