"""UI strings of "following the game" (issue 12): last move, score sheet, end screen, your-turn signals.

Kept apart from :mod:`app.i18n` (which merges them into its table) so that both can grow without clashing.
"""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # last move
    "sq_last_move": ("dernier coup", "last move"),
    "last_swapped": ("{name} échange {n} jetons", "{name} swaps {n} tiles"),
    "last_swapped_one": ("{name} échange 1 jeton", "{name} swaps 1 tile"),
    "last_passed": ("{name} passe", "{name} passes"),
    "last_timed_out": ("La table passe pour {name} (temps écoulé)", "The table passes for {name} (time up)"),
    "last_placed": ("{name} : {words} (+{score})", "{name}: {words} (+{score})"),
    "last_rejected": ("{name} : coup refusé", "{name}: play refused"),
    "last_rejected_own": ("Vous : refusé ({words})", "You: refused ({words})"),
    # score sheet
    "sheet": ("Feuille de marque", "Score sheet"),
    "sheet_caption": ("Feuille de marque, du premier coup au dernier", "Score sheet, first move to last"),
    "sheet_region": ("Feuille de marque (défilable)", "Score sheet (scrollable)"),
    "sheet_turn": ("N°", "No."),
    "sheet_player": ("Joueur", "Player"),
    "sheet_position": ("Position", "Position"),
    "sheet_words": ("Mots", "Words"),
    "sheet_points": ("Points", "Points"),
    "sheet_total_of": ("{name} : {total}", "{name}: {total}"),
    "sheet_empty": ("Aucun coup pour l'instant.", "No move yet."),
    "sheet_swap": ("échange {n}", "swap {n}"),
    "sheet_pass": ("passe", "pass"),
    "sheet_timeout": ("temps écoulé (passe)", "time up (pass)"),
    "sheet_end_lost": ("reste {tiles}", "left {tiles}"),
    "sheet_end_won": ("reste des autres {tiles}", "others' tiles {tiles}"),
    "sheet_end": ("fin", "end"),
    "refused_title": (
        "Vos essais refusés (vous seul les voyez)",
        "Your refused attempts (only you see them)",
    ),
    "refused_line": ("coup {turn} : {position} {words}", "turn {turn}: {position} {words}"),
    # end screen
    "end_before": ("Avant la fin", "Before the end"),
    "end_adjust": ("Ajustement", "Adjustment"),
    "end_final": ("Score final", "Final score"),
    "end_rack": ("Chevalet", "Rack"),
    "end_player": ("Joueur", "Player"),
    "adj_left": ("{n} : lettres restantes ({tiles})", "{n}: tiles left ({tiles})"),
    "adj_gain": ("{n} : pris aux autres ({tiles})", "{n}: taken from the others ({tiles})"),
    "adj_none": ("0", "0"),
    "final_board": ("Plateau final", "Final board"),
    "replay_link": ("Revoir la partie", "Replay"),
    # your turn
    "title_your_turn": ("▶ À vous — Lexio", "▶ Your turn — Lexio"),
    "title_plain": ("Lexio", "Lexio"),
    "sound_on": ("♪ Son du tour : oui", "♪ Turn sound: on"),
    "sound_off": ("♪ Son du tour : coupé", "♪ Turn sound: off"),
    "sound_hint": ("Un son quand vient votre tour", "A sound when your turn comes"),
    "notify_ask": ("Me prévenir", "Notify me"),
    "notify_title": ("Lexio : à vous de jouer", "Lexio: your turn"),
    "notify_body": (
        "Table de {names} — {seconds} s pour jouer",
        "Table with {names} — {seconds} s to play",
    ),
    "last_seconds": ("Plus que {n} secondes", "{n} seconds left"),
    # table chat
    "chat": ("Discussion", "Chat"),
    "chat_seats": ("Joueurs", "Players"),
    "chat_watchers": ("Spectateurs", "Watchers"),
    "chat_none": ("Pas encore de message.", "No message yet."),
    "chat_anonymous": ("spectateur", "watcher"),
    "chat_send": ("Envoyer", "Send"),
    "chat_to_seats": ("Message à la table", "Message to the table"),
    "chat_to_watchers": ("Message aux spectateurs", "Message to the watchers"),
    "chat_hint": ("{n} caractères au plus, texte simple.", "At most {n} characters, plain text."),
    "chat_mute": ("masquer", "mute"),
    "chat_mute_name": ("Masquer les messages de {name}", "Mute {name}'s messages"),
    "chat_unmute": ("réafficher", "unmute"),
    "chat_muted": ("Masqués sur cet appareil :", "Muted on this device:"),
    "chat_show_watchers": ("Montrer les spectateurs", "Show the watchers"),
    "chat_hide_watchers": ("Cacher les spectateurs", "Hide the watchers"),
    "chat_empty": ("Le message est vide.", "The message is empty."),
    "chat_too_long": ("{max} caractères au plus.", "At most {max} characters."),
    "chat_unprintable": ("Caractères de contrôle refusés.", "Control characters are not allowed."),
    "chat_rate_limited": (
        "Trop de messages : réessayez dans {seconds} s.",
        "Too many messages: try again in {seconds} s.",
    ),
    "chat_closed": (
        "Les spectateurs d'une table privée peuvent écrire une fois la partie lancée.",
        "Watchers of a private table may write once the game has started.",
    ),
}
