"""``lexio admin``: the host's moderation commands (docs/hosting.md, "Moderation").

They work on the accounts' database directly (the journal's SQLite file, or its PostgreSQL database), whether
relays are running or not: what they write, every relay reads at its next join or chat line.

    lexio admin [--db DB] reports [--all] [--json]
    lexio admin [--db DB] close-report ID
    lexio admin [--db DB] ban (--account NICKNAME | --address ADDRESS) --for 7d --reason TEXT
    lexio admin [--db DB] bans [--all] [--json]
    lexio admin [--db DB] lift BAN_ID
    lexio admin [--db DB] rename NICKNAME NEW_NICKNAME

Exit status: 0 done, 2 refused (the accounts' code and reason on standard error) or unreachable.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from relay.accounts.db import AccountSchemaError, open_accounts_db
from relay.accounts.errors import AccountError
from relay.accounts.moderation import Ban, Moderation, Report
from relay.addresses import address_key
from relay.journal.base import JournalUnavailable, is_postgres_url

_UNITS = {"m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}
_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhdw])")


def duration_ms(text: str) -> int:
    """``30m``, ``12h``, ``7d``, ``2w`` in milliseconds. Raises argparse.ArgumentTypeError."""
    found = _DURATION.fullmatch(text.strip().lower())
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: a duration is a number and m, h, d or w (e.g. 7d)")
    return int(found.group(1)) * _UNITS[found.group(2)]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lexio admin", description="Moderation: reports, bans, renames.")
    p.add_argument(
        "--db",
        default=os.environ.get("LEXIO_DB", "var/lexio.sqlite3"),
        help="the relay's journal: a SQLite file or a postgresql:// URL, as given to lexio serve [LEXIO_DB]",
    )
    sub = p.add_subparsers(dest="command", required=True)
    reports = sub.add_parser("reports", help="the open reports, newest first")
    reports.add_argument("--all", action="store_true", help="closed ones too")
    reports.add_argument("--json", action="store_true", help="one JSON object a line")
    close = sub.add_parser("close-report", help="mark a report dealt with")
    close.add_argument("id")
    ban = sub.add_parser("ban", help="ban an account or an address for a time")
    target = ban.add_mutually_exclusive_group(required=True)
    target.add_argument("--account", metavar="NICKNAME")
    target.add_argument("--address", metavar="ADDRESS", help="an IPv4 address or any address of an IPv6 /64")
    ban.add_argument("--for", dest="for_ms", type=duration_ms, required=True, metavar="DURATION")
    ban.add_argument("--reason", required=True, help="what the player is told")
    bans = sub.add_parser("bans", help="the bans in force")
    bans.add_argument("--all", action="store_true", help="lifted and ended ones too")
    bans.add_argument("--json", action="store_true", help="one JSON object a line")
    lift = sub.add_parser("lift", help="lift a ban in force")
    lift.add_argument("id")
    rename = sub.add_parser("rename", help="give an account another nickname")
    rename.add_argument("nickname")
    rename.add_argument("new_nickname")
    return p


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    url = args.db if is_postgres_url(args.db) else None
    try:
        db = open_accounts_db(url, Path(args.db))
    except (JournalUnavailable, sqlite3.Error, OSError, AccountSchemaError) as err:
        print(f"lexio admin: error: {err}", file=sys.stderr)
        return 2
    moderation = Moderation(db, lambda: int(time.time() * 1000))
    try:
        _run(moderation, args)
    except AccountError as err:
        print(f"lexio admin: error: {err.code}: {err.message}", file=sys.stderr)
        return 2
    finally:
        db.close()
    return 0


def _run(m: Moderation, args: argparse.Namespace) -> None:
    """Raises AccountError (the moderation's refusals)."""
    match args.command:
        case "reports":
            for r in m.reports(closed=args.all):
                print(json.dumps(asdict(r), ensure_ascii=False) if args.json else _report_text(r))
        case "close-report":
            m.close_report(args.id)
            print(f"report {args.id} closed")
        case "ban":
            address = address_key(args.address) if args.address is not None else None
            ban = m.ban(nickname=args.account, address=address, for_ms=args.for_ms, reason=args.reason)
            print(f"ban {ban.id}: {_ban_target(ban)} until {_when(ban.until_ms)}")
        case "bans":
            for b in m.bans(ended=args.all):
                print(json.dumps(asdict(b), ensure_ascii=False) if args.json else _ban_text(b))
        case "lift":
            m.lift(args.id)
            print(f"ban {args.id} lifted")
        case "rename":
            account = m.rename(args.nickname, args.new_nickname)
            print(f"{args.nickname} is now {account.nickname}")


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ms / 1000))


def _ban_target(b: Ban) -> str:
    if b.account_id is not None:
        return f"account {b.nickname or '(deleted)'}"
    return f"address {b.address}"


def _ban_text(b: Ban) -> str:
    state = " (lifted)" if b.lifted_ms is not None else ""
    return f"{b.id}  {_ban_target(b)}  until {_when(b.until_ms)}{state}  {b.reason}"


def _report_text(r: Report) -> str:
    who = f"{r.name} (account {r.account})" if r.account else f"{r.name} (guest)"
    lines = [
        f"{r.id}  {_when(r.created_ms)}  {r.reason}  {who}"
        + (f"  address {r.address}" if r.address else "")
        + ("  [closed]" if r.closed_ms is not None else ""),
        f"    by {r.reporter or '(deleted account)'} at table {r.table_id}, seat {r.seat}",
    ]
    if r.note:
        lines.append(f"    note: {r.note}")
    lines += [f"    | {line.name or '?'}: {line.text}" for line in r.excerpt]
    return "\n".join(lines)
