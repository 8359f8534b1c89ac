"""Engine benchmark: validating + scoring a move on a mid-game board, and replaying a whole game's journal.

Prints a human header, then one line per figure: ``name<TAB>value<TAB>unit`` (medians; bench/run_all.py
collects them). The games come from tests/engine/golden/ (scripted Lexio games, replayed through the engine
with their seeded bag) and from the classic corpus (tests/engine/corpus/gcg-classic).
Target: <= 30 us per move for ``analyse`` in CPython. Runs in well under 30 s.
"""

from __future__ import annotations

import gc
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board import Board  # noqa: E402
from engine.events import Placed  # noqa: E402
from engine.game import (  # noqa: E402
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
from engine.gcg import TIMEOUT_NOTE, GcgMove, GcgNote, parse_gcg, verify_gcg, write_gcg  # noqa: E402
from engine.moves import Pass, Place, Swap  # noqa: E402
from engine.notation import format_move, parse_move  # noqa: E402
from engine.scoring import analyse  # noqa: E402

GOLDEN = ROOT / "tests" / "engine" / "golden"
CORPUS = ROOT / "tests" / "engine" / "corpus" / "gcg-classic"


def accept_all(words: Sequence[str]) -> list[str]:
    return []


def drive(text: str, seed: int) -> GameState:
    """A revealed golden record played again through decide/apply with its seeded bag."""
    record = parse_gcg(text)
    state, rng, now = new_state(), random.Random(seed), 1_764_000_000_000

    def do(command: Command) -> None:
        nonlocal state, now
        now += 1500
        for event in decide(state, command, now_ms=now, rng=rng, lexicon=accept_all):
            state = apply(state, event)

    do(CreateTable("lexio"))
    for p in record.players:
        do(Join(p.name))
    if len(record.players) < MAX_SEATS:
        do(Start(0))
    seat_of = {p.nick: p.number - 1 for p in record.players}
    items = list(record.items)
    for k, item in enumerate(items):
        if not isinstance(item, GcgMove):
            continue
        seat = seat_of[item.nick]
        if item.kind == "place":
            do(Play(seat, parse_move(f"{item.position} {item.word}", state.board)))
        elif item.kind == "swap":
            do(Play(seat, Swap(item.tiles)))
        elif item.kind == "pass":
            nxt = items[k + 1] if k + 1 < len(items) else None
            timed_out = isinstance(nxt, GcgNote) and nxt.text == TIMEOUT_NOTE
            do(TimeoutPass(seat) if timed_out else Play(seat, Pass()))
    return state


def parse_and_analyse(notation: str, board: Board) -> object:
    move = parse_move(notation, board)
    assert isinstance(move, Place)
    return analyse(board, move.tiles)


def per_call_us(fn: Callable[[], object], calls: int, repeats: int) -> float:
    """Time of one call in microseconds: the best of ``repeats`` batches of ``calls`` (the machine is shared,
    so the best batch is the least disturbed one); figures are then medians of this over the moves."""
    samples = []
    gc.disable()  # as timeit does: a collection triggered by an earlier allocation is not this call's cost
    try:
        for _ in range(repeats):
            start = time.perf_counter_ns()
            for _ in range(calls):
                fn()
            samples.append((time.perf_counter_ns() - start) / calls / 1000)
    finally:
        gc.enable()
    return min(samples)


def median_ms(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of one call over ``runs`` calls, in milliseconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(samples)


def mid_game(events: Sequence[object], variant: str) -> list[tuple[Board, Place, str]]:
    """(board before, placement, notation) for the placements of the middle half of a game."""
    placed = [e for e in events if isinstance(e, Placed)]
    board = Board.empty(variant)
    out = []
    for n, event in enumerate(placed):
        place = Place(event.tiles)
        if len(placed) // 4 <= n < 3 * len(placed) // 4:
            out.append((board, place, format_move(place, board)))
        board = board.with_tiles(event.tiles)
    return out


def classic_mid_game() -> list[tuple[Board, Place, str]]:
    out = []
    for path in sorted(CORPUS.glob("*.gcg")):
        board = Board.empty("classic")
        moves = [
            m for m in parse_gcg(path.read_text(encoding="utf-8")).moves if m.kind in ("place", "withdraw")
        ]
        history: list[Board] = []
        for n, m in enumerate(moves):
            if m.kind == "withdraw":
                board = history.pop()
                continue
            notation = f"{m.position} {m.word}"
            place = parse_move(notation, board)
            assert isinstance(place, Place)
            if len(moves) // 4 <= n < 3 * len(moves) // 4:
                out.append((board, place, notation))
            history.append(board)
            board = board.with_tiles(place.tiles)
    return out


def median_over(
    cases: Sequence[tuple[Board, Place, str]],
    make: Callable[[Board, Place, str], Callable[[], object]],
    calls: int = 200,
    repeats: int = 5,
) -> float:
    return statistics.median(per_call_us(make(b, p, t), calls, repeats) for b, p, t in cases)


def main() -> int:
    started = time.perf_counter()
    games = json.loads((GOLDEN / "games.json").read_text(encoding="utf-8"))
    lexio_cases = []
    for golden in sorted(games):
        if "running" not in golden:
            played = drive((GOLDEN / golden).read_text(encoding="utf-8"), games[golden]["seed"])
            lexio_cases += mid_game(played.events, "lexio")
    # The journal replayed and the record verified: the longest golden game.
    name = "lexio-2p.gcg"
    text = (GOLDEN / name).read_text(encoding="utf-8")
    state = drive(text, games[name]["seed"])
    events = state.events
    tiles_per_move = statistics.mean(len(p.tiles) for _, p, _ in lexio_cases)
    print(
        f"# engine benchmark: {platform.python_implementation()} {platform.python_version()}, medians; "
        f"mid-game moves = the middle half of the placements of the golden Lexio games "
        f"({len(lexio_cases)} moves, {tiles_per_move:.1f} tiles each on average) and of the classic corpus"
    )
    print("# figure\tvalue\tunit")

    analyse_us = median_over(lexio_cases, lambda b, p, t: lambda: analyse(b, p.tiles))
    print(f"analyse_move_lexio\t{analyse_us:.1f}\tus")
    parse_us = median_over(lexio_cases, lambda b, p, t: lambda: parse_and_analyse(t, b))
    print(f"parse_and_analyse_move_lexio\t{parse_us:.1f}\tus")

    # decide(Play) checks turn, rack, shape, score, lexicon (accept-all) and builds the events.
    placed_at = [i for i, e in enumerate(events) if isinstance(e, Placed)]
    middle = placed_at[len(placed_at) // 4 : 3 * len(placed_at) // 4]
    rng = random.Random(0)
    decide_samples = []
    for i in middle:
        before = replay(events[:i])
        event = events[i]
        assert isinstance(event, Placed)
        command = Play(event.seat, Place(event.tiles))

        def decide_once(s: GameState = before, c: Command = command, t: int = event.at) -> object:
            return decide(s, c, now_ms=t, rng=rng, lexicon=accept_all)

        decide_samples.append(per_call_us(decide_once, 200, 5))
    print(f"decide_place_lexio\t{statistics.median(decide_samples):.1f}\tus")

    classic_cases = classic_mid_game() if CORPUS.is_dir() else []
    if classic_cases:
        classic_us = median_over(
            classic_cases, lambda b, p, t: lambda: analyse(b, p.tiles), calls=100, repeats=3
        )
        print(f"analyse_move_classic\t{classic_us:.1f}\tus")

    replay_ms = median_ms(lambda: replay(events), 51)
    print(f"replay_game_journal\t{replay_ms:.2f}\tms")
    print(f"replay_game_events\t{len(events)}\tevents")
    verify_ms = median_ms(lambda: verify_gcg(parse_gcg(text)), 31)
    print(f"gcg_parse_and_verify_game\t{verify_ms:.2f}\tms")
    write_ms = median_ms(lambda: write_gcg(state, reveal=True), 31)
    print(f"gcg_write_game\t{write_ms:.2f}\tms")
    print(
        f"# done in {time.perf_counter() - started:.1f} s; target analyse_move_lexio <= 30 us: "
        f"{'met' if analyse_us <= 30 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
