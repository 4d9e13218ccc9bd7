"""The docs: Markdown pages under docs/ generated from the contract, and the site MkDocs builds from them.

Generated pages (each starts with the do-not-edit comment): the start page, Werkzeuge, Rechte, Konfiguration,
each server's overview and one page per tool with a real call against the demo data (athaus/docs/examples.py).
Hand-written pages (how to connect, the confirmation card, running it, the changelog) live beside them in
docs/ and are listed in athaus/docs/nav.py. `check_docs` names the generated pages that drifted from the
contract, including pages of tools that no longer exist; athaus/docs/site.py builds and checks the site.
"""

from __future__ import annotations

from pathlib import Path

from athaus.docs.configuration import configuration_page
from athaus.docs.examples import ExampleCalls
from athaus.docs.markdown import HEADER
from athaus.docs.pages import index_page, rights_page, tools_page
from athaus.docs.research_page import PATH as research_page_path
from athaus.docs.research_page import research_page
from athaus.docs.server_pages import server_page, tool_page, tool_path
from contract.servers import SERVERS


def build_docs(calls: ExampleCalls) -> dict[str, str]:
    """Every generated page, as {path relative to docs/: content}; `calls` from examples.run_examples()."""
    pages = {
        "index.md": index_page(),
        "werkzeuge.md": tools_page(),
        "rechte.md": rights_page(),
        "konfiguration.md": configuration_page(),
        research_page_path: research_page(),
    }
    for server in SERVERS.values():
        pages[server.docs_page] = server_page(server)
        for spec in server.tools:
            pages[tool_path(server, spec)] = tool_page(server, spec, calls[server.name, spec.name])
    return dict(sorted(pages.items()))


def generated_files(root: Path) -> list[str]:
    """The Markdown files under `root` that say they are generated (first line is the do-not-edit comment)."""
    found = []
    for file in sorted(root.rglob("*.md")):
        with file.open(encoding="utf-8") as text:
            if text.readline().rstrip("\n") == HEADER:
                found.append(file.relative_to(root).as_posix())
    return found


def write_docs(root: Path, pages: dict[str, str]) -> list[str]:
    """Write the generated pages and remove generated pages the contract no longer has; returns the removed paths."""
    removed = [path for path in generated_files(root) if path not in pages]
    for path in removed:
        (root / path).unlink()
    for path, content in pages.items():
        file = root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if not file.is_file() or file.read_bytes() != content.encode("utf-8"):
            file.write_text(content, encoding="utf-8", newline="\n")
    return removed


def check_docs(root: Path, pages: dict[str, str]) -> list[str]:
    """Generated paths under `root` that are missing, differ, or are no longer generated; empty when all agree."""
    stale = [path for path in generated_files(root) if path not in pages]
    for path, content in pages.items():
        file = root / path
        if not file.is_file() or file.read_bytes() != content.encode("utf-8"):
            stale.append(path)
    return sorted(stale)
