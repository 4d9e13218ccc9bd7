"""The OpenImmo import into an office's stock: `import_transfer` (see importing.py) and `fetch_feed`."""

from shared.stock_import.fetch import fetch_feed
from shared.stock_import.importing import FEED_PREFIX, feed_of, import_transfer, survey

__all__ = ["FEED_PREFIX", "feed_of", "fetch_feed", "import_transfer", "survey"]
