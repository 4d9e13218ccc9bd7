"""Stable error codes (SPEC section 6) and what a handler raises when it cannot answer.

The code travels in _meta["athaus/code"]; the German sentence beside it may change."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NOT_FOUND = "NOT_FOUND"
    MISSING_RIGHT = "MISSING_RIGHT"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED"
    CONFIRMATION_INVALID = "CONFIRMATION_INVALID"
    CURSOR_EXPIRED = "CURSOR_EXPIRED"
    CONFLICT = "CONFLICT"
    SOURCE_UNAVAILABLE = "SOURCE_UNAVAILABLE"
    TIME_BUDGET_EXCEEDED = "TIME_BUDGET_EXCEEDED"
    UPSTREAM_SCHEMA = "UPSTREAM_SCHEMA"
    RATE_LIMITED = "RATE_LIMITED"
    INPUT_REQUIRED = "INPUT_REQUIRED"
    INTERNAL = "INTERNAL"


ERROR_META_KEY = "athaus/code"
# Beside the code, where one code has several causes a program tells apart (the card's heading): `Refusal` values.
REASON_META_KEY = "athaus/reason"
# RATE_LIMITED: the seconds to wait before the next call (as HTTP's Retry-After would say).
RETRY_AFTER_META_KEY = "athaus/retryAfter"


class ToolFailure(Exception):
    """An expected failure with a stable code and one German sentence that names the next step.

    Raised by handlers and the domain rooms below them; only the runtime adapter turns it into a result."""

    def __init__(self, code: ErrorCode, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason  # travels in _meta[REASON_META_KEY] of a tool's error result


@dataclass(frozen=True)
class Question:
    """The one question a tool asks when an input is missing (SPEC section 6, rule 9)."""

    argument: str  # the input field the answer fills
    message: str  # German, one question
    schema: dict[str, object]  # JSON Schema of the answer (a primitive)


class InputNeeded(Exception):
    def __init__(self, question: Question) -> None:
        super().__init__(question.message)
        self.question = question
