"""UI strings in French and English, keyed by stable codes (including every engine and relay error code).

Game words stay French whatever the UI language; only the interface is translated.
"""

# ruff: noqa: RUF001  (multiplication signs and dashes are deliberate UI typography)

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from app.i18n_account import STRINGS as _ACCOUNT
from app.i18n_analysis import STRINGS as _ANALYSIS
from app.i18n_correspondence import STRINGS as _CORRESPONDENCE
from app.i18n_follow import STRINGS as _FOLLOW
from app.i18n_moderation import STRINGS as _MODERATION
from app.i18n_playnow import STRINGS as _PLAYNOW
from app.i18n_profile import MONTHS
from app.i18n_profile import STRINGS as _PROFILE
from app.i18n_push import STRINGS as _PUSH
from app.i18n_ratings import STRINGS as _RATINGS
from app.plural import resolve
from app.strings_newcomer import STRINGS_NEWCOMER
from app.strings_ux import STRINGS_UX

LANGS = ("fr", "en")

# code -> (French, English). Placeholders use str.format names from the error's params.
STRINGS: dict[str, tuple[str, str]] = {
    # -- chrome
    "app_title": ("Lexio", "Lexio"),
    "tagline": ("Mots croisés en ligne, 2 à 4 joueurs", "Online crossword tiles, 2 to 4 players"),
    "loading": ("Chargement de Python…", "Loading Python…"),
    "loading_ready": ("Prêt", "Ready"),
    "lang_switch": ("English", "Français"),
    "lang_switch_label": ("Switch to English", "Passer en français"),
    "offline": (
        "Connexion perdue — reconnexion dans {seconds} s…",
        "Connection lost — reconnecting in {seconds} s…",
    ),
    "connecting": ("Connexion…", "Connecting…"),
    "stopped": ("Déconnecté : {reason}", "Disconnected: {reason}"),
    "taken_over": ("cette place est ouverte dans un autre onglet", "this seat is open in another tab"),
    "table_gone": ("la table n'existe plus", "the table is gone"),
    "kicked": ("trop de messages", "too many messages"),
    # -- home / lobby
    "your_name": ("Votre nom", "Your name"),
    "create_table": ("Créer une table", "Create a table"),
    "turn_time": ("Temps par tour", "Time per turn"),
    "seconds_short": ("{n} s", "{n} s"),
    "minutes_short": ("{n} min", "{n} min"),
    "public_table": ("Table publique (listée)", "Public table (listed)"),
    "open_tables": ("Tables ouvertes", "Open tables"),
    "no_open_tables": ("Aucune table publique ouverte.", "No open public table."),
    "join": ("Rejoindre", "Join"),
    "join_by_link": ("Rejoindre par lien", "Join by link"),
    "link_or_code": ("Lien ou code de table", "Table link or code"),
    "refresh": ("Actualiser", "Refresh"),
    "players_n": ("{n} joueur(s)", "{n} player(s)"),
    "free_n": ("{n} place(s) libre(s)", "{n} free seat(s)"),
    "name_required": ("Choisissez un nom (1 à 24 caractères).", "Choose a name (1 to 24 characters)."),
    "name_too_long": (
        "Nom trop long : {n} caractères, 24 au plus.",
        "Name too long: {n} characters, 24 at most.",
    ),
    "name_unprintable": (
        "Le nom contient un caractère invisible ou de contrôle.",
        "The name holds an invisible or control character.",
    ),
    "name_hint": ("1 à 24 caractères.", "1 to 24 characters."),
    "bad_link": ("Lien de table non reconnu.", "Table link not recognised."),
    # -- waiting room
    "waiting_room": ("Salle d'attente", "Waiting room"),
    "seats": ("Places", "Seats"),
    "seat_n": ("Place {n}", "Seat {n}"),
    "copy_link": ("Copier le lien", "Copy link"),
    "copied": ("Lien copié", "Link copied"),
    "start_game": ("Lancer la partie", "Start the game"),
    "wait_for_host": (
        "{name} lancera la partie (2 à 4 joueurs).",
        "{name} will start the game (2 to 4 players).",
    ),
    "need_players": ("Il faut au moins 2 joueurs.", "At least 2 players are needed."),
    "add_bot": ("Ajouter un joueur ordinateur", "Add a computer player"),
    "level": ("Niveau", "Level"),
    "level_beginner": ("débutant", "beginner"),
    "level_easy": ("facile", "easy"),
    "level_medium": ("moyen", "medium"),
    "level_strong": ("fort", "strong"),
    "level_expert": ("expert", "expert"),
    # -- post-game analysis (app.analysis)
    "analysis_ask": ("Analyser mes coups", "Analyse my moves"),
    "analysis_pending": ("Analyse en cours…", "Analysing…"),
    "analysis_title": ("Analyse de vos coups", "Analysis of your moves"),
    "analysis_summary": (
        "{best} coups sur {moves} égalent le choix de l'expert ; équité perdue en tout : {lost} points.",
        "{best} of {moves} moves match the expert's choice; equity lost in all: {lost} points.",
    ),
    "analysis_turn": ("Tour", "Turn"),
    "analysis_rack": ("Votre chevalet", "Your rack"),
    "analysis_played": ("Votre coup", "Your move"),
    "analysis_points": ("Points", "Points"),
    "analysis_best": ("Choix de l'expert", "Expert's choice"),
    "analysis_lost": ("Équité perdue", "Equity lost"),
    "analysis_same": ("le même", "the same"),
    "analysis_swap": ("échange {tiles}", "exchange {tiles}"),
    "analysis_pass": ("passe", "pass"),
    "analysis_used": (
        "Vous avez déjà eu l'analyse de cette partie.",
        "You already had this game's analysis.",
    ),
    "analysis_unavailable": ("L'analyse n'est pas disponible.", "The analysis is not available."),
    "leave": ("Quitter", "Leave"),
    "you_marker": ("(vous)", "(you)"),
    "bot_marker": ("ordinateur", "computer"),
    # -- table
    "board_label": ("Plateau (la clairière)", "Board (the clearing)"),
    "legend": ("Légende", "Legend"),
    "sq_plain": ("vide", "empty"),
    "kind_wall": ("mur", "wall"),
    "kind_plain": ("case simple", "plain square"),
    "kind_source": ("source", "source"),
    "kind_word2": ("mot ×2", "word ×2"),
    "kind_word3": ("mot ×3", "word ×3"),
    "kind_letter2": ("lettre ×2", "letter ×2"),
    "kind_letter3": ("lettre ×3", "letter ×3"),
    "kind_crossing": ("croisement", "crossing"),
    "abbr_word2": ("M×2", "W×2"),
    "abbr_word3": ("M×3", "W×3"),
    "abbr_letter2": ("L×2", "L×2"),
    "abbr_letter3": ("L×3", "L×3"),
    "abbr_crossing": ("✕", "✕"),
    "abbr_source": ("★", "★"),
    "sq_tile": ("{letter}, {value} pt", "{letter}, {value} pt"),
    "sq_blank": ("{letter}, joker", "{letter}, blank"),
    "sq_pending": ("posé", "placed"),
    "rack": ("Chevalet", "Rack"),
    "rack_tile": ("{letter}, {value} pt", "{letter}, {value} pt"),
    "rack_blank": ("?, joker", "?, blank"),
    "shuffle": ("Mélanger", "Shuffle"),
    "recall": ("Reprendre", "Recall"),
    "submit": ("Jouer", "Play"),
    "swap": ("Échanger", "Swap"),
    "pass": ("Passer", "Pass"),
    "direction_across": ("→ horizontal", "→ across"),
    "direction_down": ("↓ vertical", "↓ down"),
    "toggle_direction": ("Sens de saisie", "Typing direction"),
    "preview": ("Aperçu", "Preview"),
    "preview_empty": ("Posez des jetons pour voir le score.", "Place tiles to see the score."),
    "preview_total": ("{total} points", "{total} points"),
    "preview_bingo": ("+{n} (7 jetons)", "+{n} (7 tiles)"),
    "preview_note": (
        "Estimation : la partie peut encore refuser les mots.",
        "Estimate: the game may still refuse the words.",
    ),
    "word_breakdown": ("{word} : {score}", "{word}: {score}"),
    "mult_word": ("mot ×{n}", "word ×{n}"),
    "mult_crossing": ("croisement ×2", "crossing ×2"),
    "mult_crossings": ("{k} croisements ×{n}", "{k} crossings ×{n}"),
    "players": ("Joueurs", "Players"),
    "score": ("Score", "Score"),
    "tiles_n": ("{n} jetons", "{n} tiles"),
    "connected": ("connecté", "connected"),
    "disconnected": ("déconnecté", "disconnected"),
    "presence_unknown": ("inconnu", "unknown"),
    "clock_unknown": ("inconnu", "unknown"),
    "on_turn": ("à son tour", "on turn"),
    "your_turn": ("À vous de jouer", "Your turn"),
    "turn_of": ("Au tour de {name}", "{name}'s turn"),
    "bag_n": ("Sac : {n}", "Bag: {n}"),
    "time_left": ("Temps restant", "Time left"),
    "time_short": ("Temps", "Time"),
    "reserve": ("Réserve : {tries} essai(s)", "Reserve: {tries} try(ies)"),
    "reserve_refill": ("+1 dans {seconds} s", "+1 in {seconds} s"),
    "rejected_words": ("Refusé — mot(s) inconnu(s) : {words}", "Refused — unknown word(s): {words}"),
    "journal": ("Journal", "Log"),
    "j_created": ("Table créée", "Table created"),
    "j_joined": ("{name} s'assoit", "{name} sits down"),
    "j_left": ("{name} part", "{name} leaves"),
    "j_started": ("La partie commence", "The game starts"),
    "j_placed": ("{name} : {words} (+{score})", "{name}: {words} (+{score})"),
    "j_swapped": ("{name} échange {n} jeton(s)", "{name} swaps {n} tile(s)"),
    "j_passed": ("{name} passe", "{name} passes"),
    "j_timedout": ("La table passe pour {name} (temps écoulé)", "The table passes for {name} (time up)"),
    "j_rejected": ("{name} : coup refusé", "{name}: play refused"),
    "j_rejected_own": ("Vous : refusé ({words})", "You: refused ({words})"),
    "j_ended": ("Fin de la partie", "Game over"),
    "unseen": ("Jetons invisibles", "Unseen tiles"),
    "unseen_total": ("{n} (sac + chevalets adverses)", "{n} (bag + opponents' racks)"),
    "blank_dialog": ("Quelle lettre pour le joker ?", "Which letter for the blank?"),
    "swap_dialog": ("Choisissez les jetons à échanger", "Choose the tiles to swap"),
    "swap_confirm": ("Échanger {n}", "Swap {n}"),
    "swap_bag_low": ("Le sac n'a que {n} jeton(s).", "The bag holds only {n} tile(s)."),
    "pass_dialog": ("Passer votre tour ?", "Pass your turn?"),
    "confirm": ("Confirmer", "Confirm"),
    "cancel": ("Annuler", "Cancel"),
    "keyboard_help": (
        "Clavier : flèches pour choisir une case, Espace change le sens, tapez les lettres, "
        "Retour arrière reprend, Entrée joue, Échap reprend tout.",
        "Keyboard: arrows pick a square, Space toggles direction, type letters, Backspace takes back, "
        "Enter plays, Escape recalls all.",
    ),
    "not_your_turn_hint": ("Ce n'est pas votre tour.", "It is not your turn."),
    "demo_mode": ("Mode démo (hors ligne)", "Demo mode (offline)"),
    # -- end
    "game_over": ("Partie terminée", "Game over"),
    "final_scores": ("Scores finals", "Final scores"),
    "adjustment": ("ajustement {n}", "adjustment {n}"),
    "winner": ("Vainqueur : {names}", "Winner: {names}"),
    "winners_tie": ("Victoire partagée : {names}", "Shared win: {names}"),
    "racks_face_up": ("Chevalets", "Racks"),
    "download_gcg": ("Télécharger la partie (GCG)", "Download the game (GCG)"),
    "new_table_same": ("Nouvelle table, mêmes joueurs", "New table, same players"),
    "back_home": ("Accueil", "Home"),
    "rematch_by": ("{name} propose une nouvelle table.", "{name} proposes a new table."),
    "rematch_mine": ("Vous avez proposé une nouvelle table.", "You proposed a new table."),
    "join_rematch": ("Rejoindre", "Join"),
    "end_reason_out": ("un joueur a posé son dernier jeton", "a player played out"),
    "end_reason_passes": ("deux tours de table sans pose", "two rounds without a play"),
    # -- engine error codes
    "off_board": ("La case {square} est hors du plateau.", "Square {square} is off the board."),
    "wall": ("La case {square} est un mur.", "Square {square} is a wall."),
    "occupied": ("La case {square} est déjà prise.", "Square {square} is taken."),
    "duplicate_square": ("Deux jetons sur la case {square}.", "Two tiles on square {square}."),
    "not_in_line": (
        "Les jetons doivent être sur une seule ligne ou colonne.",
        "Tiles must be in a single row or column.",
    ),
    "gap": ("Il y a un trou entre les jetons posés.", "There is a gap between the tiles."),
    "missing_source": (
        "Le premier mot doit couvrir la source (G7).",
        "The first word must cover the source (G7).",
    ),
    "not_connected": (
        "Le mot doit toucher un jeton déjà posé.",
        "The play must touch a tile already on the board.",
    ),
    "no_word": (
        "Il faut former un mot d'au moins deux lettres.",
        "The play must form a word of two letters or more.",
    ),
    "not_on_rack": ("Ces jetons ne sont pas sur votre chevalet.", "Those tiles are not on your rack."),
    "blank_without_letter": ("Choisissez la lettre du joker.", "Choose the blank's letter."),
    "bad_letter": ("Lettre non valable.", "Invalid letter."),
    "too_many_tiles": ("Au plus 7 jetons par coup.", "At most 7 tiles per play."),
    "empty_play": ("Aucun jeton posé.", "No tile placed."),
    "swap_too_large": (
        "Le sac n'a pas assez de jetons pour cet échange.",
        "The bag does not hold enough tiles for that swap.",
    ),
    "bad_swap": ("Échange impossible.", "Swap not possible."),
    "not_your_turn": ("Ce n'est pas votre tour.", "It is not your turn."),
    "game_over_err": ("La partie est terminée.", "The game is over."),
    "not_started": ("La partie n'a pas commencé.", "The game has not started."),
    "already_started": ("La partie a déjà commencé.", "The game has already started."),
    "reserve_empty": (
        "Plus d'essai dans la réserve : attendez la recharge.",
        "No tries left in the reserve: wait for the refill.",
    ),
    "table_full": ("La table est complète.", "The table is full."),
    "table_exists": ("La table existe déjà.", "The table already exists."),
    "not_enough_players": ("Il faut au moins 2 joueurs.", "At least 2 players are needed."),
    "not_first_seat": (
        "Seul le premier arrivé lance la partie.",
        "Only the first arrival starts the game.",
    ),
    "bad_seat": ("Place inconnue.", "Unknown seat."),
    "bad_name": (
        "Nom refusé : 1 à 24 caractères imprimables.",
        "Name refused: 1 to 24 printable characters.",
    ),
    "bad_name_taken": (
        "Le nom {name} est déjà pris à cette table : choisissez-en un autre.",
        "The name {name} is already taken at this table: choose another.",
    ),
    "bad_notation": ("Notation illisible.", "Unreadable notation."),
    "unknown_variant": ("Variante inconnue.", "Unknown variant."),
    "bad_setting": ("Réglage refusé.", "Setting refused."),
    "bad_event": ("Événement illisible.", "Unreadable event."),
    "bad_shape": ("Placement non valable.", "Invalid placement."),
    "bad_rack": ("Jetons non valables.", "Invalid tiles."),
    "bad_turn": ("Action impossible maintenant.", "Not possible now."),
    "bad_input": ("Saisie non valable.", "Invalid input."),
    "lexio_error": ("Erreur de jeu.", "Game error."),
    # -- relay error codes
    "bad_json": ("Message illisible.", "Unreadable message."),
    "bad_message": ("Message refusé.", "Message refused."),
    "unknown_type": ("Message inconnu.", "Unknown message."),
    "frame_too_large": ("Message trop long.", "Message too long."),
    "rate_limited": ("Trop d'actions : ralentissez.", "Too many actions: slow down."),
    "not_joined": ("Pas encore assis à la table.", "Not seated yet."),
    "already_joined": ("Déjà assis.", "Already seated."),
    "bad_token": ("Votre place n'est plus reconnue.", "Your seat is no longer recognised."),
    "table_not_found": ("Table introuvable.", "Table not found."),
    "not_a_seat": ("Les spectateurs ne jouent pas.", "Spectators do not play."),
    "bots_unavailable": ("Joueurs ordinateur indisponibles.", "Computer players unavailable."),
    "bad_level": ("Niveau inconnu.", "Unknown level."),
    "internal_error": ("Erreur du serveur.", "Server error."),
    "bad_request": ("Requête refusée.", "Request refused."),
    "bad_turn_seconds": ("Temps par tour : 30 à 600 s.", "Time per turn: 30 to 600 s."),
    "game_not_finished": ("La partie n'est pas finie.", "The game is not finished."),
    "not_ended": (
        "Une nouvelle table se propose une fois la partie finie.",
        "A new table can be proposed once the game is over.",
    ),
    "bad_origin": ("Ce site n'est pas autorisé par le serveur.", "This site is not allowed by the server."),
    "probe_limit": (
        "Trop de mots inconnus essayés depuis votre connexion, toutes tables confondues : "
        "réessayez dans {seconds} s.",
        "Too many unknown words tried from your connection, all tables together: try again in {seconds} s.",
    ),
    "tables_busy": (
        "Trop de tables attendent des joueurs sur ce serveur : réessayez plus tard.",
        "Too many tables are waiting for players on this server: try again later.",
    ),
    "too_many_connections": (
        "Trop de connexions depuis votre adresse : fermez quelques onglets.",
        "Too many connections from your address: close a few tabs.",
    ),
    "relay_busy": ("Serveur saturé : réessayez dans un instant.", "Server busy: try again in a moment."),
    "request_timeout": ("Requête trop lente.", "Request too slow."),
    "body_too_large": ("Requête trop grosse.", "Request too large."),
    "method_not_allowed": ("Méthode non permise.", "Method not allowed."),
    "not_found": ("Introuvable.", "Not found."),
    "network_error": ("Serveur injoignable.", "Server unreachable."),
}

