"""The built docs site under athaus/docs/site/ is what MkDocs builds from docs/: committed, deterministic, shipped
as package data and served by the app at /docs/. A contract change shows up after a rebuild, on its page and in
the search index, nowhere else. (tests/test_docs.py keeps docs/ equal to the contract; tests/test_docs_browser.py
opens the site in Chromium.)"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from athaus.app import create_app
from athaus.docs import build_docs, write_docs
from athaus.docs.examples import ExampleCalls
from athaus.docs.site import SITE_DIR, build_site, compare_sites, site_files
from contract.rights import ServerName
from contract.servers import SERVERS
from shared.db.session import Database
from shared.settings import Settings

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SEARCH_INDEX = ["search/search_index.js", "search/search_index.json"]


@pytest.fixture(scope="module")
def fresh_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as MkDocs builds it now from the committed docs/."""
    site = tmp_path_factory.mktemp("site") / "site"
    build_site(DOCS, site)
    return site


def test_committed_site_equals_a_fresh_build(fresh_site: Path) -> None:
    stale = compare_sites(fresh_site, SITE_DIR)
    assert stale == [], f"athaus/docs/site/ differs from a fresh build in {stale}: run `athaus docs build` and commit the result"


def test_the_site_has_a_page_per_tool_and_loads_nothing_from_elsewhere(fresh_site: Path) -> None:
    files = site_files(fresh_site)
    for server in SERVERS.values():
        assert server.docs_page.replace(".md", ".html") in files
        assert {f"{server.name.value}/{spec.name}.html" for spec in server.tools} <= set(files)
    assert "sitemap.xml" not in files and "sitemap.xml.gz" not in files  # lastmod dates would change every build
    assert not [path for path in files if path.endswith(".map")]
    for path in files:  # no script, style sheet or font from another host (no Google Fonts, no CDN)
        if path.endswith(".html"):
            text = (fresh_site / path).read_text(encoding="utf-8")
            assert not re.search(r'<(script|link)\b[^>]*\b(src|href)="(https?:)?//', text), path
    assert '<html lang="de"' in (fresh_site / "index.html").read_text(encoding="utf-8")


def test_a_contract_change_shows_up_after_a_rebuild_on_its_page_and_in_the_search_nowhere_else(
    docs_calls: ExampleCalls, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_site: Path
) -> None:
    server = SERVERS[ServerName.search]
    tools = tuple(
        dataclasses.replace(t, description="Rechnet die Nebenkosten eines Kaufs aus, neu beschrieben.")
        if t.name == "calculate_purchase_costs"
        else t
        for t in server.tools
    )
    edited = {**SERVERS, ServerName.search: dataclasses.replace(server, tools=tools)}
    for module in ("athaus.docs", "athaus.docs.pages", "athaus.docs.nav"):
        monkeypatch.setattr(f"{module}.SERVERS", edited)
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    write_docs(docs, build_docs(docs_calls))
    build_site(docs, tmp_path / "site")
    assert compare_sites(tmp_path / "site", fresh_site) == sorted(["suche/calculate_purchase_costs.html", *SEARCH_INDEX])
    page = (tmp_path / "site" / "suche" / "calculate_purchase_costs.html").read_text(encoding="utf-8")
    assert "Rechnet die Nebenkosten eines Kaufs aus, neu beschrieben." in page


def test_the_package_ships_every_file_of_the_site() -> None:
    """pyproject.toml's package data covers the built site, so a non-editable install serves it too."""
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["athaus.docs"]
    package = REPO / "athaus" / "docs"
    shipped = {path.relative_to(package).as_posix() for pattern in patterns for path in package.glob(pattern) if path.is_file()}
    assert {f"site/{path}" for path in site_files(SITE_DIR)} <= shipped
    assert "site/index.html" in shipped


def test_the_app_serves_the_built_site_at_docs(tmp_path: Path) -> None:
    db = Database.from_url(f"sqlite:///{tmp_path / 'app.sqlite3'}")
    from shared.db.migrate import upgrade

    upgrade(db.engine)
    with TestClient(create_app(Settings(database_url=str(db.engine.url), secret_key="docs-test"), db), base_url="http://127.0.0.1:8000") as client:
        moved = client.get("/docs", follow_redirects=False)
        assert moved.status_code == 308 and moved.headers["location"] == "/docs/"
        start = client.get("/docs/")
        assert start.status_code == 200 and start.headers["content-type"].startswith("text/html")
        assert start.content == (SITE_DIR / "index.html").read_bytes()
        tool = client.get("/docs/suche/calculate_purchase_costs.html")
        assert tool.status_code == 200 and "Kaufnebenkosten berechnen" in tool.text
        assert client.get("/docs/search/search_index.js").status_code == 200
        assert client.get("/docs/gibt-es-nicht.html").status_code == 404
    db.engine.dispose()


def test_docs_check_names_a_stale_page_and_passes_on_the_committed_docs(
    docs_calls: ExampleCalls, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from athaus.cli import parser

    def main(argv: list[str]) -> int:  # `athaus …` without main()'s logging setup, which would outlive this test
        args = parser().parse_args(argv)
        return int(args.run(args, Settings()))

    monkeypatch.setattr("athaus.docs.examples.run_examples", lambda: docs_calls)  # the calls this run made already
    assert main(["docs", "check"]) == 0
    assert "entsprechen dem Vertrag" in capsys.readouterr().out
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    page = docs / "suche" / "count_listings.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Inserate zählen", "Inserate zählen (von Hand)"), encoding="utf-8")
    assert main(["docs", "check", "--root", str(docs)]) == 1
    assert "suche/count_listings.md" in capsys.readouterr().err
