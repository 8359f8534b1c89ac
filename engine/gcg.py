"""Game records in GCG (the text format of Quackle and Woogles), read, written and verified.

Pure like the rest of the engine: every function here takes and returns strings or values; only :func:`main`
(``python -m engine.gcg verify FILE...``) touches files.

The record is kept as an ordered tuple of items, one per line of the file (a ``#note`` may span several
lines), so that :func:`format_gcg` gives back a canonical text and :func:`parse_gcg` of that text gives the
same record. Line forms understood (``RACK`` may be empty; ``?`` is a blank on a rack, a lower-case letter a
placed blank)::

    #player1 nick Full Name      (#player1 .. #player4)
    #variant lexio               (lexio | classic; absent: the caller's default)
    #note free text              (continuation lines that start with neither '#' nor '>' belong to it)
    #anything else               (kept as a pragma)
    >nick: RACK 8D WORD +S T     placement: row then column = across, column then row = down;
                                 '.' (or the letter itself) is a tile already on the board
    >nick: RACK - +0 T           pass
    >nick: RACK -ABC +0 T        swap (``-3``: three tiles, letters not shown)
    >nick: RACK -- -S T          phony withdrawn: the player's previous placement leaves the board
    >nick: RACK (challenge) +N T challenge bonus
    >nick: RACK (time) -N T      time penalty
    >nick:  (ABC) +N T           end of game: the tiles left on the others' racks, won
    >nick: ABC (ABC) -N T        end of game: the tiles left on one's own rack, lost
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from engine.board import Board
from engine.errors import BadNotation, LexioError, UnknownVariant
from engine.events import (
    Event,
    GameEnded,
    GameStarted,
    Passed,
    Placed,
    SeatJoined,
    SeatLeft,
    Swapped,
    TableCreated,
    TimedOut,
)
from engine.game import GameState
from engine.moves import Place
from engine.notation import format_move, parse_move
from engine.scoring import analyse
from engine.variants import VARIANTS, get_variant

__all__ = [
    "TIMEOUT_NOTE",
    "GcgItem",
    "GcgMove",
    "GcgNote",
    "GcgPlayer",
    "GcgPragma",
    "GcgRecord",
    "Problem",
    "VerifyReport",
    "format_gcg",
    "format_gcg_move",
    "main",
    "parse_gcg",
    "record_from_events",
    "verify_gcg",
    "write_gcg",
]

MAX_PLAYERS: Final = 4
TIMEOUT_NOTE: Final = "time ran out: the table passed"
"""The note :func:`record_from_events` writes after a pass the table made for a seat out of time."""

MoveKind = Literal["place", "pass", "swap", "withdraw", "challenge", "time", "end_rack"]


@dataclass(frozen=True)
class GcgPlayer:
    """``#playerN nick name``: ``nick`` is what move lines use (no spaces, no colon)."""

    number: int
    nick: str
    name: str


@dataclass(frozen=True)
class GcgPragma:
    """Any ``#key value`` line other than a note (players and the variant included, to keep their place)."""

    key: str
    value: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class GcgNote:
    """``#note text``; ``text`` keeps continuation lines joined by newlines (a continuation line is never
    empty and never starts with ``#`` or ``>``, else it would read back as something else)."""

    text: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class GcgMove:
    """One ``>nick: ...`` line.

    ``kind`` says which form it is; ``position``/``word`` are set for a placement (``position`` as
    written, e.g. ``"8D"`` across or ``"D8"`` down; ``word`` with ``.`` and lower-case blanks as written),
    ``tiles`` for a swap (letters, or a count written as digits) and for an end-of-game rack line.
    ``score`` is the signed change the line records, ``total`` the player's running total after it.
    """

    kind: MoveKind
    nick: str
    rack: str
    score: int
    total: int
    position: str = ""
    word: str = ""
    tiles: str = ""
    line: int = field(default=0, compare=False)


GcgItem = GcgPragma | GcgNote | GcgMove


@dataclass(frozen=True)
class GcgRecord:
    """A parsed game record: its items in file order, plus the players and variant they declare."""

    items: tuple[GcgItem, ...]
    players: tuple[GcgPlayer, ...]
    variant: str | None

    @property
    def moves(self) -> tuple[GcgMove, ...]:
        return tuple(item for item in self.items if isinstance(item, GcgMove))

    def player(self, nick: str) -> GcgPlayer | None:
        for p in self.players:
            if p.nick == nick:
                return p
        return None


