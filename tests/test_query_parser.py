"""The one full-text parser (`shared.catalog.query`) that the catalog search and the inquiry search both read."""

from __future__ import annotations

from contract.envelope import WarningCode
from shared.catalog.query import MIN_PREFIX, Clause, Ignored, Term, parse


def test_words_prefixes_phrases_and_exclusions() -> None:
    parsed = parse('Süd-Balkon Garten* "Blick auf den See" -Erbpacht')
    assert parsed.clauses == [
        Clause((Term("sued"), Term("balkon")), closed=Term("suedbalkon")),  # its words in order, or written closed
        Clause((Term("garten", prefix=True),)),
        Clause((Term("blick"), Term("see"))),  # filler words leave a phrase
        Clause((Term("erbpacht"),), excluded=True),
    ]
    assert parsed.words == ["sued", "balkon", "garten", "blick", "see"]
    assert parsed.has_exclusion and not parse("Balkon").has_exclusion


def test_ignored_terms_are_named_as_typed() -> None:
    parsed = parse("Wohnung Mit Be* Bal* ab")
    assert [i.typed for i in parsed.ignored] == ["Mit", "Be*"]
    assert [t.text for c in parsed.clauses for t in c.terms] == ["wohnung", "bal", "ab"]
    warning = parsed.ignored_warning()
    assert warning is not None and warning.code is WarningCode.TERMS_IGNORED
    assert warning.message == f"Nicht gesucht: Mit (Füllwort); Be* (Wortanfang unter {MIN_PREFIX} Zeichen)."
    assert parse("Wohnung Balk*").ignored_warning() is None


def test_a_prefix_needs_three_letters() -> None:
    assert MIN_PREFIX == 3
    assert parse("Bal*").clauses == [Clause((Term("bal", prefix=True),))]
    assert parse("Ba*").clauses == [] and [i.typed for i in parse("Ba*").ignored] == ["Ba*"]


def test_umlauts_and_composed_forms_read_alike() -> None:
    decomposed = "Su\u0308dbalkon Straße"  # ü as u + combining diaeresis
    assert parse(decomposed).words == parse("Südbalkon Strasse").words == ["suedbalkon", "strasse"]


def test_only_filler_words_leave_nothing_to_search() -> None:
    parsed = parse("und mit der")
    assert parsed.words == [] and parsed.is_empty and [i.typed for i in parsed.ignored] == ["und", "mit", "der"]


def test_found_in_takes_every_word_in_any_order() -> None:
    parsed = parse('Hund* "Besichtigung Termin"')
    assert parsed.found_in({"termin", "hunde", "besichtigung"})
    assert not parsed.found_in({"termin", "besichtigung"})  # the prefix hund* is missing
    assert not parsed.found_in({"hund", "besichtigung"})  # a whole word must be there
    assert parse("Balkon -Keller").found_in({"balkon", "keller"})  # an exclusion is not a search term


def test_or_separates_alternatives_and_and_binds_tighter() -> None:
    parsed = parse("Altbau Balkon OR Loggia")
    assert parsed.groups == [[Clause((Term("altbau"),)), Clause((Term("balkon"),))], [Clause((Term("loggia"),))]]
    assert parsed.has_alternatives and parsed.ignored == []
    assert parse("Balkon ODER Loggia").groups == parse("Balkon or Loggia").groups == parse("Balkon OR Loggia").groups
    assert parse("Balkon AND Loggia").groups == parse("Balkon Loggia").groups == [[Clause((Term("balkon"),)), Clause((Term("loggia"),))]]


def test_lower_case_oder_stays_a_filler_word_and_says_how_to_write_or() -> None:
    parsed = parse("Balkon oder Loggia")
    assert not parsed.has_alternatives
    assert parsed.ignored == [Ignored("oder", "Füllwort; Alternativen mit OR")]


def test_a_dangling_or_is_named() -> None:
    parsed = parse("OR Balkon OR")
    assert parsed.groups == [[Clause((Term("balkon"),))]]
    assert parsed.ignored == [Ignored("OR", "OR ohne Wort davor"), Ignored("OR", "OR ohne Wort danach")]


def test_found_in_takes_any_alternative() -> None:
    parsed = parse("Hund OR Katze Maus")
    assert parsed.found_in({"hund"}) and parsed.found_in({"katze", "maus"})
    assert not parsed.found_in({"katze"})


# What has nothing searchable, and operators this syntax lacks, are named with what was searched instead.
def test_unsupported_operators_are_named_with_what_was_searched() -> None:
    cases = {
        "Balkon~": ("Operator gibt es nicht, gelesen als Balkon", "Balkon~", ["balkon"]),
        "+Garten": ("Operator gibt es nicht, gelesen als Garten", "+Garten", ["garten"]),
        "(Garten)": ("Operator gibt es nicht, gelesen als Garten", "(Garten)", ["garten"]),
        "title:Garten": ("Operator gibt es nicht, gelesen als Garten", "title:Garten", ["garten"]),
    }
    for query, (why, typed, words) in cases.items():
        parsed = parse(query)
        assert parsed.ignored == [Ignored(typed, why)], query
        assert parsed.words == words, query


def test_not_drops_the_word_it_meant_to_exclude() -> None:
    parsed = parse("Balkon NOT Keller")
    assert parsed.words == ["balkon"]  # never searched for what the caller wanted to exclude
    assert parsed.ignored == [Ignored("NOT Keller", "NOT gibt es nicht, ausschließen mit -Keller")]


def test_words_without_latin_letters_or_digits_are_named() -> None:
    for query in ("Квартира", "***", "-", "€"):
        parsed = parse(query)
        assert parsed.is_empty, query
        assert parsed.ignored == [Ignored(query, "keine Buchstaben a–z, Umlaute oder Ziffern")], query
    mixed = parse("Квартира Balkon -")
    assert mixed.words == ["balkon"]
    assert [i.typed for i in mixed.ignored] == ["Квартира", "-"]


def test_a_plain_word_or_phrase_is_named_nowhere() -> None:
    for query in ("Balkon", '"ruhige Lage"', "-Erbpacht", "Balk*", "Dachgeschoss-Wohnung", "Balkon, Garten."):
        assert parse(query).ignored == [], query


def test_abbreviations_match_their_word_and_back() -> None:
    assert parse("DG").clauses == [Clause((Term("dg", also=("dachgeschoss",)),))]
    assert parse("Dachgeschoss").clauses == [Clause((Term("dachgeschoss", also=("dg",)),))]
    hyphenated = parse("DG-Wohnung").clauses[0]
    assert hyphenated.closed == Term("dgwohnung", also=("dachgeschosswohnung",))
    assert parse("Dachg*").clauses == [Clause((Term("dachg", prefix=True),))]  # a prefix is its letters only
