"""The committed docs under docs/ are what the contract generates: in sync, in tools/list order, with every
hint taken from EFFECT_HINTS and every code of the contract given a German meaning."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from enum import StrEnum
from pathlib import Path

import pytest

from athaus.docs import build_docs, check_docs
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
from contract.tool import EFFECT_HINTS, VERB_EFFECTS, Annotations, Effect

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


def test_committed_docs_equal_what_the_contract_generates() -> None:
    stale = check_docs(DOCS)
    assert stale == [], f"docs/ differs from the contract in {stale}: run `athaus docs build` and commit the result"


def test_generated_docs_do_not_depend_on_the_hash_seed() -> None:
    script = "import json; from athaus.docs import build_docs; print(json.dumps(build_docs()))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == build_docs()


def test_generated_pages_start_with_the_do_not_edit_comment() -> None:
    for path, content in build_docs().items():
        first = content.splitlines()[0]
        assert first.startswith("<!--") and "athaus docs build" in first and "contract/" in first, path


def test_search_page_lists_the_tools_in_tools_list_order() -> None:
    text = read("suche.md")
    assert re.findall(r"^#### ([a-z_]+):", text, re.M) == [spec.name for spec in SEARCH_SERVER.tools]


def test_search_page_groups_tools_under_their_right() -> None:
    tools_part = read("suche.md").split("\n## Werkzeuge\n", 1)[1].split("\n## Ressourcen-Vorlagen\n", 1)[0]
    sections = re.split(r"^### ", tools_part, flags=re.M)[1:]
    rights = RIGHTS[ServerName.search]
    assert [section.splitlines()[0] for section in sections] == [right.label for right in rights]
    for right, section in zip(rights, sections, strict=True):
        expected = [spec.name for spec in SEARCH_SERVER.tools if spec.right == right]
        assert re.findall(r"^#### ([a-z_]+):", section, re.M) == expected, right.label
        assert f"Recht (Scope): `{right.key}`" in section
        if not expected:
            assert "Noch keine Werkzeuge." in section


def test_search_page_shows_each_tools_own_hints() -> None:
    text = read("suche.md")
    for spec in SEARCH_SERVER.tools:
        section = text.split(f"#### {spec.name}:", 1)[1]
        row = first_table(section)[0]
        hints = spec.annotations.as_mcp()
        assert {name: row[name] for name in HINTS} == {name: f"`{str(hints[name]).lower()}`" for name in HINTS}, spec.name
        assert row["Recht"] == f"`{spec.right.key}`" and row["Wirkung"] == f"`{spec.effect.value}`", spec.name


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
