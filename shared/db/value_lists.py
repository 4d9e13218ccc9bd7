"""A condition "column is one of these values" with the values in one bound parameter, on both databases.

`column.in_(values)` binds one parameter per value: a list of hundreds (every spelling one edit away from a word) makes
a statement of several kilobytes that is rendered, sent and, on PostgreSQL, converted by psycopg anew each time (its
cache skips statements over 4 KB). One parameter keeps the statement short and the same for every list: an array on
PostgreSQL (`= ANY`), a JSON array read by `json_each` on SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, String, any_, bindparam, column, func, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session


def one_of(session: Session, target: ColumnElement[Any], values: Sequence[str], name: str = "values") -> ColumnElement[bool]:
    """`target IN values`, the values bound as one parameter (text values)."""
    if session.get_bind().dialect.name == "postgresql":
        return target == any_(bindparam(name, list(values), type_=ARRAY(String)))
    listed = select(column("value")).select_from(func.json_each(bindparam(name, json.dumps(list(values)), type_=String)))
    return target.in_(listed)
