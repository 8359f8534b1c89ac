"""The app's own HTML escaping and URL quoting (issue 28): the few functions it used from ``html`` and
``urllib.parse``, with exactly their semantics for the uses made (tests/web/test_web_markup.py compares them
with the standard library on generated text).

Importing ``html`` imports ``html.entities`` (a 2,000-entry table built at import) and ``urllib.parse``
brings its own weight: both were on the first path for one function each, in the download (their compiled
bytecode is in the bundle, see app.loader) and in the start-up time. This module imports nothing.
"""

from __future__ import annotations

# html.escape's replacements, in its order ("&" first, or the others' ampersands would be escaped twice).
_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
_QUOTES = (('"', "&quot;"), ("'", "&#x27;"))
# urllib.parse.quote's always-safe characters (RFC 3986's unreserved set).
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_QUOTED = tuple(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in range(256))
_HEX = "0123456789ABCDEFabcdef"
_HEX_BYTE = {(a + b).encode(): bytes.fromhex(a + b) for a in _HEX for b in _HEX}


def escape(s: str, quote: bool = True) -> str:
    """``html.escape``: & < > (and " ' when ``quote``) as character references."""
    if "&" not in s and "<" not in s and ">" not in s and (not quote or ('"' not in s and "'" not in s)):
        return s  # most text has none: five searches, no five replacements (a keystroke escapes a few)
    for char, ref in _ESCAPES:
        s = s.replace(char, ref)
    if quote:
        for char, ref in _QUOTES:
            s = s.replace(char, ref)
    return s


def quote_component(s: str) -> str:
    """``urllib.parse.quote(s, safe="")``: one path segment or query value, UTF-8, every byte outside the
    unreserved set as ``%XX`` ("/" included)."""
    return "".join([_QUOTED[b] for b in s.encode("utf-8")])


def _unquote_ascii(run: str) -> str:
    """One run of ASCII characters: its ``%XX`` as bytes (a malformed one kept as it is), decoded as UTF-8
    with invalid sequences replaced."""
    bits = run.encode("ascii").split(b"%")
    out = bytearray(bits[0])
    for item in bits[1:]:
        byte = _HEX_BYTE.get(item[:2])
        if byte is None:
            out += b"%" + item
        else:
            out += byte + item[2:]
    return out.decode("utf-8", "replace")


def unquote(s: str) -> str:
    """``urllib.parse.unquote`` (UTF-8, errors replaced): each run of ASCII characters is unquoted on its
    own, the other characters are kept."""
    if "%" not in s:
        return s
    parts: list[str] = []
    start = 0
    ascii_run = s[0] < "\x80"
    for i, char in enumerate(s):
        if (char < "\x80") != ascii_run:
            parts.append(_unquote_ascii(s[start:i]) if ascii_run else s[start:i])
            start, ascii_run = i, not ascii_run
    parts.append(_unquote_ascii(s[start:]) if ascii_run else s[start:])
    return "".join(parts)


def url_query(href: str) -> str:
    """``urllib.parse.urlsplit(href).query`` for the app's own links: after the first "?", before any "#"
    (tabs and line breaks removed first, as urlsplit does)."""
    for char in "\t\r\n":
        href = href.replace(char, "")
    return href.partition("#")[0].partition("?")[2]
