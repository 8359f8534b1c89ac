"""Offline planning for the end-to-end tests: the relay's seeded deal, re-derived with the engine.

The relay started with ``--test-seed S --allow-test-seed`` shuffles table ``T`` with
``random.Random(f"{S}:{T}")`` (relay/tables/services.py ``TableServices.rng``); the engine uses that rng
only for the start, a fourth join and swaps. So once a table exists the tests can replay its deal and plan
real plays with the relay's own move generator over the same word list, then make those plays through the UI.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine import Kind
from relay.bots import generate, load_graph
from relay.bots.graph import WordGraph

ROOT = Path(__file__).resolve().parent.parent
FR = ROOT / "lexicons" / "fr.txt.gz"
NOW = 1_800_000_000_000


def build_word_list(path: Path) -> list[str]:
    """The test word list: the shipped French words of 2-5 and 7 letters (about 40k; ~9 of 10 of the
    relay's lookups in these tests). Short words make planned plays easy; 7-letter words make a +30 likely."""
    with gzip.open(FR, "rt", encoding="utf-8") as fh:
        words = [w.strip() for w in fh if w.strip() and (2 <= len(w.strip()) <= 5 or len(w.strip()) == 7)]
    path.write_text("# e2e test word list (generated from lexicons/fr.txt.gz)\n" + "\n".join(words) + "\n")
    return words


@dataclass
class Planner:
    words: list[str]
    graph: WordGraph = field(init=False)
    known: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.graph = load_graph(self.words)
        self.known = frozenset(self.words)

    def lexicon(self, words: Sequence[str]) -> list[str]:
        return [w for w in words if w not in self.known]

    def deal(self, seed: int, table_id: str, names: Sequence[str], turn_seconds: int) -> engine.GameState:
        """The state right after the start, exactly as the relay computes it (same commands, same rng)."""
        return self.deal_rng(seed, table_id, names, turn_seconds)[0]

    def deal_rng(
        self, seed: int, table_id: str, names: Sequence[str], turn_seconds: int
    ) -> tuple[engine.GameState, random.Random]:
        """``deal`` and the table's rng as the relay holds it after the start (swaps draw from it)."""
        rng = random.Random(f"{seed}:{table_id}")
        st = engine.new_state()
        cmds: list[Any] = [engine.CreateTable(variant="lexio", turn_seconds=turn_seconds)]
        cmds += [engine.Join(n) for n in names]
        if len(names) < 4:
            cmds.append(engine.Start(0))
        for cmd in cmds:
            for ev in engine.decide(st, cmd, now_ms=NOW, rng=rng, lexicon=self.lexicon):
                st = engine.apply(st, ev)
        return st, rng

    def moves(self, st: engine.GameState) -> list[engine.Place]:
        seat = st.turn
        assert seat is not None
        res = generate(st.board, st.seats[seat].rack, self.graph)
        return [c.to_place(st.board.variant) for c in res.moves]

    def play(self, st: engine.GameState, move: Any, rng: random.Random | None = None) -> engine.GameState:
        assert st.turn is not None
        for ev in engine.decide(
            st, engine.Play(st.turn, move), now_ms=NOW, rng=rng or random.Random(0), lexicon=self.lexicon
        ):
            st = engine.apply(st, ev)
        return st


def features(st: engine.GameState, move: engine.Place) -> dict[str, Any]:
    bd = engine.analyse(st.board, list(move.tiles)).to_dict()
    return {
        "blank": any(t.blank for t in move.tiles),
        "bingo": bd["bingo"] > 0,
        "crossing": any(w["crossing"] for w in bd["words"]),
        "total": bd["total"],
        "words": [w["word"] for w in bd["words"]],
    }


CROSSINGS = ("D4", "J4", "D10", "J10")


def _distance(variant: engine.Variant, move: engine.Place, targets: Iterable[str]) -> int:
    best = 99
    for t in move.tiles:
        i = variant.index[t.square]
        for sq in targets:
            j = variant.index[sq]
            best = min(
                best,
                abs(i % variant.width - j % variant.width) + abs(i // variant.width - j // variant.width),
            )
    return best


def plan_showcase(
    planner: Planner,
    st: engine.GameState,
    max_moves: int = 8,
    goals: tuple[str, ...] = ("blank", "bingo", "crossing"),
) -> list[engine.Place] | None:
    """Plays (alternating seats, from ``st``) that together include each of ``goals`` (a blank, a crossing
    used by two words, a +30); None if greedy search does not find them within ``max_moves``."""
    want = set(goals)
    plan: list[engine.Place] = []
    variant = st.board.variant
    for _ in range(max_moves):
        cands = planner.moves(st)
        if not cands:
            return None
        free = [sq for sq in CROSSINGS if st.board.get(sq) is None]

        def rank(
            m: engine.Place, st: engine.GameState = st, want: set[str] = want, free: list[str] = free
        ) -> tuple[int, int, int]:
            f = features(st, m)
            gain = sum(1 for k in want if f[k])
            # Do not waste the blank before the play that needs it scores the +30.
            waste = 1 if f["blank"] and not f["bingo"] and "bingo" in want else 0
            return (gain - 2 * waste, -_distance(variant, m, free) if free else 0, -len(m.tiles))

        best = max(cands, key=rank)
        f = features(st, best)
        want -= {k for k in ("blank", "bingo", "crossing") if f[k]}
        plan.append(best)
        st = planner.play(st, best)
        if not want:
            return plan
        if st.status != "playing":
            return None
    return None


def unknown_play(
    planner: Planner, st: engine.GameState, min_unknown: int = 2
) -> tuple[engine.Place, list[str]] | None:
    """A placement of two rack tiles (no blank) whose shape is valid but that forms at least ``min_unknown``
    words missing from the word list; with the words it would be refused for."""
    seat = st.turn
    assert seat is not None
    rack = [c for c in st.seats[seat].rack if c != "?"]
    variant = st.board.variant
    board = st.board
    empty = [sq for sq in variant.names if variant.kind(sq) is not Kind.WALL and board.get(sq) is None]
    for sq in empty:
        i = variant.index[sq]
        for nxt in (variant.right[i], variant.down[i]):
            if nxt < 0 or not variant.playable[nxt] or board.get(variant.names[nxt]) is not None:
                continue
            for a in range(len(rack)):
                for b in range(len(rack)):
                    if a == b:
                        continue
                    tiles = [engine.Tile(sq, rack[a], False), engine.Tile(variant.names[nxt], rack[b], False)]
                    try:
                        bd = engine.analyse(board, tiles)
                    except engine.LexioError:
                        continue
                    words = bd.word_list
                    unknown = planner.lexicon(words)
                    if len(unknown) >= min_unknown and len(set(unknown)) == len(unknown):
                        return engine.Place(
                            tuple(sorted(tiles, key=lambda t: variant.index[t.square]))
                        ), unknown
    return None
