"""Relay settings: one frozen dataclass, filled from flags with matching ``LEXIO_*`` environment variables."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from pathlib import Path
from urllib.parse import urlsplit

from relay.journal.base import is_postgres_url, redact_url

MIN_TURN_SECONDS = 30
MAX_TURN_SECONDS = 600
# The browsers' push services (Chrome/Edge's FCM, Firefox's autopush, Safari's, Windows'); more with
# --push-service.
PUSH_SERVICES = ("fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com", "notify.windows.com")


class ConfigError(ValueError):
    """A setting is invalid; the message names the flag and the value. ``code`` is stable (bad_setting, or
    e.g. bus_needs_postgresql)."""

    def __init__(self, message: str, code: str = "bad_setting") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    db: Path = Path("var/lexio.sqlite3")
    # A postgresql:// URL (given as --db): the journal lives there instead of the SQLite file ``db``.
    journal_url: str | None = None
    # Cluster mode (docs/architecture.md, "Several relays"): a redis:// URL, with a PostgreSQL journal. Tables
    # are then claimed lazily with an epoch, and no exclusive lock is held on the journal.
    bus_url: str | None = None
    # This relay's name in logs and /healthz (its node id is fresh at each start); default host:port.
    node_name: str | None = None
    lexicon: str = "fr"
    static: Path | None = Path("web/dist")
    turn_seconds: int = 120
    grace_seconds: float = 10.0
    # Before the start, a seat whose player stays away this long is freed (no table waits forever).
    waiting_grace_seconds: float = 120.0
    allow_origins: tuple[str, ...] = ()
    log_json: bool = False
    log_level: str = "INFO"
    test_seed: int | None = None
    # How often the referee checks deadlines; a timeout fires at most this late.
    tick_seconds: float = 0.2
    # Bots think for a human-like pause (uniform in this range) before moving.
    bot_delay_seconds: tuple[float, float] = (1.0, 2.5)
    frame_limit: int = 4096
    rate_burst: float = 30.0
    rate_per_second: float = 15.0
    # Table creation per client address: a burst, then this many per second.
    create_burst: float = 30.0
    create_per_second: float = 0.5
    lexicon_cache: Path | None = None
    # NORMAL survives a killed relay (kill -9); FULL also an OS crash or power cut (an fsync per commit).
    db_synchronous_full: bool = False
    # The address players reach the relay at (behind a TLS reverse proxy: https://lexio.example.org). Table
    # links are built from it instead of the request's own scheme and host, and its origin may open sockets.
    # Forwarded headers (X-Forwarded-Proto/Host) are never trusted: any client can send them.
    public_url: str | None = None
    # Reverse proxies (addresses or networks) whose X-Forwarded-For is believed: behind one, the client's
    # address (per-address limits, logs) is the rightmost X-Forwarded-For entry that is not a trusted proxy.
    trusted_proxies: tuple[IPv4Network | IPv6Network, ...] = ()
    # Hardening (docs/hosting.md, "Limits"). A peer leaving more than this unread is closed with 4002.
    output_cap_kib: int = 256
    # Snapshots a connection may ask for (resync): a burst, then this many per second.
    resync_burst: float = 10.0
    resync_per_second: float = 2.0
    # Unknown-word refusals per client address across all tables and seats: a burst, then one per period.
    probe_burst: float = 30.0
    probe_refill_seconds: float = 15.0
    # Account attempts per client address (sign-ups, sign-ins, recovery codes), each its own budget: this many
    # at once, then sign-ups 1 per 2 min, sign-ins 1 per 6 s, recovery codes 1 per min.
    account_burst: float = 10.0
    # Tables waiting for players with nobody connected, relay-wide; past it, creation answers 503.
    max_waiting_tables: int = 2000
    # A table nobody ever sat at is dropped after this long.
    unjoined_table_seconds: float = 600.0
    # TCP connections per client address (sockets and HTTP), and HTTP connections still waiting for
    # their request among them; headers and bodies must arrive within the request timeout.
    max_connections_per_address: int = 64
    max_pending_per_address: int = 32
    request_timeout_seconds: float = 10.0
    # Web Push (relay/push/, docs/hosting.md "Web Push"): the push services the relay may post to (a
    # subscription's endpoint must be https on one of these hosts or a subdomain: the relay never posts to an
    # address a page chose), the VAPID ``sub`` contact (mailto: or https:), and, for tests only, endpoints
    # on this machine's loopback (http://127.0.0.1, localhost, [::1]).
    push_services: tuple[str, ...] = PUSH_SERVICES
    push_contact: str | None = None
    push_allow_loopback: bool = False

    def __post_init__(self) -> None:
        if not MIN_TURN_SECONDS <= self.turn_seconds <= MAX_TURN_SECONDS:
            raise ConfigError(
                f"--turn-seconds {self.turn_seconds}: must be {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS}"
            )
        if self.grace_seconds < 0:
            raise ConfigError(f"--grace-seconds {self.grace_seconds}: must be >= 0")
        if self.journal_url is not None and not is_postgres_url(self.journal_url):
            raise ConfigError(f"--db {self.journal_url!r}: expected a file or a postgresql:// URL")
        if self.bus_url is not None and self.journal_url is None:
            raise ConfigError(
                f"--bus {redact_url(self.bus_url)}: cluster mode needs a PostgreSQL journal "
                "(--db postgresql://...)",
                "bus_needs_postgresql",
            )
        if self.bus_url is not None and not self.bus_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"--bus {redact_url(self.bus_url)}: expected a redis://host:port/db URL")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"--port {self.port}: must be 0-65535")
        for flag, value in (
            ("--output-cap-kib", self.output_cap_kib),
            ("--resync-burst", self.resync_burst),
            ("--resync-per-second", self.resync_per_second),
            ("--probe-burst", self.probe_burst),
            ("--probe-refill-seconds", self.probe_refill_seconds),
            ("--account-burst", self.account_burst),
            ("--max-waiting-tables", self.max_waiting_tables),
            ("--unjoined-table-seconds", self.unjoined_table_seconds),
            ("--max-connections-per-address", self.max_connections_per_address),
            ("--max-pending-per-address", self.max_pending_per_address),
            ("--request-timeout-seconds", self.request_timeout_seconds),
        ):
            if not value > 0:
                raise ConfigError(f"{flag} {value}: must be > 0")
        if self.push_contact is not None and not self.push_contact.startswith(("mailto:", "https://")):
            raise ConfigError(f"--push-contact {self.push_contact!r}: expected mailto:... or https://...")
        if self.public_url is not None:
            parts = urlsplit(self.public_url)
            if (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or parts.query
                or parts.fragment
                or parts.username
                or parts.password
            ):
                raise ConfigError(
                    f"--public-url {self.public_url!r}: expected http(s)://host[:port][/prefix], "
                    "e.g. https://lexio.example.org"
                )
            object.__setattr__(self, "public_url", self.public_url.rstrip("/"))

    def client_address(self, peer: str | None, forwarded_for: str | None) -> str:
        """The client's address: ``peer`` (the TCP peer), or, when ``peer`` is a trusted proxy, the
        rightmost ``X-Forwarded-For`` entry that is not one (entries to its left can be forged by the
        client; as nginx's ``real_ip_recursive``). Addresses come back normalised (``::ffff:1.2.3.4`` as
        ``1.2.3.4``, ports dropped). Never raises: junk in the header ends the walk."""
        if peer is None:
            return "?"
        ip = _parse_ip(peer)
        if ip is None:
            return peer
        if not self.trusted_proxies or not self._trusted(ip):
            return str(ip)
        for entry in reversed((forwarded_for or "").split(",")):
            hop = _parse_ip(entry)
            if hop is None:
                break
            ip = hop
            if not self._trusted(hop):
                break
        return str(ip)

    def _trusted(self, ip: IPv4Address | IPv6Address) -> bool:
        return any(ip in net for net in self.trusted_proxies)

    @property
    def journal_name(self) -> str:
        """Where the journal is, for logs: the SQLite file, or the PostgreSQL URL without its password."""
        return str(self.db) if self.journal_url is None else redact_url(self.journal_url)

    @property
    def cluster(self) -> bool:
        """Several relays share the PostgreSQL journal (``--bus`` given)."""
        return self.bus_url is not None

    @property
    def public_origin(self) -> str | None:
        """``scheme://host[:port]`` of ``public_url`` (what a browser sends as ``Origin``), or None."""
        if self.public_url is None:
            return None
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}".lower()


