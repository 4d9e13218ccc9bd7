"""A prepared action (what waits for a human's click) as the office's views show it."""

from __future__ import annotations

from typing import Any

from contract.vocabulary import PendingActionKind, stored_label
from shared.db.models import PendingAction


def action_fields(action: PendingAction) -> dict[str, Any]:
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
