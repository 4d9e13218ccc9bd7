"""MkDocs hooks (mkdocs.yml `hooks:`): the navigation from the contract, a deterministic and lean build.

- on_config: the navigation (athaus/docs/nav.py: each server's tools grouped by right); no sitemap.xml, whose
  lastmod dates and gzip timestamp would make every build differ (and without a site_url it has no use).
- on_files: leaves out theme files the site never loads: source maps and the search languages other than German.
"""

from __future__ import annotations

import re
from typing import Any

from athaus.docs.nav import site_nav

# Material's search loads lunr.stemmer.support and lunr.<lang> for `search.lang`, lunr.multi for several languages.
# sitemap.xml: once it is no static template, MkDocs would copy the raw template as a file.
UNUSED_THEME_FILE = re.compile(
    r"\.map$|^sitemap\.xml$|^assets/javascripts/lunr/(tinyseg|wordcut)\.js$"
    r"|^assets/javascripts/lunr/min/lunr\.(?!de\.|multi\.|stemmer\.support\.)"
)


def on_config(config: Any) -> Any:
    config["nav"] = site_nav()
    config.theme.static_templates.discard("sitemap.xml")
    return config


def _from_theme(file: Any, config: Any) -> bool:
    """A file the theme brings (not one of docs/): its source lies in one of the theme's folders."""
    return bool(file.abs_src_path) and any(file.abs_src_path.startswith(folder) for folder in config.theme.dirs)


def on_files(files: Any, config: Any) -> Any:
    for file in list(files):
        if file.inclusion.is_included() and not file.is_documentation_page() and _from_theme(file, config) and UNUSED_THEME_FILE.search(file.src_uri):
            files.remove(file)
    return files
