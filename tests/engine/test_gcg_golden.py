"""Lexio game records written from the engine: golden files byte for byte, and write -> read -> replay.

The golden games are scripted: a seeded bag, a greedy player that picks among shape-valid placements, and a
lexicon that accepts every word (the engine takes the lexicon as an argument; the words of these games are
therefore letter strings, not French). ``games.json`` holds each game's seed, players and script. Regenerate
after an intended change of the engine or the writer with ``python tests/engine/test_gcg_golden.py`` and
review the diff.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.errors import LexioError
from engine.events import Event, GameEnded, Placed, Swapped, TimedOut
from engine.game import (
    MAX_SEATS,
    Command,
    CreateTable,
    GameState,
    Join,
    Play,
    Start,
    TimeoutPass,
    apply,
    decide,
    new_state,
    replay,
)
from engine.gcg import TIMEOUT_NOTE, GcgMove, GcgNote, GcgRecord, parse_gcg, verify_gcg, write_gcg
from engine.moves import Pass, Place, Swap, Tile
from engine.notation import parse_move
from engine.scoring import analyse

GOLDEN = Path(__file__).resolve().parent / "golden"
GAMES: dict[str, dict[str, Any]] = json.loads((GOLDEN / "games.json").read_text(encoding="utf-8"))


def accept_all(words: Sequence[str]) -> list[str]:
    """A lexicon that knows every word: these games test scores and records, not the word list."""
    return []


@dataclass
class Table:
    """A table driven through decide/apply, as the relay does, with a seeded bag and a fake clock."""

    state: GameState
    rng: random.Random
    now_ms: int = 1_764_000_000_000

    @classmethod
    def open(cls, names: Sequence[str], seed: int) -> Table:
        table = cls(new_state(), random.Random(seed))
        table.do(CreateTable("lexio"))
        for name in names:
            table.do(Join(name))
        if len(names) < MAX_SEATS:
            table.do(Start(0))
        return table

    def do(self, command: Command) -> list[Event]:
        self.now_ms += 1500
        events = decide(self.state, command, now_ms=self.now_ms, rng=self.rng, lexicon=accept_all)
        for event in events:
            self.state = apply(self.state, event)
        return events


# -- the scripted player ----------------------------------------------------------------------------------
SIZES = (1, 2, 3, 4, 5, 6, 7)
SIZE_WEIGHTS = (2, 6, 8, 6, 3, 1, 1)


def candidates(board: Board, rack: str, count: int, rng: random.Random) -> list[tuple[int, Place]]:
    """Shape-valid placements of ``count`` rack tiles, scored: every run of new squares through an anchor."""
    v = board.variant
    cells = board.cells
    if board.is_empty:
        anchors = [v.source_index]
    else:
        anchors = [
            i
            for i in range(len(cells))
            if v.playable[i]
            and cells[i] is None
            and any(n != -1 and cells[n] is not None for n in (v.left[i], v.right[i], v.up[i], v.down[i]))
        ]
    found: dict[tuple[str, ...], tuple[int, Place]] = {}
    for anchor in anchors:
        for back, fwd in ((v.left, v.right), (v.up, v.down)):
            for before in range(count):
                head = _run(cells, anchor, back, before)
                squares = [*head[::-1], anchor, *_run(cells, anchor, fwd, count - 1 - before)]
                if len(squares) != count:
                    continue
                letters = rng.sample(rack, count)
                tiles = tuple(
                    Tile(v.names[i], rng.choice("EAISNRTULO") if ch == "?" else ch, ch == "?")
                    for i, ch in zip(squares, letters, strict=True)
                )
                key = tuple(sorted(t.square for t in tiles))
                if key in found:
                    continue
                try:
                    breakdown = analyse(board, tiles)
                except LexioError:
                    continue
                found[key] = (breakdown.total, Place(tiles))
    return [found[k] for k in sorted(found, key=lambda k: (-found[k][0], k))]


def _run(cells: Sequence[str | None], start: int, step: Sequence[int], n: int) -> list[int]:
    out: list[int] = []
    i = start
    while len(out) < n:
        i = step[i]
        if i == -1:
            break
        if cells[i] is None:
            out.append(i)
    return out


def choose(table: Table, turn: int, script: dict[str, str], rng: random.Random) -> Command:
    state = table.state
    seat = state.turn
    assert seat is not None
    action = script.get(str(turn), "place")
    rack = state.seats[seat].rack
    if action == "timeout":
        return TimeoutPass(seat)
    if action == "pass":
        return Play(seat, Pass())
    if action.startswith("swap") and len(state.bag) >= 3:
        return Play(seat, Swap("".join(sorted(rack)[:3])))
    sizes = [s for s in SIZES if s <= len(rack)]
    if not state.bag:
        sizes = [len(rack), *sizes[::-1]]  # with the bag empty, try to go out
    else:
        weights = [w for s, w in zip(SIZES, SIZE_WEIGHTS, strict=False) if s <= len(rack)]
        first = rng.choices(sizes, weights)[0]
        sizes = [first] + [s for s in sizes[::-1] if s != first]
    for size in sizes:
        found = candidates(state.board, rack, size, rng)
        if found:
            # Any of the better quarter: the best every time makes letter-salad scores of 1000.
            return Play(seat, rng.choice(found[: max(1, len(found) // 4)])[1])
    return Play(seat, Pass())


def scripted_game(
    names: Sequence[str], seed: int, script: dict[str, str], stop: int | None = None
) -> GameState:
    """Play a whole game (or ``stop`` turns) with the scripted player."""
    table = Table.open(names, seed)
    rng = random.Random(seed * 7919 + 1)
    turn = 0
    while table.state.status == "playing" and (stop is None or turn < stop):
        turn += 1
        table.do(choose(table, turn, script, rng))
        assert turn < 400, "a scripted game must end"
    return table.state


def game_of(name: str) -> GameState:
    spec = GAMES[name]
    return scripted_game(spec["players"], spec["seed"], spec.get("script", {}), spec.get("stop"))


# -- driving the engine from a record ---------------------------------------------------------------------
def drive(record: GcgRecord, seed: int) -> GameState:
    """Play a revealed record's moves through the engine again, with the bag of ``seed``."""
    table = Table.open([p.name for p in record.players], seed)
    seat_of = {p.nick: p.number - 1 for p in record.players}
    items = list(record.items)
    for k, item in enumerate(items):
        if not isinstance(item, GcgMove):
            continue
        seat = seat_of[item.nick]
        if item.kind == "place":
            table.do(Play(seat, parse_move(f"{item.position} {item.word}", table.state.board)))
        elif item.kind == "swap":
            table.do(Play(seat, Swap(item.tiles)))
        elif item.kind == "pass":
            following = items[k + 1] if k + 1 < len(items) else None
            timed_out = isinstance(following, GcgNote) and following.text == TIMEOUT_NOTE
            table.do(TimeoutPass(seat) if timed_out else Play(seat, Pass()))
    return table.state


