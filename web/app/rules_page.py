"""The full rules as a page of the site (``rules.fr.html``, ``rules.en.html``), written by web/build.py from
docs/rules.*.txt (one paragraph a line): the "Règles" / "Rules" link of every screen opens it."""

from __future__ import annotations

from app.i18n import Translator
from app.markup import escape

STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;line-height:1.55;"
    "color:#1d1b16;background:#f4f1ea}a{color:#1d5a3a}h1{font-size:1.6rem}"
)


def rules_page(lang: str, text: str) -> str:
    """A standalone HTML page of the rules in ``lang``; each non-empty line of ``text`` is a paragraph."""
    tr = Translator(lang)
    paragraphs = "".join(f"<p>{escape(line.strip())}</p>" for line in text.splitlines() if line.strip())
    other = "en" if tr.lang == "fr" else "fr"
    return (
        f'<!doctype html><html lang="{tr.lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(tr.t('rules_title'))}</title><style>{STYLE}</style></head><body>"
        f"<main><h1>{escape(tr.t('rules_title'))}</h1>{paragraphs}"
        f'<p><a href="rules.{other}.html" lang="{other}">{escape(Translator(other).t("rules_title"))}</a></p>'
        "</main></body></html>"
    )
