"""Player accounts: passkey sign-up and sign-in, sessions, recovery codes and the seats an account claims.

- :mod:`relay.accounts.nicknames`: what a nickname may be, and its folded form (unique ignoring case
  and accents).
- :mod:`relay.accounts.db`: one SQL dialect over SQLite (the default) and PostgreSQL (several relays),
  with the accounts' own schema versions.
- :mod:`relay.accounts.store`: the accounts' rows and the queries on them, the same on both databases.
- :mod:`relay.accounts.passkeys`: the WebAuthn ceremonies (py_webauthn) and their single-use challenges.
- :mod:`relay.accounts.erasure`: deleting an account for good; its games stay, its seats marked deleted.
- :mod:`relay.accounts.service`: what the HTTP views call: sign up, sign in, sessions, recovery, claims.
- :mod:`relay.accounts.moderation`: blocks, reports, bans and renames; :mod:`relay.accounts.admin` is the
  host's ``lexio admin`` command over them.

Nothing about an account lives only in one relay's memory: a session made on one relay is valid on every
relay sharing the database.
"""

from relay.accounts.errors import AccountError

__all__ = ["AccountError"]
