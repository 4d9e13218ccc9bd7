"""The one full-text parser (`shared.catalog.query`) that the catalog search and the inquiry search both read."""

from __future__ import annotations

from contract.envelope import WarningCode
from shared.catalog.query import MIN_PREFIX, Clause, Term, parse


def test_words_prefixes_phrases_and_exclusions() -> None:
    parsed = parse('Süd-Balkon Garten* "Blick auf den See" -Erbpacht')
    assert parsed.clauses == [
        Clause((Term("sued"), Term("balkon"))),  # a hyphenated word is its words in order
        Clause((Term("garten", prefix=True),)),
        Clause((Term("blick"), Term("see"))),  # filler words leave a phrase
        Clause((Term("erbpacht"),), excluded=True),
    ]
    assert parsed.words == ["sued", "balkon", "garten", "blick", "see"]
    assert parsed.has_exclusion and not parse("Balkon").has_exclusion


def test_ignored_terms_are_named_as_typed() -> None:
    parsed = parse("Wohnung Mit Be* Bal* ab")
    assert parsed.ignored == ["Mit", "Be*"]
    assert [t.text for c in parsed.clauses for t in c.terms] == ["wohnung", "bal", "ab"]
    warning = parsed.ignored_warning()
    assert warning is not None and warning.code is WarningCode.TERMS_IGNORED
    assert warning.message == f"Nicht gesucht (Füllwort oder Wortanfang unter {MIN_PREFIX} Zeichen): Mit, Be*."
    assert parse("Wohnung Balk*").ignored_warning() is None


def test_a_prefix_needs_three_letters() -> None:
    assert MIN_PREFIX == 3
    assert parse("Bal*").clauses == [Clause((Term("bal", prefix=True),))]
    assert parse("Ba*").clauses == [] and parse("Ba*").ignored == ["Ba*"]


def test_umlauts_and_composed_forms_read_alike() -> None:
    decomposed = "Su\u0308dbalkon Straße"  # ü as u + combining diaeresis
    assert parse(decomposed).words == parse("Südbalkon Strasse").words == ["suedbalkon", "strasse"]


def test_only_filler_words_leave_nothing_to_search() -> None:
    parsed = parse("und mit der")
    assert parsed.words == [] and parsed.ignored == ["und", "mit", "der"]


def test_found_in_takes_every_word_in_any_order() -> None:
    parsed = parse('Hund* "Besichtigung Termin"')
    assert parsed.found_in({"termin", "hunde", "besichtigung"})
    assert not parsed.found_in({"termin", "besichtigung"})  # the prefix hund* is missing
    assert not parsed.found_in({"hund", "besichtigung"})  # a whole word must be there
    assert parse("Balkon -Keller").found_in({"balkon", "keller"})  # an exclusion is not a search term
