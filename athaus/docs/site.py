"""The docs site: MkDocs with the Material theme builds docs/ into athaus/docs/site/, which the package ships.

The build is strict (a broken link or anchor, a page missing from the navigation or any other warning fails it) and
deterministic (no build dates, no sitemap, the generator pinned in pyproject.toml), so the committed site can be
compared byte for byte with a fresh build. The site is plain files with relative links: any static web server
can publish it, the app serves it at /docs/, and its search works offline.

MkDocs is imported only here, lazily: a server installed without the `docs` extra serves the shipped site and
never needs it.
"""

from __future__ import annotations

import filecmp
import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SITE_DIR = Path(__file__).resolve().parent / "site"
ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"  # in a source checkout; the site is built there, never from an installed package


class SiteBuildError(RuntimeError):
    """The site could not be built; the message lists MkDocs' warnings."""


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _mkdocs_log() -> Iterator[_Collect]:
    """MkDocs' own log: its warnings collected for the error message, its progress lines kept quiet."""
    log = logging.getLogger("mkdocs")
    collect = _Collect()
    level, propagate = log.level, log.propagate
    log.addHandler(collect)
    log.setLevel(logging.WARNING)
    log.propagate = False
    try:
        yield collect
    finally:
        log.removeHandler(collect)
        log.setLevel(level)
        log.propagate = propagate


def require_generator(config: Path = CONFIG) -> None:
    """Raise SiteBuildError unless the site can be built here: MkDocs installed, mkdocs.yml present (a checkout)."""
    try:
        import mkdocs  # noqa: F401
    except ImportError as missing:
        raise SiteBuildError(f"MkDocs fehlt ({missing}): pip install -e '.[docs]'") from missing
    if not config.is_file():
        raise SiteBuildError(f"{config} fehlt: die Doku wird in einem Checkout des Projekts gebaut")


def build_site(docs_dir: Path, site_dir: Path, config: Path = CONFIG) -> None:
    """Build the site from the Markdown under `docs_dir` into `site_dir` (emptied first)."""
    require_generator(config)
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    with _mkdocs_log() as warnings:
        try:
            settings = load_config(config_file=str(config), docs_dir=str(docs_dir.resolve()), site_dir=str(site_dir.resolve()))
            build(settings)
        except MkDocsException as failed:
            raise SiteBuildError("\n".join([str(failed), *warnings.messages])) from failed
        if warnings.messages:  # strict mode aborts on these already; a warning outside it must not pass either
            raise SiteBuildError("\n".join(warnings.messages))


def site_files(site_dir: Path) -> list[str]:
    return sorted(path.relative_to(site_dir).as_posix() for path in site_dir.rglob("*") if path.is_file())


def compare_sites(built: Path, committed: Path) -> list[str]:
    """Files that are missing, extra or different in `committed` compared with `built`; empty when identical."""
    mine, theirs = site_files(built), site_files(committed)
    stale = sorted(set(mine) ^ set(theirs))
    stale += [path for path in sorted(set(mine) & set(theirs)) if not filecmp.cmp(built / path, committed / path, shallow=False)]
    return sorted(stale)


def check_site(docs_dir: Path, site_dir: Path = SITE_DIR, config: Path = CONFIG) -> list[str]:
    """Build the site from `docs_dir` into a temporary folder and name what differs in `site_dir`."""
    with tempfile.TemporaryDirectory(prefix="athaus-site-") as tmp:
        build_site(docs_dir, Path(tmp) / "site", config)
        return compare_sites(Path(tmp) / "site", site_dir)
