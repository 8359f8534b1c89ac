"""The live preview of the pending placement: the engine's own answer, kept as its typed value.

Each key typed on the board asks the engine what the placement would score (issue 28: "the preview under
1 ms"). The page runs the engine in the same interpreter, so nothing needs the JSON form of
``engine.preview`` here: the placement goes in as :class:`engine.Tile` values, the answer comes back as the
engine's :class:`engine.Breakdown` (its words are hashable named tuples, so the renderer keeps each word's
HTML by the word itself). Converting both ways and reading the dicts back was a third of the preview's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from engine import Board, Breakdown, analyse, preview_board, preview_error

if TYPE_CHECKING:
    from app.board_play import Pending
    from app.payloads import Preview, PreviewError, View


@dataclass(frozen=True, slots=True, eq=False)
class LivePreview:
    """What the pending placement would score (``breakdown``), or why the engine refuses its shape
    (``error``, as ``LexioError.to_dict()`` words it): exactly one of the two is set. Replaced on every
    change, never changed in place: equal only to itself (the renderer's keys compare it by identity,
    which a field-by-field ``==`` through every word and letter would only slow down)."""

    breakdown: Breakdown | None = None
    error: PreviewError | None = None

    @property
    def ok(self) -> bool:
        return self.breakdown is not None

    def squares(self) -> frozenset[str]:
        """Every square of every previewed word (drawn marked on the board)."""
        if self.breakdown is None:
            return frozenset()
        return frozenset([sq for w in self.breakdown.words for sq in w.squares])

    def to_dict(self) -> Preview:
        """``engine.preview``'s JSON form of the same answer."""
        if self.breakdown is not None:
            return {"ok": True, "breakdown": cast("Any", self.breakdown.to_dict())}
        return {"ok": False, "error": self.error or {}}


class BoardKeptPreview:
    """The engine's preview of a placement on a view's board, keeping the board built from the last view: a
    view is replaced, never changed in place, so each key typed on the same turn reuses it
    (``Board.from_json`` of the whole board was a third of the engine's time per key). The same answers as
    ``engine.preview`` (``LivePreview.to_dict()``), for any view and placement; never raises."""

    def __init__(self) -> None:
        self.view: View | None = None
        self.board: Board | None = None

    def __call__(self, view: View, pending: Sequence[Pending]) -> LivePreview:
        try:
            if view is not self.view or self.board is None:
                self.board = preview_board(view)
                self.view = view
            tiles = [p.tile for p in pending]
            return LivePreview(breakdown=analyse(self.board, tiles))
        except Exception as err:  # a preview never throws: the engine words what is wrong
            return LivePreview(error=cast("PreviewError", preview_error(err)))
