"""UI strings of the profiles and of home's "my games" (issue 29, point 4), merged into
:data:`app.i18n.STRINGS`: code -> (French, English)."""

from __future__ import annotations

MONTHS = {
    "fr": (
        "janvier", "février", "mars", "avril", "mai", "juin",
        "juillet", "août", "septembre", "octobre", "novembre", "décembre",
    ),
    "en": (
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ),
}  # fmt: skip

STRINGS: dict[str, tuple[str, str]] = {
    # the profile's head
    "profile_loading": ("Profil : {name}…", "{name}'s profile…"),
    "profile_loading_text": ("Chargement du profil…", "Loading the profile…"),
    "member_since": ("Membre depuis le {date}", "Member since {date}"),
    "no_such_player": ("Joueur introuvable", "No such player"),
    "no_such_player_text": (
        "Aucun joueur inscrit ne s'appelle « {name} ». Vérifiez l'orthographe du pseudo : les invités n'ont "
        "pas de profil.",
        "No registered player is called “{name}”. Check the nickname's spelling: guests have no profile.",
    ),
    "profile_error": ("Profil indisponible", "Profile unavailable"),
    "profile_error_text": (
        "Le serveur n'a pas pu donner ce profil. Réessayez dans un instant.",
        "The server could not give this profile. Try again in a moment.",
    ),
    "profile_retry": ("Réessayer", "Try again"),
    "this_is_you": ("C'est vous.", "This is you."),
    # statistics
    "stats_title": ("Statistiques", "Statistics"),
    "stat_games": ("Parties", "Games"),
    "stat_wins": ("Victoires", "Wins"),
    "stat_wins_value": ("{n} ({pct}\u202f%)", "{n} ({pct}%)"),
    "stat_average": ("Score moyen", "Average score"),
    "stat_best": ("Meilleur score", "Best score"),
    "stat_best_play": ("Meilleur coup", "Best play"),
    "stat_points": ("{n} point(s)", "{n} point(s)"),
    "stat_bingos": ("Bingos (7 jetons posés)", "Bingos (all 7 tiles)"),
    "stat_none": ("aucun", "none"),
    # the games' table
    "games_title": ("Parties terminées", "Finished games"),
    "games_caption": (
        "Parties terminées jouées par {name}, les plus récentes d'abord",
        "{name}'s finished games, newest first",
    ),
    "games_none": ("Aucune partie terminée pour l'instant.", "No finished game yet."),
    "col_date": ("Date", "Date"),
    "col_opponents": ("Adversaires", "Opponents"),
    "col_score": ("Score", "Score"),
    "col_result": ("Résultat", "Result"),
    "col_game": ("Partie", "Game"),
    "result_win": ("Victoire", "Win"),
    "result_draw": ("Égalité", "Draw"),
    "result_loss": ("Défaite", "Loss"),
    "guest_marker": ("invité", "guest"),
    "deleted_player": ("joueur supprimé", "deleted player"),
    "game_view": ("Revoir", "View"),
    "game_view_label": (
        "Revoir la partie du {date} contre {names} : fin et relecture",
        "View the game of {date} against {names}: end and replay",
    ),
    "games_more": ("Parties plus anciennes", "Older games"),
    "games_more_busy": ("Chargement…", "Loading…"),
    "games_more_error": (
        "Les parties suivantes n'ont pas pu être chargées : réessayez.",
        "The next games could not be loaded: try again.",
    ),
    "games_shown": ("{n} partie(s) affichée(s) sur {total}.", "{n} game(s) shown of {total}."),
    # head-to-head
    "versus_title": ("Face-à-face", "Head-to-head"),
    "versus_heading": ("{name} contre {other}", "{name} against {other}"),
    "versus_record": ("{name} contre {other} : {record}.", "{name} against {other}: {record}."),
    "rec_wins": ("{n} victoire(s)", "{n} win(s)"),
    "rec_draws": ("{n} égalité(s)", "{n} draw(s)"),
    "rec_loss_one": ("{n} défaite", "{n} loss"),
    "rec_loss_many": ("{n} défaites", "{n} losses"),
    "versus_none": (
        "Ils n'ont encore joué aucune partie ensemble.",
        "They have not played a game together yet.",
    ),
    "versus_missing": (
        "Aucun joueur inscrit ne s'appelle « {name} ».",
        "No registered player is called “{name}”.",
    ),
    "versus_all": ("Toutes les parties jouées par {name}", "All of {name}'s games"),
    "versus_other_profile": ("Profil : {name}", "{name}'s profile"),
    "versus_caption": ("Parties entre {name} et {other}", "Games between {name} and {other}"),
    "versus_against": ("contre {name}", "against {name}"),
    "against": ("contre", "against"),
    "versus_you": ("Vous contre {name}", "You against {name}"),
    "versus_field": ("Comparer avec le pseudo", "Compare with the nickname"),
    "versus_go": ("Voir le face-à-face", "Show head-to-head"),
    "versus_opponents": ("Adversaires inscrits :", "Registered opponents:"),
    # home: my games
    "my_games": ("Mes parties", "My games"),
    "my_live": ("En cours", "In progress"),
    "my_recent": ("Terminées récemment", "Recently finished"),
    "my_none": (
        "Aucune partie pour l'instant : créez une table ou jouez contre l'ordinateur.",
        "No game yet: create a table or play the computer.",
    ),
    "my_your_turn": ("À vous de jouer", "Your turn"),
    "my_their_turn": ("Au tour de {name}", "{name}'s turn"),
    "my_others_turn": ("Au tour d'un autre joueur", "Another player's turn"),
    "my_waiting": ("En attente de joueurs", "Waiting for players"),
    "my_play": ("Jouer", "Play"),
    "my_open": ("Ouvrir", "Open"),
    "my_open_label": ("{action} : partie avec {names}", "{action}: game with {names}"),
    "my_score": ("Vous : {n}", "You: {n}"),
    "my_all": ("Toutes mes parties (mon profil)", "All my games (my profile)"),
}
