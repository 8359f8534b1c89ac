"""UI strings of ratings (issue 30: numbers, classes, leaderboards, the chart), merged into
:data:`app.i18n.STRINGS`: code -> (French, English)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "rating_label": ("Classement", "Rating"),
    "rating_provisional": ("classement provisoire", "provisional rating"),
    "rating_change": ("classement {change}", "rating {change}"),
    "rating_chance": ("{pct} % de chances de gagner", "{pct}% chance to win"),
    "rated_game": ("Partie classée · {speed}", "Rated game · {speed}"),
    "speed_rapide": ("rapide", "rapid"),
    "speed_normal": ("normale", "normal"),
    "speed_lent": ("lente", "slow"),
    "speed_correspondance": ("par correspondance", "correspondence"),
    "rated_checkbox": ("Partie classée (joueurs inscrits seulement)", "Rated game (registered players only)"),
    "rated_hint": (
        "Le classement de chacun bouge avec le résultat. Ni invités ni ordinateur.",
        "Everyone's rating moves with the result. No guests, no computer players.",
    ),
    "rated_accounts_only": (
        "Cette partie est classée : seuls les joueurs inscrits et connectés peuvent s'asseoir.",
        "This game is rated: only signed-in registered players may sit.",
    ),
    "seat_reserved": (
        "Cette table a été formée par « Jouer maintenant » pour d'autres joueurs.",
        "This table was formed by Play now for other players.",
    ),
    # profile
    "ratings_title": ("Classements", "Ratings"),
    "ratings_none": ("Pas encore de partie classée.", "No rated game yet."),
    "ratings_games": ("{n} partie(s) classée(s)", "{n} rated game(s)"),
    "chart_title": ("Classement au fil des parties ({speed})", "Rating over the games ({speed})"),
    "chart_caption": (
        "Classement après chaque partie classée ({speed}), de la plus ancienne à la plus récente",
        "Rating after each rated game ({speed}), oldest first",
    ),
    "chart_date": ("Date", "Date"),
    "chart_rating": ("Classement", "Rating"),
    # leaderboards
    "leaderboard": ("Classements", "Leaderboards"),
    "leaderboard_title": ("Meilleurs joueurs · {speed}", "Top players · {speed}"),
    "leaderboard_rule": (
        "Joueurs inscrits ayant joué une partie classée ces 30 derniers jours, hors classements provisoires.",
        "Registered players with a rated game in the last 30 days, provisional ratings left out.",
    ),
    "leaderboard_rank": ("Rang", "Rank"),
    "leaderboard_player": ("Joueur", "Player"),
    "leaderboard_games": ("Parties", "Games"),
    "leaderboard_empty": ("Personne pour l'instant.", "Nobody yet."),
    "leaderboard_mine": ("Votre place : {rank}e", "Your place: #{rank}"),
    "leaderboard_not_listed": (
        "Vous n'y figurez pas encore (classement provisoire, ou pas de partie ces 30 jours).",
        "You are not listed yet (provisional rating, or no game in 30 days).",
    ),
    "leaderboard_more": ("Suivants", "Next"),
    "leaderboard_prev": ("Précédents", "Previous"),
    "leaderboard_error": ("Classement indisponible. Réessayez.", "Leaderboard unavailable. Try again."),
    "unknown_class": ("Cette cadence n'existe pas.", "This speed class does not exist."),
}
