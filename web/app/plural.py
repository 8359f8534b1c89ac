"""Plural marks in UI strings: "{n} free seat(s)", "{tries} try(ies)", "place(s) libre(s)".

A string with a count among its parameters (``n`` or ``tries``, an int) reads as a sentence would: singular
for 1 (French: also 0), plural otherwise. Without a count the marks stay (e.g. a list of words)."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["resolve"]

_MARK = re.compile(r"(\w*?)(y?)\((s|x|ies)\)")
COUNTS = ("n", "tries")


def resolve(text: str, params: Mapping[str, object], lang: str) -> str:
    """``text`` with its plural marks settled by the count in ``params`` (unchanged without one)."""
    if "(" not in text:
        return text
    count = next((params[k] for k in COUNTS if isinstance(params.get(k), int)), None)
    if not isinstance(count, int) or isinstance(count, bool):
        return text
    one = count == 1 or (lang == "fr" and count == 0)

    def settle(m: re.Match[str]) -> str:
        word, y, mark = m.groups()
        if mark == "ies":  # try(ies): try / tries
            return word + (y if one else "ies")
        return word + y + ("" if one else mark)

    return _MARK.sub(settle, text)