STRINGS.update(STRINGS_UX)
STRINGS.update(_FOLLOW)  # issue 12
STRINGS.update(_ANALYSIS)  # issue 13: the replay viewer's analysis
STRINGS.update(STRINGS_NEWCOMER)  # issue 27: home, invitation, live games, endings by passes
STRINGS.update(_ACCOUNT)  # issue 29: accounts
STRINGS.update(_PROFILE)  # issue 29: profiles, my games
STRINGS.update(_MODERATION)  # issue 29: block, report, bans
STRINGS.update(_RATINGS)  # issue 30: ratings, leaderboards
STRINGS.update(_PLAYNOW)  # issue 30: play now
STRINGS.update(_CORRESPONDENCE)  # issue 31: correspondence play, my games
STRINGS.update(_PUSH)  # issue 31: turn reminders (Web Push)

# Engine codes whose name collides with a UI label get a suffixed key.
_ALIASES = {"game_over": "game_over_err"}


class _Safe(dict[str, object]):
    """Missing placeholders render as "?" rather than raising (a server may omit a param)."""

    def __missing__(self, key: str) -> str:
        return "?"


def pick_language(preferred: Iterable[str]) -> str:
    """First supported language among the browser's preferences (``navigator.languages``); French if none."""
    for tag in preferred:
        base = str(tag).split("-")[0].lower()
        if base in LANGS:
            return base
    return "fr"


