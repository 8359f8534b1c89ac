"""The ratings' refusals: each has a stable machine code, an HTTP status and a message for people.

Same shape as :class:`relay.accounts.errors.AccountError`: the relay turns ``code`` into the error frame or
the JSON answer, so codes never change once shipped; messages may.

Codes (docs/ratings.md):

* ``unknown_class``: a speed class name that is not one of :class:`relay.ratings.classes.SpeedClass`.
* ``bad_size``: a table size preference that is not ``2``, ``3-4`` or ``any``.
* ``bad_seats``: a rated game or a prediction with fewer than 2 or more than 4 seats, or scores that do not
  match the seats.
* ``already_rated``: the table's end has been rated already (a replayed end must not rate twice).
* ``seek_guest``: a guest asked to be paired for a rated game (ratings belong to accounts).
* ``seek_twice``: a player who already has a seek (waiting or offered) asked for another one.
* ``no_seek``: cancelling a seek the player does not have.
* ``not_offered``: confirming or declining a table the player was not offered (or no longer is).
"""

from __future__ import annotations

from typing import Final

CODES: Final = (
    "unknown_class",
    "bad_size",
    "bad_seats",
    "already_rated",
    "seek_guest",
    "seek_twice",
    "no_seek",
    "not_offered",
)


class RatingError(ValueError):
    """A refused ratings or pairing request. ``code`` is one of :data:`CODES` (stable); ``status`` the HTTP
    status a view answers with."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
