"""UI strings of the replay viewer's analysis of your moves (app.replay_analysis), merged into
:data:`app.i18n.STRINGS`: code -> (French, English)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "analysis_table": ("Tableau de vos coups", "Table of your moves"),
    "ra_title": ("Analyse de vos coups", "Analysis of your moves"),
    "ra_offer": (
        "Vous avez joué cette partie : l'expert peut juger chacun de vos coups (une fois par partie).",
        "You played this game: the expert can judge each of your moves (once per game).",
    ),
    "ra_offline": (
        "Hors ligne : l'analyse demande le réseau.",
        "Offline: the analysis needs the network.",
    ),
    "ra_not_yours": (
        "Ce coup n'est pas le vôtre. Vos {n} coups sont analysés : allez à l'un d'eux.",
        "This move is not yours. Your {n} moves are analysed: go to one of them.",
    ),
    "ra_same": ("le même coup : bien joué", "the same move: well played"),
    "ra_points": ("{n} points", "{n} points"),
    "ra_best_short": ("meilleur", "best"),
    "ra_jump": ("Vos coups", "Your moves"),
    "ra_prev": ("Votre coup précédent", "Your previous move"),
    "ra_next": ("Votre coup suivant", "Your next move"),
    "ra_show_best": ("Voir le choix de l'expert sur la grille", "Show the expert's choice on the board"),
    "ra_board_best": ("la grille montre le choix de l'expert", "the board shows the expert's choice"),
    "ra_sq_best": ("choix de l'expert", "expert's choice"),
}
