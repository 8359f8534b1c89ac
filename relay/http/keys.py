"""Typed application keys: what the relay's views and middlewares read from the app."""

from __future__ import annotations

from aiohttp import web

from relay.accounts.service import Accounts
from relay.cluster.bus import Bus
from relay.cluster.relaying import EdgeSide, Locate
from relay.config import Config
from relay.http.limits import AccountLimits, Limits
from relay.http.static import StaticSite
from relay.http.ws import Hub
from relay.metrics import Metrics
from relay.tables import Referee

CONFIG_KEY = web.AppKey("config", Config)
REFEREE_KEY = web.AppKey("referee", Referee)
METRICS_KEY = web.AppKey("metrics", Metrics)
STATIC_KEY = web.AppKey("static", StaticSite)
HUB_KEY = web.AppKey("ws_hub", Hub)
# Cluster mode only (relay/cluster/bus.py, relay/cluster/relaying.py): the Redis bus, its edge side, where
# tables live.
BUS_KEY = web.AppKey("bus", Bus)
EDGE_KEY = web.AppKey("edge", EdgeSide)
LOCATE_KEY: web.AppKey[Locate] = web.AppKey("locate")
LIMITS_KEY = web.AppKey("limits", Limits)
# Player accounts (relay/accounts/, relay/http/accounts.py): the service, and its per-address budgets.
ACCOUNTS_KEY = web.AppKey("accounts", Accounts)
ACCOUNT_LIMITS_KEY = web.AppKey("account_limits", AccountLimits)
