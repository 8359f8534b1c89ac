"""The accounts' refusals: each has a stable machine code, an HTTP status and a message for people."""

from __future__ import annotations


class AccountError(ValueError):
    """A refused account request. ``code`` is stable (docs/protocol.md, "Accounts"); ``status`` the HTTP
    status the views answer with; ``retry_after`` seconds for a rate limit."""

    def __init__(
        self, code: str, message: str, *, status: int = 400, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
