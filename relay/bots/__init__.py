"""Computer opponents: a move generator over the word list and the relay's bot driver.

- :mod:`relay.bots.graph`: a packed minimal DAWG of the word list (arrays, cached on disk);
- :mod:`relay.bots.movegen`: every valid placement for a rack (Appel & Jacobson: blanks, cross-checks);
- :mod:`relay.bots.levels`: the five levels as data (beginner, easy, medium, strong, expert);
- :mod:`relay.bots.equity`, :mod:`relay.bots.leaves`: score + leave judgement, exchanges; the shipped
  ``leaves.json`` comes from :mod:`relay.bots.train_leaves` (seeded self-play, :mod:`relay.bots.selfplay`);
- :mod:`relay.bots.endgame`: the two-player endgame search and the pre-endgame out check;
- :mod:`relay.bots.vocab`: the common-word vocabulary of the lower levels (``common_fr.txt.gz``);
- :mod:`relay.bots.analysis`: the post-game analysis of a seat's moves;
- :mod:`relay.bots.player`: the level policies and :class:`MoveGenDriver`;
- :mod:`relay.bots.pool`: the same driver in worker processes (the relay's default);
- :mod:`relay.bots.strength`: each level's rating, measured offline (``bench/bot_ratings.py``);
- :mod:`harness.botclient`: a scripted WebSocket player for benches and soak tests (imports aiohttp lazily).

The relay loads :func:`driver` lazily (see :mod:`relay.botdriver`). Everything here runs inside the relay: the
word list never leaves the server.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from relay.bots.graph import WordGraph, build_graph, load_graph
from relay.bots.movegen import Candidate, GenerationResult, generate
from relay.bots.player import LEVELS, BotError, MoveGenDriver, Words, swap_choice

if TYPE_CHECKING:
    from relay.bots.pool import ProcessDriver

__all__ = [
    "LEVELS",
    "BotError",
    "Candidate",
    "GenerationResult",
    "MoveGenDriver",
    "WordGraph",
    "build_graph",
    "driver",
    "generate",
    "load_graph",
    "swap_choice",
]


def driver(lexicon: Words = None) -> MoveGenDriver | ProcessDriver:
    """The relay's default bot driver over ``lexicon`` (the relay's :class:`relay.lexicon.WordList`; None:
    the shipped ``"fr"`` list). Cheap: the word graph is built or loaded on first use.

    With ``LEXIO_BOT_PROCESSES`` >= 1 (default 1) the thinking runs in that many worker processes
    (:class:`relay.bots.pool.ProcessDriver`), so it never holds the relay's GIL; 0: in the relay's threads.
    """
    raw = os.environ.get("LEXIO_BOT_PROCESSES", "1").strip()
    processes = int(raw) if raw.isdecimal() else 1
    if processes <= 0:
        return MoveGenDriver(lexicon)
    from relay.bots.pool import ProcessDriver

    return ProcessDriver(lexicon, processes=processes)
