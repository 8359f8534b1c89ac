"""UI strings of "Play now" (issue #30: a rated game against players of one's level), merged into
:data:`app.i18n.STRINGS`: code -> (French, English). The relay's codes (docs/protocol.md, "Play now") are
here too, said when a seek is refused."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # home's card
    "playnow_title": ("Jouer maintenant", "Play now"),
    "playnow_intro": (
        "Une partie classée contre des joueurs de votre niveau, trouvés pour vous.",
        "A rated game against players of your level, found for you.",
    ),
    "playnow_speed": ("Cadence", "Speed"),
    "playnow_speed_rapide": ("Rapide (1 min par tour)", "Rapid (1 min a turn)"),
    "playnow_speed_normal": ("Normale (2 min par tour)", "Normal (2 min a turn)"),
    "playnow_speed_lent": ("Lente (5 min par tour)", "Slow (5 min a turn)"),
    "playnow_size": ("Taille de la table", "Table size"),
    "playnow_size_2": ("2 joueurs", "2 players"),
    "playnow_size_3_4": ("3 ou 4 joueurs", "3 or 4 players"),
    "playnow_size_any": ("Peu importe", "Any size"),
    "playnow_seek": ("Chercher une partie", "Find a game"),
    "playnow_connecting": ("Connexion…", "Connecting…"),
    "playnow_seeking": ("Recherche d'une partie…", "Looking for a game…"),
    "playnow_found": ("Partie trouvée !", "Game found!"),
    "playnow_what": ("{speed}, {size}", "{speed}, {size}"),
    "playnow_waited": ("Attente :", "Waiting:"),
    "playnow_count": ("{n} joueur(s) en recherche", "{n} player(s) looking"),
    "playnow_computer": ("Jouer contre l'ordinateur en attendant", "Play the computer meanwhile"),
    "playnow_meanwhile": (
        "La recherche continue pendant la partie : une table trouvée vous sera proposée.",
        "The search goes on during the game: a table found will be offered to you.",
    ),
    "playnow_cancel_label": ("Annuler la recherche", "Cancel the search"),
    # the offer
    "playnow_offer_title": ("Une table vous attend", "A table is waiting for you"),
    "playnow_offer_text": (
        "Confirmez dans les 15 secondes pour vous asseoir. La partie est classée.",
        "Confirm within 15 seconds to take your seat. The game is rated.",
    ),
    "playnow_players": ("Joueurs et classements", "Players and ratings"),
    "playnow_confirm": ("Confirmer", "Confirm"),
    "playnow_confirmed": ("Confirmé : en attente des autres", "Confirmed: waiting for the others"),
    "playnow_secs": ("({n} s)", "({n} s)"),
    "playnow_left": ("Plus que {n} secondes pour confirmer.", "{n} seconds left to confirm."),
    "playnow_decline": ("Refuser", "Decline"),
    # how a seek ended
    "playnow_dropped": (
        "Vous n'avez pas confirmé à temps : la recherche est arrêtée.",
        "You did not confirm in time: the search has stopped.",
    ),
    "playnow_requeued": (
        "Un joueur n'a pas confirmé : la recherche continue, à votre place dans la file.",
        "A player did not confirm: the search goes on, at your place in the queue.",
    ),
    "playnow_lost": (
        "La connexion a été coupée : la recherche est arrêtée. Relancez-la.",
        "The connection was cut: the search has stopped. Start it again.",
    ),
    # the relay's refusals (docs/protocol.md, "Play now")
    "seek_twice": (
        "Vous cherchez déjà une partie (peut-être dans un autre onglet).",
        "You are already looking for a game (perhaps in another tab).",
    ),
    "seek_guest": ("Connectez-vous pour jouer une partie classée.", "Sign in to play a rated game."),
    "unknown_class": ("Cette cadence n'existe pas.", "This speed does not exist."),
    "bad_size": ("Choisissez 2, 3 ou 4 joueurs, ou peu importe.", "Choose 2, 3 or 4 players, or any size."),
    "not_offered": ("Cette table ne vous est plus proposée.", "This table is no longer offered to you."),
    "no_seek": ("Vous ne cherchez pas de partie.", "You are not looking for a game."),
}
