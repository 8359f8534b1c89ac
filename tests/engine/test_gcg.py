"""GCG records as text: every standard line form is read, and the canonical writer reads back the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BadNotation
from engine.gcg import GcgMove, GcgNote, GcgPlayer, GcgPragma, GcgRecord, format_gcg, parse_gcg

# The nine real classic games, copied from shared/corpus/ so the checkout tests itself.
CORPUS = Path(__file__).resolve().parent / "corpus" / "gcg-classic"
CORPUS_FILES = sorted(CORPUS.glob("*.gcg"))

EVERY_FORM = """\
#character-encoding UTF-8
#variant lexio
#player1 zoé Zoé Lefèvre
#player2 bob Bob
#player3 ana Ana Maria
#player4 kim Kim
>zoé: EAS?RTU 7D MAiSON +14 14
#note opening
with a second line
>bob: ABCDEFG G5 AB.D +9 9
>ana: ABC - +0 0
>kim: ABCDEFG -ABC +0 0
>kim: ABC -3 +0 0
>zoé: XYZ 8A XY +20 34
>zoé: XYZ --  -20 14
>bob: ABC (challenge) +5 14
>ana: ABC (time) -10 -10
>ana: ABC (ABC) -7 -17
>zoé:  (ABCQ) +15 29
"""


def test_every_standard_line_form_is_read() -> None:
    record = parse_gcg(EVERY_FORM)
    assert record.variant == "lexio"
    assert record.players == (
        GcgPlayer(1, "zoé", "Zoé Lefèvre"),
        GcgPlayer(2, "bob", "Bob"),
        GcgPlayer(3, "ana", "Ana Maria"),
        GcgPlayer(4, "kim", "Kim"),
    )
    kinds = [(m.kind, m.nick, m.rack, m.score, m.total, m.line) for m in record.moves]
    assert kinds == [
        ("place", "zoé", "EAS?RTU", 14, 14, 7),
        ("place", "bob", "ABCDEFG", 9, 9, 10),
        ("pass", "ana", "ABC", 0, 0, 11),
        ("swap", "kim", "ABCDEFG", 0, 0, 12),
        ("swap", "kim", "ABC", 0, 0, 13),
        ("place", "zoé", "XYZ", 20, 34, 14),
        ("withdraw", "zoé", "XYZ", -20, 14, 15),
        ("challenge", "bob", "ABC", 5, 14, 16),
        ("time", "ana", "ABC", -10, -10, 17),
        ("end_rack", "ana", "ABC", -7, -17, 18),
        ("end_rack", "zoé", "", 15, 29, 19),
    ]
    first, second = record.moves[0], record.moves[1]
    assert (first.position, first.word) == ("7D", "MAiSON")
    assert (second.position, second.word) == ("G5", "AB.D")
    assert [m.tiles for m in record.moves if m.kind == "swap"] == ["ABC", "3"]
    assert record.moves[-1].tiles == "ABCQ"
    notes = [i for i in record.items if isinstance(i, GcgNote)]
    assert notes == [GcgNote("opening\nwith a second line")]
    assert notes[0].line == 8


def test_canonical_text_reads_back_to_the_same_record() -> None:
    record = parse_gcg(EVERY_FORM)
    text = format_gcg(record)
    assert parse_gcg(text) == record
    # Canonical: single spaces, '\n' line ends, the pass and the withdrawal without padding.
    assert ">zoé: XYZ -- -20 14\n" in text
    assert ">zoé:  (ABCQ) +15 29\n" in text
    assert format_gcg(parse_gcg(text)) == text


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_record_survives_write_then_read(path: Path) -> None:
    record = parse_gcg(path.read_text(encoding="utf-8"))
    assert len(record.players) == 2
    assert record.moves, "a game record has moves"
    assert parse_gcg(format_gcg(record)) == record


def test_corpus_is_read_whole() -> None:
    # The corpus README counts 235 placements over its nine games.
    placements = sum(
        1 for p in CORPUS_FILES for m in parse_gcg(p.read_text(encoding="utf-8")).moves if m.kind == "place"
    )
    assert len(CORPUS_FILES) == 9
    assert placements == 235


def test_utf8_nicks_and_full_names_are_kept() -> None:
    record = parse_gcg((CORPUS / "some_isc_game.gcg").read_text(encoding="utf-8"))
    assert record.players[1] == GcgPlayer(2, "úrsula", "Úrsula Iguarán Buendía")
    assert record.moves[1].nick == "úrsula"
    assert GcgPragma("description", "Created with Macondo") in record.items


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted() -> None:
    record = parse_gcg("\ufeff#player1 a A\r\n#player2 b B\r\n>a: AB 7F AB +4 4\r\n")
    assert record.moves[0] == GcgMove("place", "a", "AB", 4, 4, "7F", "AB")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("#player1 a A\n>a: AB 7F AB +4\n", 2),  # no total
        ("#player1 a A\n>a: AB 7F AB 4 4\n", 2),  # score without sign
        ("#player1 a A\n\n>a AB 7F AB +4 4\n", 3),  # no colon after the nick
        ("#player1 a A\n>a: A!B 7F AB +4 4\n", 2),  # bad rack
        ("#player1 a A\n>a: AB 7F A-B +4 4\n", 2),  # bad word
        ("#player1 a A\n>a: AB CD EF GH +4 4\n", 2),  # four tokens, no position
        ("#player1 a A\n>a: AB +0 0\n", 2),  # a rack and no move
        ("this is not gcg\n", 1),
        ("#player5 e E\n", 1),  # Lexio seats at most four
        ("#player1 a A\n#player1 b B\n", 2),
        ("#variant lexio\n#variant classic\n", 2),
    ],
)
def test_a_line_that_fits_no_form_is_a_bad_notation_error_naming_its_line(text: str, line: int) -> None:
    with pytest.raises(BadNotation) as caught:
        parse_gcg(text)
    assert caught.value.code == "bad_notation"
    assert caught.value.params["line"] == line
    assert f"line {line}" in caught.value.message


_nick = st.text(alphabet="abcdéfghúz_0123456789", min_size=1, max_size=8)
_rack = st.text(alphabet="ABCDEXYZ?", max_size=7)
_num = st.integers(min_value=-999, max_value=999)


@st.composite
def _moves(draw: st.DrawFn, nick: str) -> GcgMove:
    kind = draw(st.sampled_from(["place", "pass", "swap", "withdraw", "challenge", "time", "end_rack"]))
    rack = draw(_rack)
    score, total = draw(_num), draw(_num)
    if kind == "place":
        across = draw(st.booleans())
        row, col = draw(st.integers(1, 15)), draw(st.sampled_from("ABCDEFGHIJKLMNO"))
        position = f"{row}{col}" if across else f"{col}{row}"
        word = draw(st.text(alphabet="ABCxyz.", min_size=1, max_size=7))
        return GcgMove("place", nick, rack or "A", score, total, position, word)
    if kind == "swap":
        tiles = draw(st.one_of(st.text(alphabet="ABC?", min_size=1, max_size=7), st.just("3")))
        return GcgMove("swap", nick, rack, score, total, tiles=tiles)
    if kind == "end_rack":
        return GcgMove("end_rack", nick, rack, score, total, tiles=draw(_rack))
    return GcgMove(kind, nick, rack, score, total)  # type: ignore[arg-type]


@st.composite
def _records(draw: st.DrawFn) -> GcgRecord:
    nicks = draw(st.lists(_nick, min_size=1, max_size=4, unique=True))
    names = st.sampled_from(["", "Zoé de la Tour", "x"])
    players = tuple(GcgPlayer(i + 1, n, draw(names)) for i, n in enumerate(nicks))
    items: list[GcgPragma | GcgNote | GcgMove] = [GcgPragma("variant", "lexio")]
    items += [GcgPragma(f"player{p.number}", f"{p.nick} {p.name}".strip()) for p in players]
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            items.append(draw(_moves(draw(st.sampled_from(nicks)))))
        else:
            items.append(GcgNote(draw(st.sampled_from(["", "good move", "A (B) C #tag", "two\nlines"]))))
    return GcgRecord(tuple(items), players, "lexio")


@settings(max_examples=60, deadline=None)
@given(_records())
def test_any_record_written_then_read_is_the_same_record(record: GcgRecord) -> None:
    assert parse_gcg(format_gcg(record)) == record


_gcg_alphabet = st.sampled_from(
    [*"#>: -+()?.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyzé\n\t", "note", "player1", "\n  #"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_gcg_alphabet, max_size=80).map("".join))
def test_any_text_is_read_or_refused_with_bad_notation(text: str) -> None:
    try:
        record = parse_gcg(text)
    except BadNotation as err:
        assert isinstance(err.params["line"], int)
    else:
        assert parse_gcg(format_gcg(record)) == record


@settings(max_examples=80, deadline=None)
@given(_records())
def test_verifying_any_record_reports_problems_and_never_raises(record: GcgRecord) -> None:
    from engine.gcg import verify_gcg

    report = verify_gcg(record)
    assert all(p.line >= 0 and p.message for p in report.problems)
