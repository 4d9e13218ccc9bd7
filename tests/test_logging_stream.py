"""The log handler follows sys.stderr: a console command run in-process under pytest (capsys) swaps stderr and closes
its stand-in; a handler that kept the closed stream failed for every later record in that worker."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from shared.logging import configure


@pytest.fixture
def root_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("root_logging")
def test_a_record_after_stderr_was_swapped_and_closed_goes_to_the_stderr_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    failed: list[logging.LogRecord] = []
    monkeypatch.setattr(logging.Handler, "handleError", lambda self, record: failed.append(record))
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure("INFO")
    logging.getLogger("athaus.test").warning("vor dem Tausch")
    first_text = first.getvalue()
    first.close()
    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    logging.getLogger("athaus.test").warning("nach dem Tausch")
    assert failed == []
    assert "vor dem Tausch" in first_text and "nach dem Tausch" not in first_text
    assert "nach dem Tausch" in second.getvalue()
