"""OpenImmo 1.2.7: a hardened streaming reader and the mapping of one object to a catalog listing. No database.

`read_transfer(source, max_bytes=...)` yields the transfer's `Header` first, then one `ParsedObject` per
`<immobilie>` in file order; a transfer that cannot be read at all raises `TransferError` with a German sentence.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from shared.openimmo.mapping import ExcludedValue, ParsedObject, map_object
from shared.openimmo.names import KNOWN_VARIANTS, NameCollision, normalise_name
from shared.openimmo.numbers import Excluded, Parsed, parse_number
from shared.openimmo.reader import Header, RawObject, TransferError, TransferReader

__all__ = [
    "KNOWN_VARIANTS", "Excluded", "ExcludedValue", "Header", "NameCollision", "Parsed", "ParsedObject",
    "TransferError", "TransferReader", "normalise_name", "parse_number", "read_transfer",
]


def read_transfer(source: BinaryIO, *, max_bytes: int) -> Iterator[Header | ParsedObject]:
    for item in TransferReader(source, max_bytes=max_bytes):
        yield map_object(item) if isinstance(item, RawObject) else item
