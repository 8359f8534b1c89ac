"""Bad input always gets a clear error with a code: every checked entry point, given junk, raises a LexioError
(never a TypeError, AttributeError or KeyError) and leaves the state it was given unchanged."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from engine_testkit import T0, accept_all, table
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ERRORS,
    Board,
    CreateTable,
    Join,
    Leave,
    LexioError,
    Pass,
    Place,
    Play,
    Start,
    Swap,
    Tile,
    TimeoutPass,
    Variant,
    analyse,
    check_placement,
    decide,
    error_from_dict,
    event_from_dict,
    event_to_dict,
    event_type,
    format_move,
    get_variant,
    new_state,
    parse_move,
    redact_event,
    replay,
    reserve_at,
    score_placement,
    tiles_from_json,
    view,
)

EMPTY = Board.empty("lexio")
LEXIO = get_variant("lexio")
PLAYING = table(["MAISONE", "ABCDEFG"], "XYZ")
WAITING = replay(PLAYING.events[:3])  # two seated, not started
RNG = random.Random(0)
REJECTED = {"schema": 1, "type": "rejected", "seat": 0, "tiles": [], "unknown": [], "at": 1}
JUNK_TILES: list[Any] = [
    None,
    5,
    "G7",
    [{"sq": "G7", "letter": "A"}],
    [None],
    (Tile(["G7"], "A"), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile(5, "A"), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile("Z99", "A"), Tile("H7", "A")),
    (Tile("g7", "A"), Tile("H7", "A")),
    (Tile("", "A"), Tile("H7", "A")),
    (Tile("G7", ["A"]), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile("G7", None), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile("G7", None, True), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile("G7", 5, True), Tile("H7", "A")),  # type: ignore[arg-type]
    (Tile("G7", "a"), Tile("H7", "A")),
    (Tile("G7", "É"), Tile("H7", "A")),
    (Tile("G7", "AB"), Tile("H7", "A")),
    (Tile("G7", ""), Tile("H7", "A")),
    (Tile("G7", "?"), Tile("H7", "A")),
    (Tile("G7", "?", True), Tile("H7", "A")),
    (Tile("G7", "", True), Tile("H7", "A")),
]


def variant(**junk: Any) -> Variant:
    data: dict[str, Any] = {"layout": "*.", "rack_size": 7, "bingo_bonus": 0, **junk}
    return Variant.from_text("x", data.pop("layout"), "A 1 1", **data)


def decides(state: Any, command: Any, now_ms: Any = T0) -> Callable[[], object]:
    return lambda: decide(state, command, now_ms=now_ms, rng=RNG, lexicon=accept_all)


CASES: list[tuple[str, Callable[[], object]]] = [
    *((f"analyse {t!r:.50}", lambda t=t: analyse(EMPTY, t)) for t in JUNK_TILES),
    *((f"score_placement {t!r:.50}", lambda t=t: score_placement(EMPTY, t)) for t in JUNK_TILES),
    *((f"check_placement {t!r:.50}", lambda t=t: check_placement(EMPTY, t)) for t in JUNK_TILES),
    *((f"with_tiles {t!r:.50}", lambda t=t: EMPTY.with_tiles(t)) for t in JUNK_TILES if t is not None),
    *((f"play {t!r:.50}", decides(PLAYING, Play(0, Place(t)))) for t in JUNK_TILES if isinstance(t, tuple)),
    ("analyse on no board", lambda: analyse(None, (Tile("G7", "A"), Tile("H7", "A")))),  # type: ignore[arg-type]
    ("board of no variant", lambda: Board.from_json(None, [])),  # type: ignore[arg-type]
    ("board of a list variant", lambda: Board.empty(["lexio"])),  # type: ignore[arg-type]
    ("board from junk json", lambda: Board.from_json("lexio", [{"sq": "G7", "letter": 5}])),
    ("board from Z99", lambda: Board.from_json("lexio", [{"sq": "Z99", "letter": "A"}])),
    ("board.get of a list", lambda: EMPTY.get(["G7"])),  # type: ignore[arg-type]
    ("board[Z99]", lambda: EMPTY["Z99"]),
    ("board[None]", lambda: EMPTY[None]),  # type: ignore[index]
    ("kind of a list", lambda: LEXIO.kind(["G7"])),  # type: ignore[arg-type]
    ("square_index of a dict", lambda: LEXIO.square_index({})),  # type: ignore[arg-type]
    ("get_variant of a list", lambda: get_variant([])),  # type: ignore[arg-type]
    ("tiles_from_json of a str", lambda: tiles_from_json("G7")),
    ("variant with no layout", lambda: variant(layout=None)),
    ("variant rack size '7'", lambda: variant(rack_size="7")),
    ("variant source []", lambda: variant(source=[])),
    ("variant 27 wide", lambda: variant(layout="*" + "." * 26)),
    ("parse_move on no board", lambda: parse_move("7G AB", None)),  # type: ignore[arg-type]
    ("parse_move of None", lambda: parse_move(None, EMPTY)),  # type: ignore[arg-type]
    ("parse_move Z99", lambda: parse_move("Z99 AB", EMPTY)),
    ("parse_move lower-case swap", lambda: parse_move("-ab", EMPTY)),
    ("parse_move fullwidth digit", lambda: parse_move("\uff17G AB", EMPTY)),
    ("parse_move blank with no letter", lambda: parse_move("7G ?A", EMPTY)),
    ("format_move of a str", lambda: format_move("-", EMPTY)),  # type: ignore[arg-type]
    ("format_move of None", lambda: format_move(None, EMPTY)),  # type: ignore[arg-type]
    ("format_move of a junk swap", lambda: format_move(Swap(5), EMPTY)),  # type: ignore[arg-type]
    ("format_move of a lower-case swap", lambda: format_move(Swap("ab"), EMPTY)),
    ("format_move letter None", lambda: format_move(Place((Tile("G7", None), Tile("H7", "A"))), EMPTY)),  # type: ignore[arg-type]
    ("format_move blank no letter", lambda: format_move(Place((Tile("G7", "?", True),)), EMPTY)),
    ("format_move on no board", lambda: format_move(Place((Tile("G7", "A"),)), None)),  # type: ignore[arg-type]
    ("event_from_dict junk tiles", lambda: event_from_dict(dict(REJECTED, tiles=[5]))),
    ("event_to_dict of None", lambda: event_to_dict(None)),  # type: ignore[arg-type]
    ("event_type of a dict", lambda: event_type({"type": "passed"})),  # type: ignore[arg-type]
    ("redact_event of None", lambda: redact_event(None, 0)),  # type: ignore[arg-type]
    ("view of None", lambda: view(None, 0, now_ms=T0)),  # type: ignore[arg-type]
    ("view at no time", lambda: view(PLAYING, None, now_ms="now")),  # type: ignore[arg-type]
    ("reserve_at seat '0'", lambda: reserve_at(PLAYING, "0", T0)),  # type: ignore[arg-type]
    ("reserve_at no time", lambda: reserve_at(PLAYING, 0, None)),  # type: ignore[arg-type]
    ("decide on no state", decides(None, Play(0, Pass()))),
    ("decide of a str", decides(PLAYING, "pass")),
    ("decide at a str time", decides(new_state(), CreateTable(), now_ms="x")),
    ("decide at a bool time", decides(PLAYING, Play(0, Pass()), now_ms=True)),
    ("create variant None", decides(new_state(), CreateTable(None))),  # type: ignore[arg-type]
    ("create seconds '60'", decides(new_state(), CreateTable("lexio", "60"))),  # type: ignore[arg-type]
    ("join name None", decides(WAITING, Join(None))),  # type: ignore[arg-type]
    ("join bot 5", decides(WAITING, Join("A", 5))),  # type: ignore[arg-type]
    ("leave '0'", decides(WAITING, Leave("0"))),  # type: ignore[arg-type]
    ("start True", decides(WAITING, Start(True))),
    ("play seat '0'", decides(PLAYING, Play("0", Pass()))),  # type: ignore[arg-type]
    ("timeout seat None", decides(PLAYING, TimeoutPass(None))),  # type: ignore[arg-type]
    ("play move None", decides(PLAYING, Play(0, None))),  # type: ignore[arg-type]
    ("swap None", decides(PLAYING, Play(0, Swap(None)))),  # type: ignore[arg-type]
    ("swap list", decides(PLAYING, Play(0, Swap(["M"])))),  # type: ignore[arg-type]
    ("swap lower case", decides(PLAYING, Play(0, Swap("m")))),
    ("swap é", decides(PLAYING, Play(0, Swap("é")))),
]


@pytest.mark.parametrize("call", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_junk_at_a_checked_entry_point_is_refused_with_a_code(call: Callable[[], object]) -> None:
    before = repr(PLAYING), PLAYING.events, repr(WAITING)
    with pytest.raises(LexioError) as info:
        call()
    err = info.value
    assert err.code in ERRORS and err.message and type(err) is ERRORS[err.code]
    assert err.to_dict()["code"] == err.code
    assert (repr(PLAYING), PLAYING.events, repr(WAITING)) == before


def test_error_from_dict_never_raises() -> None:
    for junk in (None, [], "x", {"code": 5}, {"code": "gap", "params": "x"}):
        assert isinstance(error_from_dict(junk), LexioError)  # type: ignore[arg-type]


def test_view_and_redaction_treat_a_seat_that_is_not_a_number_as_a_spectator() -> None:
    spectator = view(PLAYING, None, now_ms=T0)
    for seat in ("0", True, 1.0, -1, 7):
        v = view(PLAYING, seat, now_ms=T0)  # type: ignore[arg-type]
        assert v == spectator and v["you"] is None and v["rack"] is None and v["reserve"] is None
        assert "rack" not in redact_event(PLAYING.events[-1], seat)  # type: ignore[arg-type]


def test_a_square_name_that_is_not_a_square_still_makes_a_placement_value() -> None:
    # Moves are plain values (constructing one checks nothing), so odd names must not crash the sort.
    for square in ("A\u00b2", 5, None, "G", ""):
        move = Place((Tile(square, "A"), Tile("G7", "B")))  # type: ignore[arg-type]
        assert move.tiles[0] == Tile("G7", "B")


TEXT = st.one_of(st.text(max_size=4), st.sampled_from(["G7", "H7", "Z99", "g7", "?", "A", "a", ""]))
ANY = st.one_of(st.none(), st.booleans(), st.integers(-2, 5), TEXT, st.lists(TEXT, max_size=2))
TILES = st.lists(st.builds(Tile, ANY, ANY, ANY), max_size=8).map(tuple)
COMMANDS = st.one_of(
    st.builds(Play, ANY, st.one_of(st.builds(Place, TILES), st.builds(Swap, ANY), st.just(Pass()), ANY)),
    st.builds(TimeoutPass, ANY),
    st.builds(Start, ANY),
    st.builds(Leave, ANY),
    st.builds(Join, ANY, ANY),
    st.builds(CreateTable, ANY, ANY),
    ANY,
)


@settings(max_examples=200, deadline=None)
@given(command=COMMANDS, waiting=st.booleans())
def test_decide_answers_any_command_whatsoever_with_events_or_a_lexio_error(
    command: Any, waiting: bool
) -> None:
    state = WAITING if waiting else PLAYING
    try:
        events = decide(state, command, now_ms=T0, rng=random.Random(0), lexicon=accept_all)
    except LexioError as err:
        assert err.code in ERRORS
    else:
        assert events and all(event_from_dict(event_to_dict(e)) == e for e in events)
