"""A profile's ratings (issue 30): the number in each speed class played, and the rating over the games as
an SVG chart per class with the same points in a data table (a screen reader reads the table; the chart is
``aria-hidden``). The line carries a marker at each game and provisional points are hollow, so nothing is said
by colour alone."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.i18n import Translator
from app.markup import escape
from app.ratings_view import SPEEDS, SeatRating, rating_html, speed_name

WIDTH, HEIGHT, PAD = 320, 120, 24


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True, slots=True)
class Point:
    at_ms: int
    rating: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class ClassRating:
    rating: int
    provisional: bool
    games: int


def read(data: Mapping[str, object]) -> tuple[dict[str, ClassRating], dict[str, list[Point]]]:
    """``GET /api/users/{nickname}``'s ``ratings`` and ``rating_history`` (malformed parts left out)."""
    ratings: dict[str, ClassRating] = {}
    raw = data.get("ratings")
    for speed, r in raw.items() if isinstance(raw, dict) else ():
        if isinstance(r, dict) and isinstance(r.get("rating"), int):
            ratings[str(speed)] = ClassRating(
                int(r["rating"]), bool(r.get("provisional")), int(r.get("games") or 0)
            )
    history: dict[str, list[Point]] = {}
    raw_history = data.get("rating_history")
    for p in raw_history if isinstance(raw_history, list) else ():
        if isinstance(p, dict) and isinstance(p.get("rating"), int) and isinstance(p.get("at"), int):
            history.setdefault(str(p.get("speed")), []).append(
                Point(int(p["at"]), int(p["rating"]), bool(p.get("provisional")))
            )
    return ratings, history


def _date(ms: int, tr: Translator) -> str:
    return time.strftime("%d/%m/%Y" if tr.lang == "fr" else "%Y-%m-%d", time.gmtime(ms / 1000))


def chart_svg(points: Sequence[Point]) -> str:
    """The polyline of ``points`` (oldest first) scaled into the box, with a marker per game: filled when
    settled, hollow while provisional. Decorative: the data table beside it says the same."""
    if not points:
        return ""
    lo, hi = min(p.rating for p in points), max(p.rating for p in points)
    if hi - lo < 50:  # a flat stretch (or one game) sits mid-height in a 50-point band
        mid = (hi + lo) // 2
        lo, hi = mid - 25, mid + 25
    span = hi - lo
    n = len(points)

    def xy(i: int, p: Point) -> tuple[float, float]:
        x = PAD + (WIDTH - 2 * PAD) * (i / (n - 1) if n > 1 else 0.5)
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (p.rating - lo) / span
        return round(x, 1), round(y, 1)

    coords = [xy(i, p) for i, p in enumerate(points)]
    line = " ".join(f"{x},{y}" for x, y in coords)
    marks = "".join(
        f'<circle cx="{x}" cy="{y}" r="3.5" class="{"prov" if p.provisional else "set"}"/>'
        for (x, y), p in zip(coords, points, strict=True)
    )
    return (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" aria-hidden="true" '
        'focusable="false" data-testid="rating-chart">'
        f'<text x="2" y="{PAD - 6}" class="axis">{hi}</text>'
        f'<text x="2" y="{HEIGHT - 4}" class="axis">{lo}</text>'
        f'<polyline points="{line}" class="line"/>{marks}</svg>'
    )


def section(
    ratings: Mapping[str, ClassRating], history: Mapping[str, Sequence[Point]], tr: Translator
) -> str:
    """The profile's "Ratings" card: each class's number and games, then a chart and a table per class."""
    head = f'<h2 id="ratings-title">{_e(tr.t("ratings_title"))}</h2>'
    if not ratings:
        return (
            '<section class="card" aria-labelledby="ratings-title" data-testid="ratings">'
            f'{head}<p class="muted">{_e(tr.t("ratings_none"))}</p></section>'
        )
    items = "".join(
        f'<div><dt>{_e(speed_name(tr, s).capitalize())}</dt><dd data-speed="{s}">'
        f"{rating_html(tr, SeatRating(ratings[s].rating, ratings[s].provisional)).strip()} "
        f"<small>{_e(tr.t('ratings_games', n=ratings[s].games))}</small></dd></div>"
        for s in SPEEDS
        if s in ratings
    )
    charts = []
    for s in SPEEDS:
        points = list(history.get(s, ()))
        if not points:
            continue
        name = speed_name(tr, s)
        caption = _e(tr.t("chart_caption", speed=name))
        rows = "".join(
            f'<tr><td>{_e(_date(p.at_ms, tr))}</td><td class="num">{p.rating}'
            f"{'?' if p.provisional else ''}</td></tr>"
            for p in points
        )
        charts.append(
            f'<figure class="chart" data-speed="{s}"><figcaption>{_e(tr.t("chart_title", speed=name))}'
            f"</figcaption>{chart_svg(points)}"
            f'<div class="chart-data" tabindex="0" role="region" aria-label="{caption}">'
            f'<table data-testid="rating-table"><caption class="sr">{caption}</caption>'
            f'<thead><tr><th scope="col">{_e(tr.t("chart_date"))}</th>'
            f'<th scope="col" class="num">{_e(tr.t("chart_rating"))}</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div></figure>"
        )
    return (
        '<section class="card" aria-labelledby="ratings-title" data-testid="ratings">'
        f'{head}<dl class="stats">{items}</dl>{"".join(charts)}</section>'
    )
