"""UI strings of the lobby, the invitation, watching, help and focus (issue 11), merged into
:data:`app.i18n.STRINGS`: code -> (French, English)."""

from __future__ import annotations

STRINGS_UX: dict[str, tuple[str, str]] = {
    # names
    "name_reserved": (
        "Les noms « Robot … » sont réservés aux joueurs ordinateur.",
        "Names “Robot …” are kept for computer players.",
    ),
    # home: own tables
    "my_tables": ("Vos tables", "Your tables"),
    "resume": ("Reprendre", "Resume"),
    "status_waiting": ("en attente", "waiting"),
    "status_playing": ("en cours", "in progress"),
    "per_turn": ("{t} par tour", "{t} per turn"),
    # invitation
    "invite_loading": ("Chargement de la table…", "Loading the table…"),
    "invite_by": ("{name} vous invite", "{name} invites you"),
    "invite_empty": ("Une table vous attend", "A table is waiting for you"),
    "invite_seated": ("Déjà assis", "Already seated"),
    "invite_nobody": ("Personne n'est encore assis.", "Nobody is seated yet."),
    "host_marker": ("hôte", "host"),
    "invite_join": ("Rejoindre la table", "Join the table"),
    "invite_joining": ("Connexion…", "Joining…"),
    "invite_missing": ("Table introuvable", "Table not found"),
    "invite_missing_text": (
        "Ce lien ne mène à aucune table : elle a pu être abandonnée.",
        "This link leads to no table: it may have been abandoned.",
    ),
    "invite_playing": ("Partie en cours", "Game in progress"),
    "invite_playing_text": (
        "La partie a commencé : vous pouvez la regarder sans nom.",
        "The game has started: you can watch it, no name needed.",
    ),
    "invite_full": ("Table complète", "Table full"),
    "watch": ("Regarder", "Watch"),
    "back_home_link": ("Retour à l'accueil", "Back to the home page"),
    # watching
    "watchers_one": ("1 spectateur", "1 watching"),
    "watchers_many": ("{n} spectateurs", "{n} watching"),
    "watching_you": ("Vous regardez la partie.", "You are watching this game."),
    # computer players
    "remove_bot": ("Retirer", "Remove"),
    "remove_bot_label": ("Retirer {name}", "Remove {name}"),
    "not_a_bot": ("Cette place n'est pas un joueur ordinateur.", "That seat is not a computer player."),
    "table_title": ("Partie en cours", "Game in progress"),
    "journal_label": ("Journal de la partie (défilant)", "Game log (scrolls)"),
    # help
    "rules": ("Règles", "Rules"),
    "rules_label": ("Règles du jeu (nouvel onglet)", "Rules of the game (new tab)"),
    "rules_full": ("Toutes les règles du jeu (nouvel onglet)", "The full rules of the game (new tab)"),
    "rules_title": ("Règles de Lexio", "Rules of Lexio"),
    "help": ("Aide", "Help"),
    "help_reserve": (
        "Réserve de refus : un coup refusé pour un mot inconnu consomme un essai (10 au plus, +1 toutes "
        "les 15 s) ; un refus ne coûte ni point ni tour. Sans essai, vos poses sont refusées jusqu'à la "
        "recharge ; échanger et passer restent possibles.",
        "Reserve of refusals: a play refused for an unknown word uses one try (10 at most, +1 every 15 s); "
        "a refusal costs no points and no turn. With no try left your plays are refused until the refill; "
        "swapping and passing stay possible.",
    ),
    "help_preview": (
        "L'aperçu calcule ce que vaudrait votre coup ; il ne promet pas que le coup sera accepté : "
        "la table vérifie les mots quand vous jouez.",
        "The preview computes what your play would score; it does not promise the play will be accepted: "
        "the table checks the words when you play.",
    ),
}
