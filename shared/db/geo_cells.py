"""Grid cells of a tenth of a degree: how a search around a place finds its listings and how many there are.

A search around a place ("5 km um Stuttgart") was a bounding box on latitude and longitude. PostgreSQL estimates
such a box from each column alone and multiplies: listings cluster in towns, so where a town lies in both bands the
estimate was 35 times too low (705 against 24,639 listings around Stuttgart at 10^6), and the page read and sorted
the whole box (110 ms) instead of walking the newest-first order for a page of matches (3 ms). The cell of a
listing is one value with statistics of its own (an expression index: most common cells, histogram), so a box
written as "cell is one of these" is estimated from where listings really are, and the same index reads a small box
directly. The circle's own condition stays exact; the cells only have to cover it.

The expression must be written the same in a query as in the index (`GeoCell` compiles to exactly the text of
migration 0022), with its constants as literals: a bound parameter in their place would not match the index.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import ColumnElement, Integer
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal

CELLS_PER_DEGREE = 10
LONGITUDE_SPAN = 10_000  # latitude cell × this + longitude cell: a longitude cell lies within ±1,800, so ids never meet
MAX_CELLS = 200  # a larger box (a radius of about 40 km and more) stays a box on latitude and longitude
_EDGE = 1e-7  # degrees (about a centimetre) added around a box: rounding at its edge never loses a cell


class GeoCell(ColumnElement[int]):
    """The cell of (latitude, longitude): each truncated to tenths of a degree (towards zero, like `math.trunc`,
    on both databases), NULL where either is NULL."""

    type = Integer()
    inherit_cache = True
    _traverse_internals = [("latitude", InternalTraversal.dp_clauseelement), ("longitude", InternalTraversal.dp_clauseelement)]

    def __init__(self, latitude: ColumnElement[Any], longitude: ColumnElement[Any]) -> None:
        self.latitude = latitude
        self.longitude = longitude


@compiles(GeoCell, "postgresql")
def _postgresql(element: GeoCell, compiler: SQLCompiler, **kw: Any) -> str:
    latitude, longitude = compiler.process(element.latitude, **kw), compiler.process(element.longitude, **kw)
    return (
        f"(CAST(trunc({latitude} * {CELLS_PER_DEGREE}) * {LONGITUDE_SPAN} + trunc({longitude} * {CELLS_PER_DEGREE}) AS INTEGER))"
    )


@compiles(GeoCell, "sqlite")
def _sqlite(element: GeoCell, compiler: SQLCompiler, **kw: Any) -> str:
    latitude, longitude = compiler.process(element.latitude, **kw), compiler.process(element.longitude, **kw)
    return (
        f"(CAST({latitude} * {CELLS_PER_DEGREE} AS INTEGER) * {LONGITUDE_SPAN} + CAST({longitude} * {CELLS_PER_DEGREE} AS INTEGER))"
    )


def cell_of(latitude: float, longitude: float) -> int:
    """The cell as the database computes it."""
    return math.trunc(latitude * CELLS_PER_DEGREE) * LONGITUDE_SPAN + math.trunc(longitude * CELLS_PER_DEGREE)


def cells_covering(south: float, north: float, west: float, east: float) -> list[int] | None:
    """Every cell a point of the box may lie in, or None when they are more than MAX_CELLS. Truncation never
    decreases, so the cells of a box are the range between the cells of its corners, row by row."""
    rows = range(math.trunc((south - _EDGE) * CELLS_PER_DEGREE), math.trunc((north + _EDGE) * CELLS_PER_DEGREE) + 1)
    columns = range(math.trunc((west - _EDGE) * CELLS_PER_DEGREE), math.trunc((east + _EDGE) * CELLS_PER_DEGREE) + 1)
    if len(rows) * len(columns) > MAX_CELLS:
        return None
    return [row * LONGITUDE_SPAN + column for row in rows for column in columns]
