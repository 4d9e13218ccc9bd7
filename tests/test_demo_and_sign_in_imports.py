"""Two rules of the house that the import-graph test (circles, rooms, sizes) does not see: the demo modules
share only public names, and of shared/auth and shared/web the pages stand on the authorization server, not
the other way round."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _imported(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every import in the file, functions included; name None for `import module`."""
    pairs: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            pairs += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs += [(node.module, alias.name) for alias in node.names]
    return pairs


def test_no_demo_module_takes_a_private_name_from_another() -> None:
    taken = [
        f"{path.relative_to(ROOT)}: {module}.{name}"
        for path in _files("shared/demo")
        for module, name in _imported(path)
        if module.startswith("shared.") and name is not None and name.startswith("_")
    ]
    assert taken == []


def test_the_authorization_server_knows_nothing_of_the_pages() -> None:
    upward = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in _files("shared/auth")
        for module, _ in _imported(path)
        if module == "shared.web" or module.startswith("shared.web.")
    ]
    assert upward == []
