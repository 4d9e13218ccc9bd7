"""The command line in German: argparse's own words (usage, sections, errors) through its gettext hook, and a parser
class whose every subcommand shows an example under `--help`.

argparse looks its sentences up with `gettext` at the moment it uses them (`argparse._`, `argparse.ngettext`); the
`athaus` command installs this table there when it builds its parser, so help and errors read German throughout."""

from __future__ import annotations

import argparse
from typing import Any

WORDS: dict[str, str] = {
    "usage: ": "Aufruf: ",
    "positional arguments": "Argumente",
    "options": "Optionen",
    "optional arguments": "Optionen",
    "show this help message and exit": "diese Hilfe zeigen und beenden",
    "subcommands": "Befehle",
    "%(prog)s: error: %(message)s\n": "%(prog)s: Fehler: %(message)s\n",
    "argument %(argument_name)s: %(message)s": "Argument %(argument_name)s: %(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "ungültige Wahl: %(value)r (möglich: %(choices)s)",
    "invalid %(type)s value: %(value)r": "ungültiger Wert (%(type)s): %(value)r",
    "the following arguments are required: %s": "diese Argumente fehlen: %s",
    "unrecognized arguments: %s": "unbekannte Argumente: %s",
    "expected one argument": "erwartet einen Wert",
    "expected at most one argument": "erwartet höchstens einen Wert",
    "expected at least one argument": "erwartet mindestens einen Wert",
    "ambiguous option: %(option)s could match %(matches)s": "mehrdeutige Option: %(option)s passt zu %(matches)s",
    "not allowed with argument %s": "nicht zusammen mit Argument %s",
    "ignored explicit argument %r": "überzähliger Wert %r",
    "one of the arguments %s is required": "eines dieser Argumente ist nötig: %s",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "unbekannter Befehl %(parser_name)r (möglich: %(choices)s)",
    "can't open '%(filename)s': %(error)s": "%(filename)s lässt sich nicht öffnen: %(error)s",
    "show program's version number and exit": "Version zeigen und beenden",
}
# argparse names a type by its function: "invalid int value"
TYPES = {"int": "ganze Zahl", "float": "Zahl"}


def _gettext(message: str) -> str:
    return WORDS.get(message, message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    if singular == "expected %s argument":
        return "erwartet %s Wert" if n == 1 else "erwartet %s Werte"
    return _gettext(singular if n == 1 else plural)


def install() -> None:
    """argparse speaks German from here on (in this process: the `athaus` command)."""
    argparse._ = _gettext  # type: ignore[attr-defined]
    argparse.ngettext = _ngettext  # type: ignore[attr-defined]


class GermanParser(argparse.ArgumentParser):
    """Help laid out as written (the examples keep their lines); type names in errors in German."""

    def __init__(self, *args: Any, example: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        if example:
            kwargs["epilog"] = "Beispiel:\n  " + example.replace("\n", "\n  ") + "\n"
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        for english, german in TYPES.items():
            message = message.replace(f"ungültiger Wert ({english})", f"ungültiger Wert ({german})")
        return super().error(message)
