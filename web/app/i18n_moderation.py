"""UI strings of moderation (issue 29, point 6: block, report, bans), merged into :data:`app.i18n.STRINGS`:
code -> (French, English)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # bans: told at a refused join or chat line, on home and on "my account"
    "banned": (
        "Suspendu par l'hôte jusqu'au {until} : {reason}. Vous ne pouvez ni vous asseoir ni écrire.",
        "Suspended by the host until {until}: {reason}. You can neither sit nor write.",
    ),
    "ban_title": ("Compte suspendu", "Account suspended"),
    # blocks
    "blocked": (
        "Un joueur de cette table privée vous a bloqué : vous ne pouvez pas vous y asseoir.",
        "A player at this private table has blocked you: you cannot sit there.",
    ),
    "block_player": ("Bloquer {name}", "Block {name}"),
    "unblock_player": ("Débloquer {name}", "Unblock {name}"),
    "block_hint": (
        "Ses messages vous seront cachés, vous ne serez jamais mis à la même table par « Jouer maintenant », "
        "et il ne pourra pas s'asseoir à vos tables privées.",
        "Their messages are hidden from you, Play now never seats you together, and they cannot sit at your "
        "private tables.",
    ),
    "unblock": ("Débloquer", "Unblock"),
    "blocked_done": ("{name} est bloqué.", "{name} is blocked."),
    "unblocked_done": ("{name} n'est plus bloqué.", "{name} is no longer blocked."),
    "blocked_title": ("Joueurs bloqués", "Blocked players"),
    "blocked_none": ("Vous n'avez bloqué personne.", "You have not blocked anyone."),
    "blocked_since": ("depuis le {date}", "since {date}"),
    "block_self": ("Vous ne pouvez pas vous bloquer vous-même.", "You cannot block yourself."),
    "too_many_blocks": ("Vous avez bloqué trop de joueurs.", "You have blocked too many players."),
    "not_blocked": ("Ce joueur n'est pas bloqué.", "This player is not blocked."),
    # reports
    "report_open": ("Signaler un joueur…", "Report a player…"),
    "report_title": ("Signaler un joueur à l'hôte", "Report a player to the host"),
    "report_who": ("Quel joueur ?", "Which player?"),
    "report_why": ("Pourquoi ?", "Why?"),
    "reason_insult": ("Insultes ou harcèlement", "Insults or harassment"),
    "reason_cheating": ("Triche", "Cheating"),
    "reason_spam": ("Spam ou publicité", "Spam or advertising"),
    "reason_nickname": ("Nom offensant", "Offensive name"),
    "reason_other": ("Autre", "Other"),
    "report_note": ("Précisions (facultatif)", "Details (optional)"),
    "report_also_block": ("Bloquer aussi ce joueur", "Also block this player"),
    "report_send": ("Envoyer le signalement", "Send the report"),
    "report_sending": ("Envoi…", "Sending…"),
    "report_excerpt": (
        "L'hôte recevra aussi les derniers messages de la table.",
        "The host also gets the table's last messages.",
    ),
    "report_done": (
        "Merci : l'hôte a reçu votre signalement sur {name}.",
        "Thank you: the host has your report on {name}.",
    ),
    "report_pick_reason": ("Choisissez une raison.", "Choose a reason."),
    "bad_seat": ("Personne n'est assis à cette place.", "Nobody sits at this seat."),
    "report_self": ("Vous ne pouvez pas vous signaler vous-même.", "You cannot report yourself."),
    "bad_reason": ("Choisissez une raison.", "Choose a reason."),
    "bad_note": (
        "Les précisions tiennent en 500 caractères, sans caractère de contrôle.",
        "Details fit in 500 characters, with no control character.",
    ),
    "too_many_reports": (
        "Vous avez envoyé beaucoup de signalements aujourd'hui : réessayez demain.",
        "You have sent many reports today: try again tomorrow.",
    ),
    "reports_unavailable": (
        "Les signalements ne peuvent pas être gardés pour l'instant : réessayez plus tard.",
        "Reports cannot be kept now: try again later.",
    ),
    # a deleted account's seat link
    "seat_deleted": (
        "Le compte qui avait cette place a été supprimé : ce lien n'assoit plus personne.",
        "The account that had this seat was deleted: this link seats nobody any more.",
    ),
}
