"""app.markup against the standard library it replaces on the first path (issue 28): the same output as
``html.escape``, ``urllib.parse.quote(s, safe="")``, ``unquote`` and ``urlsplit(href).query`` on generated
text (CPython has them; the browser's first path no longer imports them)."""

from __future__ import annotations

import html
from urllib.parse import quote, unquote, urlsplit

from app import markup
from hypothesis import example, given, settings
from hypothesis import strategies as st

# Text with many of the characters that matter: markup, quotes, percent signs, hex digits, URL delimiters,
# non-ASCII (accents, emoji, CJK), controls; and lone surrogates are left out (neither side can encode them).
_ALPHABET = st.one_of(
    st.sampled_from("&<>\"'%#?/=+:;@[]. -_~\t\r\n0123456789abcdefABCDEFxyzéÉ€😀中\x00\x7f\x80\xff"),
    st.characters(exclude_categories=("Cs",)),
)
TEXT = st.text(_ALPHABET, max_size=60)


@settings(max_examples=500)
@given(TEXT)
@example('&amp; <b>"\'"</b>')
def test_escape_is_html_escape(s: str) -> None:
    assert markup.escape(s) == html.escape(s)
    assert markup.escape(s, quote=True) == html.escape(s, quote=True)
    assert markup.escape(s, quote=False) == html.escape(s, quote=False)


@settings(max_examples=500)
@given(TEXT)
@example("Zoé/Ana ~ 100%")
def test_quote_component_is_quote_with_nothing_safe(s: str) -> None:
    assert markup.quote_component(s) == quote(s, safe="")


@settings(max_examples=500)
@given(TEXT)
@example("%C3%A9t%C3%A9")
@example("%C3é%A9")
@example("%zz%4")
@example("%E2%82")
def test_unquote_is_unquote(s: str) -> None:
    assert markup.unquote(s) == unquote(s)


@settings(max_examples=300)
@given(TEXT)
def test_unquote_undoes_quote_component(s: str) -> None:
    assert markup.unquote(markup.quote_component(s)) == s


_HREF_PART = st.text(st.sampled_from("abcAZ09/%?#=&+.:-_ é\t\n"), max_size=20)


@settings(max_examples=500)
@given(
    st.sampled_from(["", "/", "/lexio/", "http://lexio.test/", "https://a.b:8080/x/", "//host/"]),
    _HREF_PART,
    _HREF_PART,
)
@example("/", "u/Al%20ice?vs=Bob", "")
@example("http://lexio.test/", "u/A", "?vs=B#top?x")
def test_url_query_is_urlsplit_query(base: str, path: str, rest: str) -> None:
    href = base + path + rest
    try:
        expected = urlsplit(href).query
    except ValueError:  # a malformed host: never one of the app's links
        return
    assert markup.url_query(href) == expected


def test_markup_imports_nothing() -> None:
    """Its point: the first path imports neither html nor urllib.parse through it."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(markup.__file__).read_text(encoding="utf-8"))
    imported = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert [getattr(n, "module", None) for n in imported] == ["__future__"]
