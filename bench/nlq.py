"""How well both servers' `search` reads the lines people type: each line of a set (`{"q": line, "expect": {...}}`,
the format of /work/shared/nlq/README.md) through the catalog's and an office's `search`, each expectation checked
against the answer's echoed request, suggestions and text.

    python -m bench.nlq [lines.jsonl …]

seeds the 2,400-listing demo catalog in a temporary SQLite file and prints, per server, the share of lines read
right and how many were misread yet answered `complete` (the answer a model turns into "there is nothing"). Without
arguments it reads ../shared/nlq/dev.jsonl. tests/test_nlq.py checks the same lines with the same checker.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEV_LINES = Path(__file__).resolve().parents[2] / "shared" / "nlq" / "dev.jsonl"
NUMBER_WORD = re.compile(r"\d")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _place(name: Any) -> str:
    """A place as echoed, without the Bundesland that tells namesakes apart: 'Münster (Nordrhein-Westfalen)'."""
    from shared.catalog.gazetteer import split_state

    return split_state(str(name))[0] if name else ""


def _feature_named(feature: str, query: str | None) -> bool:
    from shared.catalog.line_words import FEATURE_WORDS, key, lookup

    return any(FEATURE_WORDS.get(lookup(FEATURE_WORDS, key(word)) or "") == feature for word in (query or "").split())


def _suggested(answer: dict[str, Any], word: str) -> bool:
    """`word` stands in a suggestion's line that the server has not searched."""
    wanted = word.casefold()
    return any(
        not s.get("searched", False) and wanted in str(s["arguments"].get("query", "")).casefold() for s in answer.get("suggestions") or []
    )


def problems(expect: dict[str, Any], answer: dict[str, Any]) -> list[str]:
    """What of `expect` the answer does not hold, as the README of the set defines each key; [] when read right."""
    request = answer["request"]
    found: list[str] = []
    near = request.get("near") if isinstance(request.get("near"), dict) else None
    for name, value in expect.items():
        if name.startswith(("min_", "max_")):
            ok = isinstance(request.get(name), int | float) and float(request[name]) == float(value)
        elif name in {"marketing_type", "postal_codes"}:
            ok = request.get(name) == value
        elif name == "property_types":
            ok = sorted(request.get(name) or []) == sorted(value)
        elif name == "city":
            ok = _place(request.get("city")) == value or (near is not None and _place(near.get("place")) == value)
        elif name == "near":
            ok = near is not None and _place(near.get("place")) == value["place"] and float(near.get("radius_km", -1)) == float(value["radius_km"])
        elif name == "near_place":
            ok = (near is not None and _place(near.get("place")) == value) or _place(request.get("city")) == value
        elif name == "features":
            have = request.get("features") or []
            ok = all(f in have or _feature_named(f, request.get("query")) for f in value)
        elif name == "ambiguous_place":
            ok = answer["status"] != "complete" and _names_namesakes(value, json.dumps(answer, ensure_ascii=False))
        elif name in {"place_suggests", "typo_suggests"}:
            ok = _suggested(answer, value)
        else:
            ok = False
        if not ok:
            found.append(f"{name}: erwartet {value!r}")
    query = request.get("query") or ""
    if NUMBER_WORD.search(str(query)) and answer["status"] == "complete":
        found.append(f"Zahl als Suchwort übrig: {query!r}")
    return found


def _names_namesakes(name: str, text: str) -> bool:
    """At least two of the places called `name`, each with its Bundesland, are named in `text`."""
    from shared.catalog.places import Namesakes, candidate_names, classify_place

    found = classify_place(name)
    if not isinstance(found, Namesakes):
        return False
    _, shown = candidate_names(name, found.candidates)
    return sum(1 for s in shown if s in text) >= 2


@dataclass
class Outcome:
    line: str
    answer: dict[str, Any] | None
    problems: list[str]

    @property
    def right(self) -> bool:
        return not self.problems

    @property
    def misread_complete(self) -> bool:
        return bool(self.problems) and self.answer is not None and self.answer["status"] == "complete"


def run(lines: Iterable[dict[str, Any]], call: Callable[[str], dict[str, Any] | str]) -> list[Outcome]:
    """Each line through `call` (the structured answer of `search`, or the error text)."""
    outcomes = []
    for item in lines:
        answer = call(item["q"])
        if isinstance(answer, str):
            outcomes.append(Outcome(item["q"], None, [f"Fehler: {answer}"]))
        else:
            outcomes.append(Outcome(item["q"], answer, problems(item["expect"], answer)))
    return outcomes


def summary(server: str, outcomes: list[Outcome]) -> str:
    right = sum(o.right for o in outcomes)
    wrong = sum(o.misread_complete for o in outcomes)
    return f"{server:<7} read right {right}/{len(outcomes)} ({100 * right / max(len(outcomes), 1):.1f} %), misread yet complete {wrong}"


def _callers(db: Any) -> dict[str, Callable[[str], dict[str, Any] | str]]:
    import datetime as dt

    import anyio
    import mcp_types as types
    from sqlalchemy import select

    from broker_server.server import DEFINITION as BROKER
    from search_server.server import DEFINITION as SEARCH
    from shared.auth.principal import Principal
    from shared.db.models import OfficeMember
    from shared.paging.cursor import CursorCodec
    from shared.runtime.adapter import ToolRunner
    from shared.runtime.context import ToolContext
    from shared.settings import Settings

    context = ToolContext(db=db, settings=Settings(database_url=str(db.engine.url)), cursors=CursorCodec(b"bench", dt.timedelta(hours=1)))
    with db.read_only() as session:
        user = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == 1).limit(1))
    broker = Principal(
        user_id=user or 900_001, kind="broker", office_id=1, office_role="owner", scopes=frozenset({"makler:lesen"}), resource="bench"
    )

    def caller(definition: Any, principal: Any) -> Callable[[str], dict[str, Any] | str]:
        runner = ToolRunner(definition, context)

        def call(line: str) -> dict[str, Any] | str:
            params = types.CallToolRequestParams(name="search", arguments={"query": line})
            result = anyio.run(runner.call, params, None, principal)
            return result.content[0].text if result.is_error else result.structured_content

        return call

    return {"suche": caller(SEARCH, None), "makler": caller(BROKER, broker)}


def main(paths: list[str]) -> None:
    from shared.db.migrate import upgrade
    from shared.db.session import Database
    from shared.demo import seed_demo

    sets = [Path(p) for p in paths] or [DEV_LINES]
    lines = [item for path in sets for item in load(path)]
    with tempfile.TemporaryDirectory() as folder:
        db = Database.from_url(f"sqlite:///{folder}/nlq.db")
        upgrade(db.engine)
        seed_demo(db.engine, listings=2400)
        for server, call in _callers(db).items():
            outcomes = run(lines, call)
            for outcome in outcomes:
                if not outcome.right:
                    status = outcome.answer["status"] if outcome.answer else "Fehler"
                    print(f"  {server}: {outcome.line!r} ({status}): {'; '.join(outcome.problems)}")
            print(summary(server, outcomes))
        db.engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])
