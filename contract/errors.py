"""Stable error codes (SPEC section 6). They travel in _meta["athaus/code"]; the German sentence beside them may change."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NOT_FOUND = "NOT_FOUND"
    MISSING_RIGHT = "MISSING_RIGHT"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    CONFIRMATION_EXPIRED = "CONFIRMATION_EXPIRED"
    CURSOR_EXPIRED = "CURSOR_EXPIRED"
    CONFLICT = "CONFLICT"
    SOURCE_UNAVAILABLE = "SOURCE_UNAVAILABLE"
    UPSTREAM_SCHEMA = "UPSTREAM_SCHEMA"
    RATE_LIMITED = "RATE_LIMITED"
    INPUT_REQUIRED = "INPUT_REQUIRED"
    INTERNAL = "INTERNAL"


ERROR_META_KEY = "athaus/code"