# -- parsing ----------------------------------------------------------------------------------------------
_MOVE_RE: Final = re.compile(r"^>([^:\s]+):(.*)$")
_SCORE_RE: Final = re.compile(r"^[+-]\d+$")
_TOTAL_RE: Final = re.compile(r"^-?\d+$")
_RACK_RE: Final = re.compile(r"^[A-Za-z?]*$")
_ACROSS_RE: Final = re.compile(r"^(\d{1,2})([A-Za-z])$")
_DOWN_RE: Final = re.compile(r"^([A-Za-z])(\d{1,2})$")
_WORD_RE: Final = re.compile(r"^[A-Za-z.()]+$")
_SWAP_RE: Final = re.compile(r"^-([A-Za-z?]+|\d+)$")
_TILES_RE: Final = re.compile(r"^\(([A-Za-z?]*)\)$")
_PLAYER_RE: Final = re.compile(r"^player([1-9])$")


def _bad(line: int, reason: str, text: str) -> BadNotation:
    return BadNotation(f"GCG line {line}: {reason}: {text!r}", line=line, text=text, reason=reason)


def parse_gcg(text: str) -> GcgRecord:
    """Parse a GCG record (a str: decode the bytes as UTF-8 first).

    Raises :class:`engine.errors.BadNotation` (params ``line``, ``text``, ``reason``) for a line that fits no
    form, a player number outside 1-4 or declared twice, or two ``#variant`` pragmas that disagree.
    Scores are not checked here: see :func:`verify_gcg`.
    """
    items: list[GcgItem] = []
    players: dict[int, GcgPlayer] = {}
    variant: str | None = None
    lines = text.splitlines()
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition(" ")
            value = value.strip()
            if key == "note":
                items.append(GcgNote(value, number))
                continue
            player = _PLAYER_RE.match(key)
            if player:
                index = int(player.group(1))
                if index > MAX_PLAYERS:
                    raise _bad(number, f"at most {MAX_PLAYERS} players", line)
                if index in players:
                    raise _bad(number, f"player {index} declared twice", line)
                nick, _, name = value.partition(" ")
                if not nick:
                    raise _bad(number, "player without a nick", line)
                players[index] = GcgPlayer(index, nick, name.strip())
            elif key == "variant":
                if not value or (variant is not None and variant != value):
                    raise _bad(number, "bad or conflicting #variant", line)
                variant = value
            items.append(GcgPragma(key, value, number))
            continue
        if line.startswith(">"):
            items.append(_parse_move(line, number))
            continue
        # Quackle writes long notes over several lines: a bare line continues the note before it.
        if items and isinstance(items[-1], GcgNote):
            prev = items[-1]
            # Kept with its indent: an indented '#' line must stay part of the note when written back.
            items[-1] = GcgNote(prev.text + "\n" + line, prev.line)
            continue
        raise _bad(number, "not a pragma, a note or a move", line)
    ordered = tuple(players[i] for i in sorted(players))
    nicks = [p.nick for p in ordered]
    if len(set(nicks)) != len(nicks):
        raise _bad(0, "two players share a nick", " ".join(nicks))
    return GcgRecord(tuple(items), ordered, variant)


