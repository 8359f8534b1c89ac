"""``lexio serve [flags]`` (also ``python -m relay serve``): run the relay. See ``lexio serve --help``.

``lexio export-journal --from FILE --to postgresql://...``: copy a SQLite journal into PostgreSQL
(relay/journal/export.py).

``lexio admin ...``: the host's moderation commands (relay/accounts/admin.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from relay.config import ConfigError, config_from_args


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags and serve until interrupted. Returns the exit status (2: bad setting, word list or
    journal)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["export-journal"]:
        from relay.journal.export import main as export_main

        return export_main(args[1:])
    if args[:1] == ["admin"]:
        from relay.accounts.admin import main as admin_main

        return admin_main(args[1:])
    try:
        config = config_from_args(argv)
    except ConfigError as err:
        print(f"lexio: error: {err}", file=sys.stderr)
        return 2
    from relay.app import run
    from relay.journal import JournalUnavailable
    from relay.journal.sqlite import StoreError
    from relay.lexicon import LexiconError
    from relay.logs import setup_logging

    setup_logging(json_lines=config.log_json, level=config.log_level)
    try:
        run(config)
    except LexiconError as err:
        print(f"lexio: error: {err.message}", file=sys.stderr)
        return 2
    except (JournalUnavailable, StoreError) as err:  # unreachable, served by another relay, newer schema
        print(f"lexio: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
