"""A prepared action (what waits for a human's click) as the office's views show it."""

from __future__ import annotations

import datetime as dt
from typing import Any, Protocol

from contract.vocabulary import PendingActionKind, stored_label
from shared.db.models import PendingAction

# What the views read of an action, selected as columns (not the entity with its payload): `ShownAction` rows
SHOWN_COLUMNS = (
    PendingAction.ref,
    PendingAction.kind,
    PendingAction.subject_ref,
    PendingAction.summary,
    PendingAction.status,
    PendingAction.created_at,
    PendingAction.expires_at,
)


class ShownAction(Protocol):
    """A row of SHOWN_COLUMNS (or a PendingAction)."""

    @property
    def ref(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def subject_ref(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def created_at(self) -> dt.datetime: ...
    @property
    def expires_at(self) -> dt.datetime: ...


def action_fields(action: ShownAction) -> dict[str, Any]:
    """What every view of a prepared action names: its number, kind (with its German label), what it acts on,
    its summary, when it was prepared and until when it can be confirmed."""
    return {
        "confirmation_id": action.ref,
        "kind": action.kind,
        "kind_label": stored_label(PendingActionKind, action.kind),
        "subject_ref": action.subject_ref,
        "summary": action.summary,
        "created_at": action.created_at,
        "expires_at": action.expires_at,
    }
