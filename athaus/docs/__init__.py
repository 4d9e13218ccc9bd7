"""The pages under docs/, generated from the contract: the index, the Werkzeuge page, Rechte, one page per server.

Every table is rendered from contract/ (tool specs, rights, hints, schemas, codes), so the committed docs
cannot drift from what the servers register; `check_docs` names the pages that did drift.
"""

from __future__ import annotations

from pathlib import Path

from athaus.docs.pages import index_page, rights_page, server_page, tools_page
from contract.servers import SERVERS


def build_docs() -> dict[str, str]:
    """Every generated page, as {path relative to docs/: content}."""
    pages = {"index.md": index_page(), "werkzeuge.md": tools_page(), "rechte.md": rights_page()}
    for server in SERVERS.values():
        pages[server.docs_page] = server_page(server)
    return dict(sorted(pages.items()))


def write_docs(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for path, content in build_docs().items():
        (root / path).write_text(content, encoding="utf-8", newline="\n")


def check_docs(root: Path) -> list[str]:
    """The generated paths whose file under `root` is missing or differs; empty when docs and contract agree."""
    stale = []
    for path, content in build_docs().items():
        file = root / path
        if not file.is_file() or file.read_bytes() != content.encode("utf-8"):
            stale.append(path)
    return stale