class Translator:
    """Looks a code up in one language; unknown codes show the code itself (never crash the UI)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else "fr"
        self._i = LANGS.index(self.lang)
        self._plain: dict[str, str] = {}  # code -> its text, for the texts asked for without parameters

    def t(self, code: str, **params: object) -> str:
        if not params:
            # The same text every time (labels, titles: several per keystroke): formatted once.
            done = self._plain.get(code)
            if done is None:
                done = self._plain[code] = self._format(code, params)
            return done
        return self._format(code, params)

    def _format(self, code: str, params: dict[str, object]) -> str:
        pair = STRINGS.get(code)
        if pair is None:
            return code
        text = resolve(pair[self._i], params, self.lang)  # "{n} seat(s)": 1 seat, 3 seats
        try:
            return text.format_map(_Safe(params))
        except (IndexError, ValueError):
            return text

    def num(self, value: float, digits: int = 1) -> str:
        """A decimal number as the language writes it: "783,1" in French, "783.1" in English; a negative
        one with a true minus sign (U+2212), never a hyphen, and no sign on a value that rounds to zero."""
        text = f"{abs(value):,.{digits}f}"
        if self.lang == "fr":
            # French groups thousands with a narrow no-break space and writes a decimal comma.
            text = text.replace(",", "\u202f").replace(".", ",")
        negative = value < 0 and float(f"{abs(value):.{digits}f}") != 0
        return ("\u2212" if negative else "") + text

    def error(self, code: str, params: Mapping[str, object] | None = None) -> str:
        """Message for an engine/relay error code (``game_over`` as an error differs from the label)."""
        key = _ALIASES.get(code, code)
        if key == "bad_name" and (params or {}).get("reason") == "taken":
            key = "bad_name_taken"
        elif key == "bad_name" and (params or {}).get("reason") == "reserved":
            key = "name_reserved"
        if key not in STRINGS:
            key = "lexio_error"
        shown = dict(params or {})
        if key == "banned":
            shown["until"] = self.moment(shown.get("until"))
        return self.t(key, **shown)

    def moment(self, ms: object) -> str:
        """A date and time in words, in UTC and saying so (a worker has no time zone of the player's):
        "10 décembre 2026, 15:51 UTC"."""
        if not isinstance(ms, int | float):
            return "?"
        t = time.gmtime(ms / 1000)
        day = "1er" if self.lang == "fr" and t.tm_mday == 1 else str(t.tm_mday)
        return f"{day} {MONTHS[self.lang][t.tm_mon - 1]} {t.tm_year}, {t.tm_hour:02d}:{t.tm_min:02d} UTC"