def _parse_ip(text: str) -> IPv4Address | IPv6Address | None:
    """An address as peers and proxies write it (``1.2.3.4``, ``1.2.3.4:5555``, ``[::1]:80``, ``::1``,
    IPv4-mapped IPv6), or None."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        ip = ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def parse_networks(values: Sequence[str]) -> tuple[IPv4Network | IPv6Network, ...]:
    """``127.0.0.1``, ``10.0.0.0/8``, ``::1``… as networks. Raises ConfigError for anything else."""
    nets = []
    for value in values:
        try:
            nets.append(ip_network(value.strip(), strict=False))
        except ValueError as exc:
            raise ConfigError(f"--trusted-proxy {value!r}: expected an IP address or network") from exc
    return tuple(nets)


def _listed(flags: Sequence[str] | None, env_name: str) -> list[str]:
    """A repeatable flag's values, then the comma-separated ones of its environment variable (added)."""
    return [*(flags or ()), *(v.strip() for v in (_env(env_name) or "").split(",") if v.strip())]


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lexio", description="Lexio relay server")
    sub = parser.add_subparsers(dest="command", required=True)
    # Dispatched by relay.cli before this parser runs; listed here for ``lexio --help``.
    sub.add_parser(
        "export-journal", help="copy a SQLite journal into PostgreSQL (see its --help)", add_help=False
    )
    serve = sub.add_parser("serve", help="run the relay (HTTP + WebSocket)")
    # Env values are string defaults: argparse converts them with each flag's `type`, so a bad LEXIO_PORT
    # is a usage error naming --port (exit 2), not a traceback.
    e = os.environ.get
    serve.add_argument("--host", default=e("LEXIO_HOST", "127.0.0.1"), help="bind address [LEXIO_HOST]")
    serve.add_argument("--port", type=int, default=e("LEXIO_PORT", "8080"), help="port [LEXIO_PORT]")
    serve.add_argument(
        "--db",
        default=e("LEXIO_DB", "var/lexio.sqlite3"),
        help="the journal: a SQLite file, or a postgresql://user@host/dbname URL [LEXIO_DB]",
    )
    serve.add_argument(
        "--bus",
        default=e("LEXIO_BUS") or None,
        metavar="URL",
        help="cluster mode: redis://host:port/db relaying frames between relays sharing a postgresql:// "
        "--db [LEXIO_BUS]",
    )
    serve.add_argument(
        "--node-name",
        default=e("LEXIO_NODE_NAME") or None,
        help="this relay's name in a cluster (default host:port) [LEXIO_NODE_NAME]",
    )
    serve.add_argument(
        "--lexicon",
        action="append",
        help="word list: a name (fr) or a file; repeat it, or join paths with ':', for the union of several "
        "files [LEXIO_LEXICON]",
    )
    serve.add_argument(
        "--static", default=e("LEXIO_STATIC", "web/dist"), help="built web app folder [LEXIO_STATIC]"
    )
    serve.add_argument(
        "--turn-seconds",
        type=int,
        default=e("LEXIO_TURN_SECONDS", "120"),
        help="default turn time, 30-600 [LEXIO_TURN_SECONDS]",
    )
    serve.add_argument(
        "--grace-seconds",
        type=float,
        default=e("LEXIO_GRACE_SECONDS", "10"),
        help="disconnect grace on turn [LEXIO_GRACE_SECONDS]",
    )
    serve.add_argument(
        "--waiting-grace-seconds",
        type=float,
        default=e("LEXIO_WAITING_GRACE_SECONDS", "120"),
        help="before the start, free a seat disconnected this long [LEXIO_WAITING_GRACE_SECONDS]",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        help="extra allowed WebSocket Origin, repeatable [LEXIO_ALLOW_ORIGIN, comma-separated]",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=None,
        help="reverse proxy (address or network) whose X-Forwarded-For gives the client address, "
        "repeatable [LEXIO_TRUSTED_PROXIES, comma-separated]",
    )
    serve.add_argument(
        "--public-url",
        default=e("LEXIO_PUBLIC_URL") or None,
        metavar="URL",
        help="the address players use, e.g. https://lexio.example.org behind a TLS reverse proxy: "
        "table links are built from it (else from the request, so http:// behind a proxy) and its "
        "origin may open game sockets [LEXIO_PUBLIC_URL]",
    )
    serve.add_argument(
        "--log-json", action="store_true", default=_truthy(e("LEXIO_LOG_JSON")), help="JSON-lines logs"
    )
    serve.add_argument("--log-level", default=e("LEXIO_LOG_LEVEL", "INFO"))
    serve.add_argument(
        "--test-seed",
        type=int,
        default=e("LEXIO_TEST_SEED") or None,
        help="TESTS ONLY: deterministic bag; needs --allow-test-seed [LEXIO_TEST_SEED]",
    )
    serve.add_argument(
        "--allow-test-seed",
        action="store_true",
        default=_truthy(e("LEXIO_ALLOW_TEST_SEED")),
        help="permit --test-seed [LEXIO_ALLOW_TEST_SEED=1]",
    )
    serve.add_argument(
        "--tick-seconds", type=float, default=e("LEXIO_TICK_SECONDS", "0.2"), help=argparse.SUPPRESS
    )
    serve.add_argument(
        "--bot-delay-seconds",
        default=e("LEXIO_BOT_DELAY_SECONDS", "1.0,2.5"),
        help="bot thinking pause range 'min,max' [LEXIO_BOT_DELAY_SECONDS]",
    )
    serve.add_argument(
        "--db-synchronous",
        choices=("normal", "full"),
        default=e("LEXIO_DB_SYNCHRONOUS", "normal"),
        help="SQLite durability: normal survives kill -9, full also a power cut [LEXIO_DB_SYNCHRONOUS]",
    )
    serve.add_argument(
        "--create-burst",
        type=float,
        default=e("LEXIO_CREATE_BURST", "30"),
        help="tables one address may create at once [LEXIO_CREATE_BURST]",
    )
    serve.add_argument(
        "--create-per-second",
        type=float,
        default=e("LEXIO_CREATE_PER_SECOND", "0.5"),
        help="sustained table creations per second per address [LEXIO_CREATE_PER_SECOND]",
    )
    serve.add_argument(
        "--push-service",
        action="append",
        default=None,
        metavar="HOST",
        help="another Web Push service host subscriptions may use (besides the browsers' own), repeatable "
        "[LEXIO_PUSH_SERVICES, comma-separated]",
    )
    serve.add_argument(
        "--push-contact",
        default=e("LEXIO_PUSH_CONTACT") or None,
        metavar="URI",
        help="the host's contact in Web Push requests (VAPID sub): mailto:you@example.org or an https:// "
        "page (default: the https --public-url) [LEXIO_PUSH_CONTACT]",
    )
    serve.add_argument(
        "--push-allow-loopback",
        action="store_true",
        default=_truthy(e("LEXIO_PUSH_ALLOW_LOOPBACK")),
        help="TESTS ONLY: accept push endpoints on 127.0.0.1/localhost over http "
        "[LEXIO_PUSH_ALLOW_LOOPBACK=1]",
    )
    for flag, kind, default, what in HARDENING_FLAGS:
        env = "LEXIO_" + flag.removeprefix("--").upper().replace("-", "_")
        serve.add_argument(flag, type=kind, default=e(env, default), help=f"{what} [{env}]")
    return parser


