"""Nicknames: 3 to 20 letters, digits, ``-`` or ``_``; unique ignoring case and accents ("Éloïse" and
"eloise" are one name), so that nobody can pass for someone else by an accent."""

from __future__ import annotations

import unicodedata

from relay.accounts.errors import AccountError

MIN_LEN = 3
MAX_LEN = 20


def check_nickname(raw: object) -> str:
    """The nickname as it will be shown (NFC). Raises AccountError ``bad_nickname`` (not a string, too short,
    too long, a character other than a letter, a digit, ``-`` or ``_``)."""
    if not isinstance(raw, str):
        raise AccountError("bad_nickname", "a nickname is a string")
    name = unicodedata.normalize("NFC", raw)
    if not MIN_LEN <= len(name) <= MAX_LEN:
        raise AccountError("bad_nickname", f"a nickname has {MIN_LEN} to {MAX_LEN} characters")
    for ch in name:
        if not (ch.isalnum() or ch in "-_"):
            raise AccountError("bad_nickname", "a nickname has only letters, digits, '-' and '_'")
    return name


def fold(name: str) -> str:
    """The form two nicknames are compared in: without accents, case-folded."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
