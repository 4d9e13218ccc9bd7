"""What a handler raises when it cannot answer; the adapter alone turns these into results."""

from __future__ import annotations

from dataclasses import dataclass

from contract.errors import ErrorCode


class ToolFailure(Exception):
    """An expected failure with a stable code and one German sentence that names the next step."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
