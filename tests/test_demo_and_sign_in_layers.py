"""The demo data and the sign-in stand in one direction, read from the code: no circle among the modules of
shared/demo, no private name taken from another module there, none of them too large, and shared/auth never
imports shared/web (the pages stand on the authorization server, not the other way round)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package.replace(".", "/")).rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


def _imported(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every import in the file, functions included; name None for `import module`."""
    pairs: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            pairs += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs += [(node.module, alias.name) for alias in node.names]
    return pairs


def test_demo_modules_import_each_other_in_one_direction() -> None:
    modules = _modules("shared.demo")
    edges = {
        name: {module if module in modules else f"{module}.{imported}" for module, imported in _imported(path)}
        & set(modules)
        for name, path in modules.items()
    }
    circles = []
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for target in sorted(edges[name]):
            if state.get(target) == "open":
                circles.append([*trail[trail.index(target):], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[name] = "done"

    for name in modules:
        if name not in state:
            visit(name, [name])
    assert circles == []


def test_no_demo_module_takes_a_private_name_from_another() -> None:
    taken = [
        f"{path.relative_to(ROOT)}: {module}.{name}"
        for path in _modules("shared.demo").values()
        for module, name in _imported(path)
        if module.startswith("shared.") and name is not None and name.startswith("_")
    ]
    assert taken == []


def test_no_demo_module_is_too_large() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in _modules("shared.demo").values()
    }
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}


def test_the_authorization_server_knows_nothing_of_the_pages() -> None:
    upward = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in _modules("shared.auth").values()
        for module, _ in _imported(path)
        if module == "shared.web" or module.startswith("shared.web.")
    ]
    assert upward == []
