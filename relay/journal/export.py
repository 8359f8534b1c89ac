"""``lexio export-journal --from FILE --to postgresql://...``: copy a SQLite journal into PostgreSQL.

Every table of the SQLite file (the journal's events, tables and rematch links, the players' accounts,
and whatever else the relay keeps beside them) is copied row for row into the PostgreSQL schema the relay
itself creates and migrates (relay.journal.postgres, relay.accounts.db), in one transaction: an error leaves
the target as it was. The target must hold no row yet (a second run is refused, never doubling or mixing
journals); the copy is checked by counting rows.

The SQLite file is opened read-only; stop the relay writing it first, or the copy may miss its last commits.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from psycopg import Connection, sql
from psycopg.rows import TupleRow

from relay.accounts.db import SCHEMA as ACCOUNTS_SCHEMA
from relay.accounts.db import PostgresDb
from relay.accounts.db import migrate as migrate_accounts
from relay.journal.base import is_postgres_url, redact_url
from relay.journal.postgres import FILL_TURN_SECONDS, MIGRATION_LOCK, PostgresStore
from relay.journal.sqlite import MIGRATIONS as SQLITE_MIGRATIONS


class ExportError(RuntimeError):
    """The copy cannot be made; ``code`` is stable (missing_source, not_a_journal, target_not_empty,
    unknown_table, unknown_column, newer_source, count_mismatch), the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


def export_journal(source: Path, target: str) -> list[Copied]:
    """Copy the SQLite journal ``source`` into the PostgreSQL database ``target``; returns rows per table.

    Raises ExportError (nothing written), relay.journal.JournalUnavailable (target unreachable),
    sqlite3.Error (source unreadable)."""
    if not source.is_file():
        raise ExportError("missing_source", f"{source}: no such SQLite journal")
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        names = [
            str(r[0])
            for r in src.execute(
                "SELECT name FROM sqlite_master"
                " WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        if "events" not in names or "tables" not in names:
            raise ExportError("not_a_journal", f"{source}: not a Lexio journal (no events/tables table)")
        if "schema_version" in names:
            version = int(src.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0])
            known = 1 + len(SQLITE_MIGRATIONS)
            if version > known:
                raise ExportError(
                    "newer_source", f"{source}: schema version {version}, this lexio knows up to {known}"
                )
        if "accounts_schema" in names:
            version = int(src.execute("SELECT COALESCE(MAX(version), 0) FROM accounts_schema").fetchone()[0])
            if version > len(ACCOUNTS_SCHEMA):
                raise ExportError(
                    "newer_source",
                    f"{source}: accounts schema version {version}, this lexio knows {len(ACCOUNTS_SCHEMA)}",
                )
        names = [n for n in names if n not in ("schema_version", "accounts_schema")]
        # Exclusive: never copy into a journal a relay is serving.
        store = PostgresStore(target, min_size=1, max_size=1, exclusive=True)
        try:
            # The players' accounts go with their games: their tables are made as the relay makes them.
            accounts = PostgresDb(target)
            try:
                migrate_accounts(accounts)
            finally:
                accounts.close()
            return _copy(src, names, store, target)
        finally:
            store.close()
    finally:
        src.close()


def _copy(src: sqlite3.Connection, names: Sequence[str], store: PostgresStore, target: str) -> list[Copied]:
    copied: list[Copied] = []
    with store._transaction() as conn:
        # The migration lock also keeps a relay starting on the target from writing during the copy.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        pg_columns: dict[str, list[str]] = {}
        for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY ordinal_position"
        ):
            pg_columns.setdefault(str(table), []).append(str(column))
        for name in names:
            if name not in pg_columns:
                raise ExportError(
                    "unknown_table",
                    f"{redact_url(target)} has no table {name!r}: this lexio cannot export it",
                )
            row = conn.execute(
                sql.SQL("SELECT EXISTS (SELECT 1 FROM {})").format(sql.Identifier(name))
            ).fetchone()
            if row and row[0]:
                raise ExportError(
                    "target_not_empty",
                    f"{redact_url(target)} already holds a journal (table {name!r} has rows): "
                    "export into an empty database",
                )
        for name in names:
            columns = [str(r[1]) for r in src.execute(f"PRAGMA table_info({_q(name)})")]
            missing = [c for c in columns if c not in pg_columns[name]]
            if missing:
                raise ExportError(
                    "unknown_column", f"{redact_url(target)}: table {name!r} has no column {missing[0]!r}"
                )
            col_list = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
            statement = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(name), col_list)
            count = 0
            with conn.cursor() as cur, cur.copy(statement) as copy:
                for values in src.execute(f"SELECT {', '.join(_q(c) for c in columns)} FROM {_q(name)}"):
                    copy.write_row(values)
                    count += 1
            _advance_sequences(conn, name, columns)
            row = conn.execute(sql.SQL("SELECT COUNT(*) FROM {}").format(sql.Identifier(name))).fetchone()
            if row is None or int(row[0]) != count:
                raise ExportError("count_mismatch", f"table {name!r}: {count} rows read, {row} written")
            copied.append(Copied(name, count))
        if "tables" in names:  # SQLite's have no turn time of their own: read from their first event
            conn.execute(FILL_TURN_SECONDS)
    return copied


def _advance_sequences(conn: Connection[TupleRow], name: str, columns: Sequence[str]) -> None:
    """Identity/serial columns copied with explicit values: move their sequence past the copied maximum."""
    for column in columns:
        row = conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (name, column)).fetchone()
        if row and row[0]:
            conn.execute(
                sql.SQL("SELECT setval(%s, COALESCE((SELECT MAX({}) FROM {}), 0) + 1, false)").format(
                    sql.Identifier(column), sql.Identifier(name)
                ),
                (row[0],),
            )


def _q(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def main(argv: Sequence[str]) -> int:
    """``lexio export-journal`` flags; returns the exit status (2: the copy was refused or failed)."""
    parser = argparse.ArgumentParser(
        prog="lexio export-journal",
        description="Copy a SQLite journal into an empty PostgreSQL database (schema created by lexio).",
    )
    parser.add_argument("--from", dest="source", required=True, metavar="FILE", help="the SQLite journal")
    parser.add_argument("--to", dest="target", required=True, metavar="URL", help="postgresql://user@host/db")
    args = parser.parse_args(argv)
    if not is_postgres_url(args.target):
        print(f"lexio: error: --to {args.target!r}: expected a postgresql:// URL", file=sys.stderr)
        return 2
    from relay.journal.base import JournalUnavailable

    try:
        copied = export_journal(Path(args.source), args.target)
    except ExportError as err:
        print(f"lexio: error: {err.code}: {err.message}", file=sys.stderr)
        return 2
    except (JournalUnavailable, sqlite3.Error) as err:
        print(f"lexio: error: {err}", file=sys.stderr)
        return 2
    summary = ", ".join(f"{c.table} {c.rows}" for c in copied)
    print(f"exported {args.source} to {redact_url(args.target)}: {summary}")
    return 0
