"""The house, read from the code's own imports (module level and inside functions alike):

contract/ is the ground floor (pydantic and the standard library only); shared/ stands on it and never imports
a server; the servers stand on shared/ and never on each other; athaus/ assembles them above both. No two rooms
of shared/ import each other, and no module imports in a circle. No non-test module grows past 600 lines.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("contract", "shared", "broker_server", "search_server", "athaus", "migrations")
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported(path: Path) -> Iterator[str]:
    """Every module `path` imports, at any depth of the file (lazy imports inside functions count)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


@cache
def graph() -> dict[str, set[str]]:
    """Project module → the project modules it imports (a `from package import module` counts as the module)."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        edges[name] = {target for target in imported(path) if target in known and target != name}
    return edges


def external(path: Path) -> set[str]:
    return {target.split(".")[0] for target in imported(path)} - set(PACKAGES)


def test_contract_imports_only_pydantic_the_standard_library_and_itself() -> None:
    allowed = set(sys.stdlib_module_names) | {"pydantic", "__future__"}
    offenders = {
        name: sorted(external(path) - allowed) for name, path in modules().items() if name.split(".")[0] == "contract" and external(path) - allowed
    }
    offenders |= {
        name: sorted(t for t in graph()[name] if t.split(".")[0] != "contract")
        for name in graph()
        if name.split(".")[0] == "contract" and any(t.split(".")[0] != "contract" for t in graph()[name])
    }
    assert offenders == {}


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("contract", {"shared", "broker_server", "search_server", "athaus", "migrations"}),
        ("shared", {"broker_server", "search_server", "athaus"}),
        ("broker_server", {"search_server", "athaus"}),
        ("search_server", {"broker_server", "athaus"}),
    ],
)
def test_nothing_imports_what_stands_above_it_or_beside_it(package: str, forbidden: set[str]) -> None:
    offenders = {
        name: sorted(t for t in targets if t.split(".")[0] in forbidden)
        for name, targets in graph().items()
        if name.split(".")[0] == package and any(t.split(".")[0] in forbidden for t in targets)
    }
    assert offenders == {}


def room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "shared" and len(parts) > 1 else None


def test_no_two_rooms_of_shared_import_each_other() -> None:
    rooms: dict[str, set[str]] = {}
    for name, targets in graph().items():
        here = room(name)
        if here is None:
            continue
        rooms.setdefault(here, set()).update(r for t in targets if (r := room(t)) is not None and r != here)
    both_ways = sorted({tuple(sorted((a, b))) for a, targets in rooms.items() for b in targets if a in rooms.get(b, set())})
    assert both_ways == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_in_a_circle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_grows_past_600_lines() -> None:
    long = {name: n for name, path in modules().items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
