"""UI strings of the accounts (issue 29: sign up, sign in, recovery, my account, registered players at a
table), merged into :data:`app.i18n.STRINGS`: code -> (French, English). The relay's refusal codes
(docs/protocol.md, "Accounts") are keys here too, so that ``Translator.error`` says them in words."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # header
    "sign_in": ("Se connecter", "Sign in"),
    "account_menu_label": ("Compte de {name}", "{name}'s account"),
    "my_account": ("Mon compte", "My account"),
    "my_profile": ("Mon profil", "My profile"),
    "sign_out": ("Se déconnecter", "Sign out"),
    # sign in
    "signin_title": ("Se connecter", "Sign in"),
    "signin_text": (
        "Lexio n'a pas de mot de passe : votre appareil vous reconnaît avec une clé d'accès "
        "(empreinte, visage, code de l'appareil ou clé de sécurité).",
        "Lexio has no password: your device recognises you with a passkey "
        "(fingerprint, face, device PIN or security key).",
    ),
    "signin_passkey": ("Se connecter avec une clé d'accès", "Sign in with a passkey"),
    "signin_busy": ("Votre appareil vous demande…", "Your device is asking…"),
    "signin_new": ("Pas encore de compte ?", "No account yet?"),
    "signup_link": ("Créer un compte", "Create an account"),
    "signin_lost": ("Appareil perdu ?", "Lost your device?"),
    "recover_link": ("Utiliser un code de secours", "Use a recovery code"),
    "guest_ok": (
        "Aucun compte n'est nécessaire pour jouer : un compte garde votre pseudo et vos parties.",
        "You need no account to play: an account keeps your nickname and your games.",
    ),
    "back_home_link_short": ("Retour à l'accueil", "Back to home"),
    "seats_handover": (
        "Les parties jouées dans ce navigateur seront rattachées à votre compte.",
        "The games played in this browser will be attached to your account.",
    ),
    # sign up
    "signup_title": ("Créer un compte", "Create an account"),
    "nickname": ("Pseudo", "Nickname"),
    "nickname_hint": (
        "3 à 20 lettres, chiffres, - ou _. C'est le nom sous lequel vous jouerez.",
        "3 to 20 letters, digits, - or _. It is the name you will play under.",
    ),
    "signup_go": ("Créer ma clé d'accès", "Create my passkey"),
    "signup_busy": ("Création de la clé…", "Creating the passkey…"),
    "signin_instead": ("Déjà un compte ?", "Already have an account?"),
    "nick_required": ("Choisissez un pseudo.", "Choose a nickname."),
    "nick_too_short": (
        "Pseudo trop court : 3 caractères au moins.",
        "Nickname too short: 3 characters at least.",
    ),
    "nick_too_long": (
        "Pseudo trop long : 20 caractères au plus.",
        "Nickname too long: 20 characters at most.",
    ),
    "nick_bad_chars": (
        "Seuls les lettres, les chiffres, - et _ sont permis (pas d'espace).",
        "Only letters, digits, - and _ are allowed (no space).",
    ),
    # recovery codes, shown once
    "codes_title": ("Vos codes de secours", "Your recovery codes"),
    "codes_text": (
        "Votre compte {name} est prêt. Si vous perdez tous vos appareils, chacun de ces codes vous "
        "permet une fois d'ajouter une nouvelle clé d'accès. Ils ne seront plus jamais affichés : "
        "gardez-les en lieu sûr.",
        "Your account {name} is ready. If you lose every device, each of these codes lets you add a new "
        "passkey once. They will never be shown again: keep them somewhere safe.",
    ),
    "codes_list": ("Codes de secours", "Recovery codes"),
    "codes_copy": ("Copier les codes", "Copy the codes"),
    "codes_copied": ("Codes copiés.", "Codes copied."),
    "codes_download": ("Télécharger (.txt)", "Download (.txt)"),
    "codes_file_head": (
        "Codes de secours Lexio de {name} (chacun sert une fois) :",
        "Lexio recovery codes of {name} (each works once):",
    ),
    "codes_saved": ("J'ai mis ces codes en lieu sûr", "I have saved these codes"),
    "codes_done": ("Continuer", "Continue"),
    # recovery
    "recover_title": ("Récupérer mon compte", "Recover my account"),
    "recover_text": (
        "Donnez votre pseudo et un de vos codes de secours : cet appareil recevra une nouvelle clé d'accès. "
        "Le code ne servira plus.",
        "Give your nickname and one of your recovery codes: this device gets a new passkey. "
        "The code will not work again.",
    ),
    "recover_nick_hint": ("Le pseudo de votre compte.", "Your account's nickname."),
    "back_to_signin": ("Retour à la connexion", "Back to sign in"),
    "recovery_code": ("Code de secours", "Recovery code"),
    "recovery_code_hint": ("Par exemple abcd-efgh-ijkl", "For example abcd-efgh-ijkl"),
    "recover_go": ("Créer une nouvelle clé d'accès", "Create a new passkey"),
    "recover_busy": ("Vérification…", "Checking…"),
    "code_required": ("Tapez un de vos codes de secours.", "Type one of your recovery codes."),
    # my account
    "account_title": ("Mon compte", "My account"),
    "signed_in_as": ("Connecté en tant que {name}.", "Signed in as {name}."),
    "passkeys": ("Clés d'accès", "Passkeys"),
    "passkey_created": ("créée le {date}", "created {date}"),
    "passkey_used": ("dernière utilisation le {date}", "last used {date}"),
    "passkey_never": ("jamais utilisée", "never used"),
    "passkey_unnamed": ("Clé sans nom", "Unnamed passkey"),
    "passkey_add": ("Ajouter une clé d'accès", "Add a passkey"),
    "passkey_add_busy": ("Ajout…", "Adding…"),
    "passkey_rename": ("Renommer", "Rename"),
    "passkey_rename_label": ("Renommer la clé {name}", "Rename the passkey {name}"),
    "passkey_remove": ("Supprimer", "Remove"),
    "passkey_remove_label": ("Supprimer la clé {name}", "Remove the passkey {name}"),
    "passkey_name": ("Nom de la clé", "Passkey name"),
    "passkey_save": ("Enregistrer", "Save"),
    "passkey_cancel": ("Annuler", "Cancel"),
    "passkey_added": ("Clé d'accès ajoutée.", "Passkey added."),
    "passkey_renamed": ("Clé renommée.", "Passkey renamed."),
    "passkey_removed": ("Clé supprimée.", "Passkey removed."),
    "passkey_last_hint": (
        "Votre seule clé ne peut pas être supprimée : ajoutez-en une autre d'abord.",
        "Your only passkey cannot be removed: add another one first.",
    ),
    "codes_left": ("Codes de secours restants : {n} sur 8.", "Recovery codes left: {n} of 8."),
    "sessions": ("Sessions", "Sessions"),
    "sign_out_all": ("Se déconnecter partout", "Sign out everywhere"),
    "sign_out_all_hint": (
        "Ferme votre session sur tous les appareils, celui-ci compris.",
        "Ends your session on every device, this one included.",
    ),
    "claimed_n": (
        "{n} partie(s) de ce navigateur rattachée(s) à votre compte.",
        "{n} game(s) from this browser attached to your account.",
    ),
    "claimed_none": (
        "Aucune partie de ce navigateur à rattacher.",
        "No game from this browser to attach.",
    ),
    "welcome_back": ("Bienvenue, {name}.", "Welcome, {name}."),
    "welcome_claimed": (
        "Bienvenue, {name}. {n} partie(s) de ce navigateur rattachée(s) à votre compte.",
        "Welcome, {name}. {n} game(s) from this browser attached to your account.",
    ),
    "signed_out": ("Vous êtes déconnecté.", "You are signed out."),
    # my data: export, deletion (issue 29, point 5)
    "my_data": ("Mes données", "My data"),
    "export_games": ("Exporter mes parties (archive GCG)", "Export my games (GCG archive)"),
    "export_hint": (
        "Une archive ZIP : un fichier GCG par partie terminée, lisible par Quackle ou la page Revoir.",
        "A ZIP archive: one GCG file per finished game, readable by Quackle or the replay page.",
    ),
    "delete_account": ("Supprimer mon compte", "Delete my account"),
    "delete_hint": (
        "Vos clés d'accès, sessions et votre profil sont effacés, et votre pseudo redevient libre. Les "
        "autres joueurs gardent vos parties passées, sous « joueur supprimé ». C'est définitif.",
        "Your passkeys, sessions and profile are erased, and your nickname becomes free again. The other "
        "players keep your past games, under \u201cdeleted player\u201d. This is final.",
    ),
    "delete_title": ("Supprimer le compte {name} ?", "Delete the account {name}?"),
    "delete_text": (
        "C'est définitif : aucune clé d'accès ni aucun code de secours ne pourra le rendre. Exportez "
        "d'abord vos parties si vous voulez les garder.",
        "This is final: no passkey nor recovery code can bring it back. Export your games first if you "
        "want to keep them.",
    ),
    "delete_type": ("Pour confirmer, tapez votre pseudo : {name}", "To confirm, type your nickname: {name}"),
    "delete_go": ("Supprimer définitivement", "Delete for good"),
    "delete_busy": ("Suppression…", "Deleting…"),
    "delete_cancel": ("Annuler", "Cancel"),
    "account_deleted": (
        "Le compte {name} est supprimé et vous êtes déconnecté. Vos parties restent chez vos adversaires "
        "sous « joueur supprimé ».",
        "The account {name} is deleted and you are signed out. Your games stay with your opponents as "
        "\u201cdeleted player\u201d.",
    ),
    "bad_confirm": (
        "Ce n'est pas votre pseudo : tapez-le tel quel pour confirmer.",
        "That is not your nickname: type it as it is to confirm.",
    ),
    "signed_out_all": (
        "Déconnecté de {n} session(s).",
        "Signed out of {n} session(s).",
    ),
    # at a table
    "playing_as": ("Vous jouez en tant que {name} (votre compte).", "You play as {name} (your account)."),
    "member_marker": ("joueur inscrit", "registered player"),
    "member_profile": ("Profil de {name}, joueur inscrit", "Profile of {name}, registered player"),
    "name_registered": (
        "Ce nom est celui d'un joueur inscrit : connectez-vous si c'est vous, ou choisissez un autre nom.",
        "This name belongs to a registered player: sign in if it is you, or pick another name.",
    ),
    # the relay's refusals (docs/protocol.md, "Accounts") and the browser's
    "bad_nickname": (
        "Ce pseudo n'est pas permis : 3 à 20 lettres, chiffres, - ou _.",
        "This nickname is not allowed: 3 to 20 letters, digits, - or _.",
    ),
    "nickname_taken": (
        "Ce pseudo est déjà pris : choisissez-en un autre.",
        "This nickname is taken: pick another.",
    ),
    "account_rate_limited": (
        "Trop d'essais depuis cette adresse : réessayez dans un moment.",
        "Too many attempts from this address: try again in a while.",
    ),
    "bad_challenge": (
        "La demande a expiré : recommencez.",
        "The request expired: start again.",
    ),
    "bad_credential": (
        "Cette clé d'accès n'a pas été reconnue ici.",
        "This passkey was not recognised here.",
    ),
    "bad_counter": (
        "Cette clé d'accès semble copiée : elle est refusée.",
        "This passkey looks copied: it is refused.",
    ),
    "passkey_exists": (
        "Cette clé d'accès est déjà enregistrée.",
        "This passkey is registered already.",
    ),
    "no_such_passkey": ("Cette clé n'existe plus.", "This passkey no longer exists."),
    "last_passkey": (
        "Impossible de supprimer votre dernière clé d'accès : ajoutez-en une autre d'abord.",
        "You cannot remove your last passkey: add another one first.",
    ),
    "bad_recovery": (
        "Ce pseudo et ce code ne correspondent pas (ou le code a déjà servi).",
        "This nickname and code do not match (or the code was used already).",
    ),
    "not_signed_in": ("Vous n'êtes pas connecté.", "You are not signed in."),
    "account_bad_origin": (
        "Cette page ne peut pas se connecter à ce serveur.",
        "This page cannot sign in to this server.",
    ),
    "accounts_unavailable": (
        "Les comptes sont indisponibles pour le moment : réessayez plus tard.",
        "Accounts are unavailable right now: try again later.",
    ),
    "webauthn_cancelled": (
        "La clé d'accès n'a pas été utilisée (annulé ou délai dépassé).",
        "The passkey was not used (cancelled or timed out).",
    ),
    "webauthn_exists": (
        "Cet appareil a déjà une clé d'accès pour ce compte.",
        "This device already holds a passkey for this account.",
    ),
    "webauthn_unsupported": (
        "Ce navigateur ne sait pas utiliser les clés d'accès sur cette adresse.",
        "This browser cannot use passkeys at this address.",
    ),
    "webauthn_failed": ("La clé d'accès a échoué : {detail}", "The passkey failed: {detail}"),
}