def _parse_move(line: str, number: int) -> GcgMove:
    match = _MOVE_RE.match(line)
    if not match:
        raise _bad(number, "bad move line", line)
    nick = match.group(1)
    tokens = match.group(2).split()
    if len(tokens) < 3:
        raise _bad(number, "a move line needs at least a move, a score and a total", line)
    score_text, total_text = tokens[-2], tokens[-1]
    if not _SCORE_RE.match(score_text) or not _TOTAL_RE.match(total_text):
        raise _bad(number, "bad score or total", line)
    score, total = int(score_text), int(total_text)
    body = tokens[:-2]
    # A placement is the only form with two tokens after the rack; the rack itself may be absent.
    if len(body) >= 2 and (_ACROSS_RE.match(body[-2]) or _DOWN_RE.match(body[-2])):
        rack = body[0] if len(body) == 3 else ""
        if len(body) > 3 or not _WORD_RE.match(body[-1]):
            raise _bad(number, "bad placement", line)
        position = body[-2].upper()
        rack = _rack(rack, number, line)
        return GcgMove("place", nick, rack, score, total, position, body[-1], line=number)
    if len(body) > 2:
        raise _bad(number, "unknown move form", line)
    rack = body[0] if len(body) == 2 else ""
    move = body[-1]
    kind: MoveKind
    tiles = ""
    if move == "-":
        kind = "pass"
    elif move == "--":
        kind = "withdraw"
    elif move == "(challenge)":
        kind = "challenge"
    elif move == "(time)":
        kind = "time"
    elif _SWAP_RE.match(move):
        kind, tiles = "swap", move[1:].upper()
    elif _TILES_RE.match(move):
        kind, tiles = "end_rack", move[1:-1].upper()
    elif len(body) == 1 and _RACK_RE.match(move):
        raise _bad(number, "a rack with no move", line)
    else:
        raise _bad(number, "unknown move form", line)
    return GcgMove(kind, nick, _rack(rack, number, line), score, total, tiles=tiles, line=number)


def _rack(rack: str, number: int, line: str) -> str:
    if not _RACK_RE.match(rack):
        raise _bad(number, "bad rack", line)
    return rack.upper()


# -- writing ----------------------------------------------------------------------------------------------
def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def format_gcg_move(move: GcgMove) -> str:
    """The canonical text of one move line (no newline)."""
    if move.kind == "place":
        body = f"{move.position} {move.word}"
    elif move.kind == "pass":
        body = "-"
    elif move.kind == "swap":
        body = f"-{move.tiles}"
    elif move.kind == "withdraw":
        body = "--"
    elif move.kind in ("challenge", "time"):
        body = f"({move.kind})"
    else:
        body = f"({move.tiles})"
    return f">{move.nick}: {move.rack} {body} {_signed(move.score)} {move.total}"


def format_gcg(record: GcgRecord) -> str:
    """The canonical GCG text of a record: one item per line, ``\\n`` line ends, a final newline.

    ``parse_gcg(format_gcg(r)) == r`` for any record ``r`` that :func:`parse_gcg` returned.
    """
    out: list[str] = []
    for item in record.items:
        if isinstance(item, GcgMove):
            out.append(format_gcg_move(item))
        elif isinstance(item, GcgNote):
            first, *rest = item.text.split("\n")
            out.append(f"#note {first}".rstrip())
            out.extend(rest)
        else:
            out.append(f"#{item.key} {item.value}".rstrip())
    return "".join(line + "\n" for line in out)


# -- from the engine's journal ----------------------------------------------------------------------------
_UNSAFE_NAME: Final = re.compile(r"[\x00-\x1f\x7f]+")


def _nicks(names: Sequence[str]) -> list[str]:
    """GCG nicks for seat names: no spaces nor colons, unique (a clash gets the seat number appended)."""
    out: list[str] = []
    for seat, name in enumerate(names):
        nick = re.sub(r"\s+", "_", _UNSAFE_NAME.sub("", name).strip()).replace(":", "") or f"player{seat + 1}"
        while nick in out:
            nick = f"{nick}_{seat + 1}"
        out.append(nick)
    return out


