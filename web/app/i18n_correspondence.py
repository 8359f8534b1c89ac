"""UI strings of correspondence play (issue 31: turns in days, "my games" with the time left and the last
move, the count of games waiting in the title), merged into :data:`app.i18n.STRINGS`: code -> (French,
English)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # the create form and every list that says a turn time
    "days_short": ("{n} jour(s)", "{n} day(s)"),
    "turn_speed_group": ("Partie en direct", "Live game"),
    "turn_days_group": ("Par correspondance (joueurs inscrits)", "Correspondence (registered players)"),
    # "my games": the time left, in words
    "hours_word": ("{n} heure(s)", "{n} hour(s)"),
    "minutes_word": ("{n} minute(s)", "{n} minute(s)"),
    "seconds_word": ("{n} seconde(s)", "{n} second(s)"),
    "left_two": ("Il reste {a} et {b}", "{a} and {b} left"),
    "left_one": ("Il reste {a}", "{a} left"),
    "left_none": ("Temps écoulé", "Time is up"),
    # "my games": the last move, in words
    "last_place": ("Dernier coup : {name}, {word} (+{score})", "Last move: {name}, {word} (+{score})"),
    "last_pass": ("Dernier coup : {name} a passé", "Last move: {name} passed"),
    "last_swap": ("Dernier coup : {name} a échangé {n} jeton(s)", "Last move: {name} swapped {n} tile(s)"),
    "last_timeout": (
        "Dernier coup : temps écoulé pour {name}, la table a passé",
        "Last move: {name}'s time ran out, the table passed",
    ),
    "last_none": ("Pas encore de coup", "No move yet"),
    "my_waiting_count": ("À vous dans {n} partie(s)", "Your turn in {n} game(s)"),
    "turn_time_each": ("{time} par coup", "{time} a move"),
    # the page title when games wait for the player
    "title_games_waiting": ("({n}) Lexio — {n} partie(s) à vous", "({n}) Lexio — your turn in {n} game(s)"),
    # refusals (docs/protocol.md)
    "bad_turn_seconds": (
        "Temps par tour : 30 à 600 s, ou 1, 2, 3 ou 7 jours.",
        "Time per turn: 30 to 600 s, or 1, 2, 3 or 7 days.",
    ),
    "too_many_games": (
        "Vous jouez déjà 50 parties par correspondance : terminez-en une avant d'en commencer une autre.",
        "You already play 50 correspondence games: finish one before starting another.",
    ),
}
