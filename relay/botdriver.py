"""The seam between the referee and computer players (issue 7 writes ``relay/bots/``).

The relay asks a :class:`BotDriver` for a move when a bot seat is on turn, runs it in a thread executor
after a short human-like pause, and submits the move through the same ``engine.decide`` path as any player
(falling back to a pass if the driver raises or the move is refused).

The default driver is ``relay.bots.driver(lexicon)`` (or ``relay.bots.driver()`` if it takes no argument),
imported lazily; without that module ``add_bot`` answers ``bots_unavailable``.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import random
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger("lexio.relay")


@runtime_checkable
class BotDriver(Protocol):
    def choose(self, view: dict[str, Any], level: str, rng: random.Random) -> Any:
        """Return an engine Move (Place/Swap/Pass) for the seat whose ``view`` (engine.view) is given.

        Runs in a worker thread; may raise anything (the relay then passes for the bot).
        """
        ...


def load_default_driver(lexicon: object) -> BotDriver | None:
    """``relay.bots.driver(...)`` if that module exists and builds a driver, else None (logged)."""
    try:
        module = importlib.import_module("relay.bots")
    except ImportError:
        return None
    factory = getattr(module, "driver", None)
    if factory is None:
        return None
    try:
        takes_args = bool(inspect.signature(factory).parameters)
        made = factory(lexicon) if takes_args else factory()
    except Exception:
        log.exception("relay.bots.driver() failed; bots disabled")
        return None
    return made if isinstance(made, BotDriver) else None
