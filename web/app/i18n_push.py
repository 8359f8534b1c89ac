"""UI strings of turn reminders (issue 31: Web Push on "My account"), merged into :data:`app.i18n.STRINGS`:
code -> (French, English). The relay's refusal codes (docs/protocol.md, "Web Push") are keys here too."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "push_title": ("Rappels de tour", "Turn reminders"),
    "push_hint": (
        "Aux tables par correspondance (une heure ou plus par coup), cet appareil vous prévient quand votre "
        "tour arrive, puis quand 80 % de son temps est passé. Rien d'autre n'est envoyé.",
        "At correspondence tables (an hour or more a move), this device tells you when your turn comes, "
        "then when 80 % of its time is used. Nothing else is sent.",
    ),
    "push_state_on": ("Activés sur cet appareil.", "On for this device."),
    "push_state_off": ("Désactivés sur cet appareil.", "Off for this device."),
    "push_state_unknown": ("Vérification…", "Checking…"),
    "push_unsupported": (
        "Ce navigateur ne permet pas les rappels (sur iPhone et iPad : ajoutez d'abord Lexio à l'écran "
        "d'accueil).",
        "This browser cannot show reminders (on iPhone and iPad: add Lexio to the home screen first).",
    ),
    "push_turn_on": ("Activer les rappels", "Turn on reminders"),
    "push_turn_off": ("Désactiver les rappels", "Turn off reminders"),
    "push_busy": ("Un instant…", "One moment…"),
    "push_on_done": ("Rappels de tour activés sur cet appareil.", "Turn reminders are on for this device."),
    "push_off_done": (
        "Rappels de tour désactivés sur cet appareil.",
        "Turn reminders are off for this device.",
    ),
    # the browser's refusals (DOMException names, app.glue.push) and the relay's (docs/protocol.md)
    "push_denied": (
        "Les notifications sont bloquées pour ce site : autorisez-les dans les réglages du navigateur.",
        "Notifications are blocked for this site: allow them in the browser's settings.",
    ),
    "push_failed": (
        "Le navigateur n'a pas pu s'abonner aux rappels ({detail}).",
        "The browser could not subscribe to reminders ({detail}).",
    ),
    "push_unavailable": (
        "Les rappels ne sont pas disponibles sur ce serveur.",
        "Reminders are not available on this server.",
    ),
    "bad_subscription": (
        "Ce navigateur utilise un service de notifications que le serveur n'accepte pas.",
        "This browser uses a notification service the server does not accept.",
    ),
    "push_taken": (
        "Cet appareil reçoit déjà les rappels d'un autre compte.",
        "This device already gets another account's reminders.",
    ),
    "too_many_subscriptions": (
        "Votre compte a déjà 10 appareils avec rappels : désactivez-en un d'abord.",
        "Your account already has reminders on 10 devices: turn one off first.",
    ),
}