# (flag, type, default, help): the limits of docs/hosting.md; each has its LEXIO_* variable.
HARDENING_FLAGS: tuple[tuple[str, type, str, str], ...] = (
    ("--output-cap-kib", int, "256", "KiB a game socket may leave unread before it is closed (4002)"),
    ("--resync-burst", float, "10", "snapshots a connection may ask for at once (more wait)"),
    ("--resync-per-second", float, "2", "sustained snapshots per second per connection"),
    ("--probe-burst", float, "30", "unknown-word refusals per address, all tables together"),
    ("--probe-refill-seconds", float, "15", "seconds for one more unknown-word refusal per address"),
    (
        "--account-burst",
        float,
        "10",
        "account attempts per address at once (then slower)",
    ),
    ("--max-waiting-tables", int, "2000", "waiting tables with nobody connected, relay-wide"),
    ("--unjoined-table-seconds", float, "600", "life of a table nobody sat at"),
    ("--max-connections-per-address", int, "64", "concurrent TCP connections per client address"),
    ("--max-pending-per-address", int, "32", "connections per address that have not sent a request yet"),
    ("--request-timeout-seconds", float, "10", "time to send request headers, or a body"),
)


def config_from_args(argv: Sequence[str] | None = None) -> Config:
    """Parse ``lexio serve ...`` flags (env vars are the defaults). Raises ConfigError for a bad setting."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db_synchronous not in ("normal", "full"):  # argparse checks choices of flags, not of defaults
        raise ConfigError(f"LEXIO_DB_SYNCHRONOUS {args.db_synchronous!r}: must be normal or full")
    if args.test_seed is not None and not args.allow_test_seed:
        raise ConfigError(
            "--test-seed/LEXIO_TEST_SEED makes the bag predictable and is for tests only: "
            "refusing to start without --allow-test-seed (or LEXIO_ALLOW_TEST_SEED=1)"
        )
    origins = _listed(args.allow_origin, "LEXIO_ALLOW_ORIGIN")
    proxies = _listed(args.trusted_proxy, "LEXIO_TRUSTED_PROXIES")
    try:
        low, high = (float(x) for x in str(args.bot_delay_seconds).split(","))
    except ValueError as exc:
        raise ConfigError(f"--bot-delay-seconds {args.bot_delay_seconds!r}: expected 'min,max'") from exc
    static = Path(args.static) if args.static else None
    url = args.db if is_postgres_url(str(args.db)) else None
    if url is None and "://" in str(args.db):
        raise ConfigError(f"--db {args.db!r}: expected a SQLite file or a postgresql:// URL")
    return Config(
        host=args.host,
        port=args.port,
        db=Config.db if url else Path(args.db),
        journal_url=url,
        bus_url=args.bus,
        node_name=args.node_name,
        # Several files travel as one os.pathsep-joined spec, which relay.lexicon.load_lexicon splits.
        lexicon=os.pathsep.join(args.lexicon) if args.lexicon else _env("LEXIO_LEXICON") or "fr",
        static=static,
        turn_seconds=args.turn_seconds,
        grace_seconds=args.grace_seconds,
        waiting_grace_seconds=args.waiting_grace_seconds,
        allow_origins=tuple(o.rstrip("/") for o in origins),
        log_json=args.log_json,
        log_level=args.log_level.upper(),
        test_seed=args.test_seed,
        tick_seconds=args.tick_seconds,
        bot_delay_seconds=(low, high),
        create_burst=args.create_burst,
        create_per_second=args.create_per_second,
        db_synchronous_full=args.db_synchronous == "full",
        public_url=args.public_url,
        trusted_proxies=parse_networks(proxies),
        output_cap_kib=args.output_cap_kib,
        resync_burst=args.resync_burst,
        resync_per_second=args.resync_per_second,
        probe_burst=args.probe_burst,
        probe_refill_seconds=args.probe_refill_seconds,
        account_burst=args.account_burst,
        max_waiting_tables=args.max_waiting_tables,
        unjoined_table_seconds=args.unjoined_table_seconds,
        max_connections_per_address=args.max_connections_per_address,
        max_pending_per_address=args.max_pending_per_address,
        request_timeout_seconds=args.request_timeout_seconds,
        push_services=(
            *PUSH_SERVICES,
            *(h.strip().lower() for h in _listed(args.push_service, "LEXIO_PUSH_SERVICES")),
        ),
        push_contact=args.push_contact,
        push_allow_loopback=args.push_allow_loopback,
    )