def record_from_events(events: Iterable[Event], *, reveal: bool = False) -> GcgRecord:
    """The GCG record of a table's journal (finished or running).

    With ``reveal=False`` (the public record: what any seat may see, the default) a placement's rack field
    holds only the tiles it played, a swap shows only its count (``-3``) and a pass no rack; the racks
    left at the end of a game are shown, as the rules turn them face up. With ``reveal=True`` every move
    carries the player's whole rack before it and swaps name their tiles.

    Written per event: ``Placed`` a placement line (notation of :func:`engine.format_move`), ``Swapped``,
    ``Passed`` and ``TimedOut`` (a pass with a ``#note``), ``GameEnded`` one ``RACK (RACK) -N`` line per
    seat left holding tiles, then ``(TILES) +N`` for the seat that went out. ``Rejected`` plays are private
    to their seat and not written. Unchecked: the events must be a journal the engine produced (raises
    whatever the engine raises otherwise).
    """
    items: list[GcgItem] = [GcgPragma("character-encoding", "UTF-8")]
    variant = "lexio"
    names: list[str] = []
    nicks: list[str] = []
    racks: list[str] = []
    totals: list[int] = []
    board: Board | None = None
    for event in events:
        if isinstance(event, TableCreated):
            variant = event.variant
        elif isinstance(event, SeatJoined):
            names.append(event.name)
        elif isinstance(event, SeatLeft):
            del names[event.seat]
        elif isinstance(event, GameStarted):
            nicks = _nicks(names)
            racks = list(event.racks)
            totals = [0] * len(names)
            board = Board.empty(variant)
            items.append(GcgPragma("variant", variant))
            for seat, (nick, name) in enumerate(zip(nicks, names, strict=True)):
                items.append(GcgPragma(f"player{seat + 1}", f"{nick} {_UNSAFE_NAME.sub(' ', name)}".strip()))
        elif isinstance(event, Placed) and board is not None:
            place = Place(event.tiles)
            position, word = format_move(place, board).split(" ")
            board = board.with_tiles(event.tiles)
            totals[event.seat] += event.score
            rack = racks[event.seat] if reveal else place.rack_letters
            nick = nicks[event.seat]
            items.append(GcgMove("place", nick, rack, event.score, totals[event.seat], position, word))
            racks[event.seat] = event.rack
        elif isinstance(event, Swapped):
            rack, tiles = (racks[event.seat], event.returned) if reveal else ("", str(len(event.returned)))
            items.append(GcgMove("swap", nicks[event.seat], rack, 0, totals[event.seat], tiles=tiles))
            racks[event.seat] = event.rack
        elif isinstance(event, Passed | TimedOut):
            rack = racks[event.seat] if reveal else ""
            items.append(GcgMove("pass", nicks[event.seat], rack, 0, totals[event.seat]))
            if isinstance(event, TimedOut):
                items.append(GcgNote(TIMEOUT_NOTE))
        elif isinstance(event, GameEnded):
            items.extend(_end_lines(event, nicks, totals))
    return GcgRecord(tuple(items), _players(items), variant if nicks else None)


def write_gcg(state: GameState, *, reveal: bool = False) -> str:
    """The GCG text of a table (running or finished): :func:`record_from_events` of its journal, formatted.

    The default is the public record any seat or spectator may read (racks and swapped tiles hidden until
    the end); ``reveal=True`` writes every rack. Unchecked like :func:`record_from_events`.
    """
    return format_gcg(record_from_events(state.events, reveal=reveal))


def _end_lines(event: GameEnded, nicks: Sequence[str], totals: list[int]) -> list[GcgItem]:
    lines: list[GcgItem] = []
    gains: list[int] = []
    for seat, (rack, adjustment) in enumerate(zip(event.racks, event.adjustments, strict=True)):
        if adjustment > 0:
            gains.append(seat)
        elif rack:
            totals[seat] += adjustment
            lines.append(GcgMove("end_rack", nicks[seat], rack, adjustment, totals[seat], tiles=rack))
    for seat in gains:
        gain = event.adjustments[seat]
        totals[seat] += gain
        others = "".join(r for s, r in enumerate(event.racks) if s != seat)
        lines.append(GcgMove("end_rack", nicks[seat], "", gain, totals[seat], tiles=others))
    reason = "a player went out" if event.reason == "out" else "two rounds without a placement"
    final = ", ".join(f"{nicks[s]} {score}" for s, score in enumerate(event.scores))
    winners = " and ".join(nicks[s] for s in event.winners)
    lines.append(GcgNote(f"game over ({reason}): {final}; won by {winners}"))
    return lines


def _players(items: Sequence[GcgItem]) -> tuple[GcgPlayer, ...]:
    players: list[GcgPlayer] = []
    for item in items:
        match = isinstance(item, GcgPragma) and _PLAYER_RE.match(item.key)
        if isinstance(item, GcgPragma) and match:
            nick, _, name = item.value.partition(" ")
            players.append(GcgPlayer(int(match.group(1)), nick, name))
    return tuple(players)


# -- verifying --------------------------------------------------------------------------------------------
Lexicon = Callable[[Sequence[str]], Sequence[str]]


