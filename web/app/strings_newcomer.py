"""UI strings of issue 27's newcomer points (the home's pitch and computer game, the loading and invitation
screens, live games to watch, endings by passes), merged into :data:`app.i18n.STRINGS`: code -> (French,
English)."""

from __future__ import annotations

STRINGS_NEWCOMER: dict[str, tuple[str, str]] = {
    # home: what Lexio is, and a game against the computer in one click
    "pitch": (
        "Des mots croisés en ligne, de 2 à 4 joueurs : à tour de rôle, posez vos jetons pour former des "
        "mots qui se croisent ; chaque mot rapporte des points.",
        "Crossword tiles online, 2 to 4 players: take turns placing letter tiles to form crossing words; "
        "every word scores points.",
    ),
    "vs_computer_title": ("Contre l'ordinateur", "Against the computer"),
    "vs_computer": ("Jouer contre l'ordinateur", "Play against the computer"),
    "vs_computer_level": ("Niveau de l'ordinateur", "Computer's level"),
    "vs_computer_hint": (
        "La partie commence tout de suite, à une table privée.",
        "The game starts at once, at a private table.",
    ),
    # a table link while the page loads
    "opening_table": ("Ouverture de la table…", "Opening the table…"),
    "opening_table_text": (
        "Invitation, salle d'attente ou partie : elle s'affiche dès que le jeu est prêt.",
        "Invitation, waiting room or game: it shows as soon as the game is ready.",
    ),
    # invitation: watching before the start
    "invite_or_watch": ("Ou regardez la partie sans vous asseoir :", "Or watch the game without a seat:"),
    # live games
    "live_games": ("Parties en cours", "Games in progress"),
    "no_live_games": ("Aucune partie publique en cours.", "No public game in progress."),
    "top_game": ("Partie à la une", "Top game"),
    "live_move": ("coup {n}", "move {n}"),
    "live_watch_label": ("Regarder la partie de {names}", "Watch the game of {names}"),
    # endings by passes
    "scoreless_left": (
        "Encore {n} tour(s) sans pose et la partie s'arrête",
        "{n} more turn(s) without a placement end the game",
    ),
    "end_why_out": (
        "{name} a posé son dernier jeton alors que le sac était vide : la partie s'arrête là. {name} gagne "
        "la valeur des jetons restés chez les autres, qui la perdent.",
        "{name} played their last tile with the bag empty: that ends the game. {name} gains the value of "
        "the tiles left on the other racks, and their holders lose it.",
    ),
    "end_why_scoreless": (
        "Personne n'a posé de mot pendant deux tours de table ({n} tours de suite de passes ou d'échanges) : "
        "la partie s'arrête. Chacun perd la valeur des jetons qui lui restent.",
        "Nobody placed a word for two rounds of the table ({n} turns in a row of passes or swaps): that ends "
        "the game. Everyone loses the value of the tiles left on their rack.",
    ),
}