GOLDEN_FILES = sorted(GAMES)


@pytest.fixture(scope="module")
def games() -> dict[str, GameState]:
    return {name: game_of(name) for name in GOLDEN_FILES}


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_writer_reproduces_each_golden_game_byte_for_byte(name: str, games: dict[str, GameState]) -> None:
    state = games[name]
    assert write_gcg(state, reveal=True) == (GOLDEN / name).read_text(encoding="utf-8")
    public = GOLDEN / name.replace(".gcg", ".public.gcg")
    assert write_gcg(state) == public.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_a_golden_record_replayed_through_the_engine_gives_the_same_game(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    state = drive(parse_gcg(text), GAMES[name]["seed"])
    assert write_gcg(state, reveal=True) == text
    assert state.events == game_of(name).events


@pytest.mark.parametrize(
    "name", [n for n in GOLDEN_FILES] + [n.replace(".gcg", ".public.gcg") for n in GOLDEN_FILES]
)
def test_every_golden_record_verifies_with_zero_mismatches(name: str) -> None:
    record = parse_gcg((GOLDEN / name).read_text(encoding="utf-8"))
    report = verify_gcg(record)
    assert report.variant == "lexio"
    assert report.problems == ()
    assert report.placements > 0


def test_the_golden_games_cover_every_line_form(games: dict[str, GameState]) -> None:
    events = [e for state in games.values() for e in state.events]
    assert any(isinstance(e, Swapped) for e in events)
    assert any(isinstance(e, TimedOut) for e in events)
    assert any(isinstance(e, Placed) and len(e.tiles) == 7 for e in events), "a bingo"
    assert any(isinstance(e, Placed) and any(t.blank for t in e.tiles) for e in events), "a blank"
    reasons = {e.reason for e in events if isinstance(e, GameEnded)}
    assert reasons == {"out", "scoreless"}
    assert any(s.status == "playing" for s in games.values()), "a running game"
    assert {len(s.seats) for s in games.values()} >= {2, 3, 4}


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_write_then_read_then_replay_gives_the_engine_scores_and_totals(
    name: str, games: dict[str, GameState]
) -> None:
    state = games[name]
    for reveal in (True, False):
        record = parse_gcg(write_gcg(state, reveal=reveal))
        report = verify_gcg(record)
        assert report.ok, report.problems
        assert [t for _, t in report.totals] == [s.score for s in state.seats]
        last = {m.nick: m.total for m in record.moves}
        assert [last.get(p.nick, 0) for p in record.players] == [s.score for s in state.seats]
        scores = [m.score for m in record.moves if m.kind == "place"]
        assert scores == [e.score for e in state.events if isinstance(e, Placed)]


def test_the_public_record_hides_racks_and_swapped_tiles(games: dict[str, GameState]) -> None:
    for state in games.values():
        record = parse_gcg(write_gcg(state))
        placed = iter(e for e in state.events if isinstance(e, Placed))
        for move in record.moves:
            if move.kind == "place":
                # Only the tiles played, never the rest of the rack.
                assert move.rack == Place(next(placed).tiles).rack_letters
            elif move.kind == "swap":
                assert move.tiles.isdigit() and move.rack == ""
            elif move.kind == "pass":
                assert move.rack == ""


def test_a_record_is_the_same_after_a_replay_of_the_journal(games: dict[str, GameState]) -> None:
    for state in games.values():
        again = replay(state.events)
        assert write_gcg(again, reveal=True) == write_gcg(state, reveal=True)


def test_names_become_safe_unique_nicks_and_keep_their_full_form() -> None:
    state = scripted_game(["Jean Paul", "Jean_Paul", "a:b c"], 3, {}, stop=3)
    record = parse_gcg(write_gcg(state))
    assert [(p.nick, p.name) for p in record.players] == [
        ("Jean_Paul", "Jean Paul"),
        ("Jean_Paul_2", "Jean_Paul"),
        ("ab_c", "a:b c"),
    ]
    assert {m.nick for m in record.moves} == {"Jean_Paul", "Jean_Paul_2", "ab_c"}


def test_a_table_before_its_start_has_players_and_no_moves() -> None:
    table = Table(new_state(), random.Random(1))
    table.do(CreateTable("lexio"))
    table.do(Join("Zoé"))
    record = parse_gcg(write_gcg(table.state))
    assert record.moves == ()


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_any_scripted_game_written_verifies_and_totals_match(seed: int, players: int) -> None:
    names = ["Ana", "Bo", "Cy", "Di"][:players]
    state = scripted_game(names, seed, {"4": "swap", "6": "timeout"})
    for reveal in (True, False):
        report = verify_gcg(parse_gcg(write_gcg(state, reveal=reveal)))
        assert report.ok, report.problems
        assert [t for _, t in report.totals] == [s.score for s in state.seats]


def regenerate() -> None:
    for name in GOLDEN_FILES:
        state = game_of(name)
        (GOLDEN / name).write_text(write_gcg(state, reveal=True), encoding="utf-8")
        (GOLDEN / name.replace(".gcg", ".public.gcg")).write_text(write_gcg(state), encoding="utf-8")
        print(name, state.status, [s.score for s in state.seats], len(state.events), "events")


if __name__ == "__main__":
    regenerate()
    sys.exit(0)


def test_a_wrong_score_in_a_copied_lexio_record_is_reported_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.gcg import main

    lines = (GOLDEN / "lexio-3p.gcg").read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(
        i for i, line in enumerate(lines) if line.startswith(">") and " +" in line and "(" not in line
    )
    head, score, total = lines[index].rsplit(" ", 2)
    lines[index] = f"{head} +{int(score) + 1} {int(total) + 1}\n"
    copy = tmp_path / "slip.gcg"
    copy.write_text("".join(lines), encoding="utf-8")
    assert main(["verify", str(copy)]) == 1
    out = capsys.readouterr().out.splitlines()
    position, word = head.split()[-2:]
    recorded, computed = int(score) + 1, int(score)
    expected = f"recorded {recorded}, computed {computed} (score of {position} {word})"
    assert out[0] == f"{copy}:{index + 1}: {expected}"