@dataclass(frozen=True)
class Problem:
    """One finding of :func:`verify_gcg`: the record's line number (0: the record as a whole) and why."""

    line: int
    message: str


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify_gcg` found. ``totals`` are the recomputed final totals, in player order."""

    variant: str
    placements: int
    moves: int
    problems: tuple[Problem, ...]
    totals: tuple[tuple[str, int], ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class _Placed:
    nick: str
    board: Board
    score: int


def verify_gcg(
    record: GcgRecord, *, variant: str | None = None, lexicon: Lexicon | None = None
) -> VerifyReport:
    """Replay ``record`` on an empty board, recompute every score and check every running total.

    ``variant`` overrides the record's ``#variant`` (a disagreement is reported); with neither, ``lexio``.
    With a ``lexicon`` (a callable returning the unknown words among those given) every word formed is
    checked too. Per line, the recorded change is compared with the recomputed one, and the recorded total
    must equal the recomputed change added to the player's previous total, as recorded or as recomputed (so
    one slip is reported on its own line and does not cascade to the later ones). Challenge bonuses and
    time penalties cannot be recomputed and are taken as recorded.
    End-of-game rack lines are worth the tiles' values; in a two-player ``classic`` record without
    ``RACK (RACK) -N`` lines, the player going out gets twice the opponent's rack (the usual convention).

    Raises :class:`engine.errors.UnknownVariant` if the ``variant`` argument names no variant; every fault
    of the record (an unknown ``#variant`` included) is a :class:`Problem` in the report, never an exception.
    """
    problems: list[Problem] = []
    name = variant or record.variant or "lexio"
    pragma = next((i.line for i in record.items if isinstance(i, GcgPragma) and i.key == "variant"), 0)
    if variant and record.variant and variant != record.variant:
        problems.append(Problem(pragma, f"record says #variant {record.variant}, verified as {variant}"))
    try:
        rules = get_variant(name)
    except UnknownVariant as err:
        if variant:
            raise
        return VerifyReport(name, 0, len(record.moves), (Problem(pragma, err.message),), ())
    board = Board.empty(rules)
    nicks = [p.nick for p in record.players]
    recorded: dict[str, int] = dict.fromkeys(nicks, 0)
    computed: dict[str, int] = dict.fromkeys(nicks, 0)
    own_rack_lines = any(m.kind == "end_rack" and m.rack for m in record.moves)
    out_multiplier = 2 if name == "classic" and len(nicks) == 2 and not own_rack_lines else 1
    last: _Placed | None = None
    placements = 0
    for move in record.moves:
        if move.nick not in recorded:
            if record.players:
                problems.append(Problem(move.line, f"{move.nick!r} is not a declared player"))
            elif len(recorded) >= MAX_PLAYERS:
                problems.append(Problem(move.line, f"more than {MAX_PLAYERS} players"))
            recorded[move.nick] = computed[move.nick] = 0
        delta: int
        what: str = move.kind
        if move.kind == "place":
            placements += 1
            what = f"score of {move.position} {move.word}"
            delta, after = _replay_place(board, move, lexicon, problems)
            last = _Placed(move.nick, board, delta)
            board = after
        elif move.kind == "withdraw":
            if last is None or last.nick != move.nick:
                problems.append(Problem(move.line, f"{move.nick} has no placement to withdraw"))
                delta = move.score
            else:
                delta, board, last = -last.score, last.board, None
            what = "withdrawn score"
        elif move.kind in ("pass", "swap"):
            delta = 0
            what = f"score of a {move.kind}"
        elif move.kind in ("challenge", "time"):
            delta = move.score
        else:
            value = sum(rules.value(t) for t in move.tiles)
            delta = -value if move.rack else value * out_multiplier
            what = f"rack ({move.tiles})"
        if move.score != delta:
            problems.append(Problem(move.line, f"recorded {move.score}, computed {delta} ({what})"))
        # A total is accepted if it follows from the previous total either as recorded or as recomputed:
        # a single slip is then reported once, not on every later line of that player.
        truth = computed[move.nick] + delta
        if move.total not in (truth, recorded[move.nick] + delta):
            problems.append(
                Problem(move.line, f"recorded {move.total}, computed {truth} (running total of {move.nick})")
            )
        recorded[move.nick] = move.total
        computed[move.nick] = truth
    return VerifyReport(
        name, placements, len(record.moves), tuple(problems), tuple((n, computed[n]) for n in computed)
    )


def _replay_place(
    board: Board, move: GcgMove, lexicon: Lexicon | None, problems: list[Problem]
) -> tuple[int, Board]:
    """Score one placement; returns (computed score, board after). Faults go to ``problems``."""
    notation = f"{move.position} {move.word}"
    try:
        parsed = parse_move(notation, board)
    except LexioError as err:
        problems.append(Problem(move.line, f"cannot read {notation}: {err.message}"))
        return move.score, board
    if not isinstance(parsed, Place):
        problems.append(Problem(move.line, f"{notation} is not a placement"))
        return move.score, board
    tiles = parsed.tiles
    if move.rack and not _on_rack(parsed.rack_letters, move.rack):
        letters = parsed.rack_letters
        problems.append(Problem(move.line, f"tiles {letters} of {notation} not on rack {move.rack}"))
    try:
        breakdown = analyse(board, tiles)
    except LexioError as err:
        problems.append(Problem(move.line, f"illegal placement {notation}: {err.code}: {err.message}"))
        try:
            return move.score, board.with_tiles(tiles)
        except LexioError:
            return move.score, board
    if lexicon is not None:
        unknown = list(lexicon([w.word for w in breakdown.words]))
        if unknown:
            problems.append(Problem(move.line, f"unknown word(s) {', '.join(unknown)} in {notation}"))
    return breakdown.total, board.with_tiles(tiles)


def _on_rack(letters: str, rack: str) -> bool:
    pool = list(rack)
    for letter in letters:
        if letter not in pool:
            return False
        pool.remove(letter)
    return True


# -- command line -----------------------------------------------------------------------------------------
def _word_list(data: bytes) -> Lexicon:
    """A lexicon from a plain word list (UTF-8, gzip allowed, one word per line, ``#`` lines skipped)."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    words = frozenset(
        _normalise(line) for line in data.decode("utf-8").splitlines() if line.strip() and line[0] != "#"
    )

    def unknown(candidates: Sequence[str]) -> list[str]:
        return [w for w in candidates if _normalise(w) not in words]

    return unknown


def _normalise(word: str) -> str:
    # Same spelling rule as the table's list: accents dropped, upper case ("été" is played E, T, E).
    decomposed = unicodedata.normalize("NFD", word.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.gcg verify FILE... [--variant lexio|classic] [--lexicon PATH]``.

    Prints ``FILE:LINE: recorded X, computed Y (what)`` for each mismatch (and ``FILE:LINE: reason`` for any
    other fault: unreadable file, bad line, illegal placement, unknown word) and returns 1; otherwise prints a
    summary and returns 0. Usage errors exit 2 (argparse).
    """
    parser = argparse.ArgumentParser(prog="python -m engine.gcg", description="Check GCG game records.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify", help="replay records and check every score and running total")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=None,
        help="board and tiles (default: the record's #variant, else lexio)",
    )
    check.add_argument(
        "--lexicon",
        metavar="PATH",
        default=None,
        help="plain word list, one word per line: also report unknown words",
    )
    args = parser.parse_args(argv)
    lexicon: Lexicon | None = None
    if args.lexicon is not None:
        try:
            with open(args.lexicon, "rb") as fh:
                lexicon = _word_list(fh.read())
        except (OSError, UnicodeDecodeError) as err:
            print(f"{args.lexicon}: cannot read word list: {err}", file=sys.stderr)
            return 1
    faults = placements = moves = 0
    for path in args.files:
        findings = _verify_file(path, args.variant, lexicon)
        if isinstance(findings, VerifyReport):
            placements += findings.placements
            moves += findings.moves
            problems: Iterable[Problem] = findings.problems
        else:
            problems = [findings]
        for problem in problems:
            faults += 1
            print(f"{path}:{problem.line}: {problem.message}")
    files = len(args.files)
    print(
        f"verified {files} file{'s' * (files != 1)}: {moves} moves, {placements} placements, "
        f"{faults} problem{'s' * (faults != 1)}"
    )
    return 1 if faults else 0


def _verify_file(path: str, variant: str | None, lexicon: Lexicon | None) -> VerifyReport | Problem:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as err:
        return Problem(0, f"cannot read: {err}")
    try:
        return verify_gcg(parse_gcg(text), variant=variant, lexicon=lexicon)
    except LexioError as err:
        return Problem(int(err.params.get("line", 0)), err.message)


if __name__ == "__main__":
    sys.exit(main())
