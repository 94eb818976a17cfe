"""The browsers paired with the device: long-lived random tokens, kept only as hashes.

A token is 32 random bytes; the browser holds it in an HttpOnly cookie and the device keeps
its SHA-256 in ``web-tokens.json`` in the data directory, so the file alone never lets anyone
in. A slow password hash buys nothing here: a 256-bit random token cannot be guessed. The file
is replaced atomically on every change, so a power cut leaves the old list or the new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.files import write_text_atomically

FORMAT = "gobblet-companion/web-tokens"
TOKENS_FILE = "web-tokens.json"
MAX_LABEL = 80
TOUCH_EVERY = 3600.0  # seconds: "last used" is written at most this often per token


@dataclass(frozen=True)
class TokenEntry:
    id: str  # short, public: names the token in lists and revocations
    digest: str  # SHA-256 of the token, hex
    label: str  # the browser that asked (its user agent, cut short)
    created: float
    last_used: float


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenStore:
    """``web-tokens.json``: read at start, written whole on every change."""

    def __init__(self, path: Path, clock: object = time.time) -> None:
        self.path = path
        self._clock = clock if callable(clock) else time.time
        self._lock = threading.Lock()
        self._stamp: float | None = None
        self._entries: dict[str, TokenEntry] = self._load()

    def _mtime(self) -> float | None:
        try:
            return self.path.stat().st_mtime_ns / 1e9
        except OSError:
            return None

    def _refresh(self) -> None:
        """Another process (``gobblet-companion web tokens --revoke``) changed the file: read it
        again, so a revoked browser is out at once. Called with the lock held."""
        if self._mtime() != self._stamp:
            with contextlib.suppress(CompanionError):
                self._entries = self._load()

    def _load(self) -> dict[str, TokenEntry]:
        self._stamp = self._mtime()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise CompanionError(
                f"cannot read the paired browsers in {self.path} ({error}): "
                "move the file aside (every browser then pairs again)"
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CompanionError(f"{self.path} is not a list of paired browsers: move it aside")
        try:
            entries = [TokenEntry(**entry) for entry in data.get("tokens", [])]
        except TypeError as error:
            raise CompanionError(f"{self.path} has a damaged entry ({error}): move it aside") from None
        return {entry.id: entry for entry in entries}

    def _save(self) -> None:
        data = {"format": FORMAT, "tokens": [asdict(e) for e in self._entries.values()]}
        try:
            write_text_atomically(self.path, json.dumps(data, indent=1), mode=0o600)
            self._stamp = self._mtime()
        except OSError as error:
            raise CompanionError(f"cannot write {self.path}: {error.strerror or error}") from None

    def entries(self) -> list[TokenEntry]:
        with self._lock:
            self._refresh()
            return sorted(self._entries.values(), key=lambda e: e.created)

    def issue(self, label: str) -> tuple[TokenEntry, str]:
        """A new token for a browser just paired: (its entry, the token itself, shown once)."""
        token = secrets.token_urlsafe(32)
        now = self._clock()
        with self._lock:
            token_id = secrets.token_hex(4)
            while token_id in self._entries:
                token_id = secrets.token_hex(4)
            entry = TokenEntry(token_id, digest_of(token), label[:MAX_LABEL], now, now)
            self._entries[token_id] = entry
            self._save()
        return entry, token

    def check(self, token: str | None) -> TokenEntry | None:
        """The entry of a valid token, or None; compared in constant time."""
        if not token or len(token) > 200:
            return None
        wanted = digest_of(token)
        with self._lock:
            self._refresh()
            found = next((e for e in self._entries.values() if hmac.compare_digest(e.digest, wanted)), None)
            if found is not None and self._clock() - found.last_used > TOUCH_EVERY:
                found = TokenEntry(**{**asdict(found), "last_used": self._clock()})
                self._entries[found.id] = found
                with contextlib.suppress(CompanionError):  # a read-only disk must not lock anyone out
                    self._save()
        return found

    def revoke(self, token_id: str) -> TokenEntry:
        with self._lock:
            self._refresh()
            entry = self._entries.pop(token_id, None)
            if entry is None:
                raise CompanionError(
                    f"no paired browser {token_id!r}: `gobblet-companion web tokens` lists them"
                )
            self._save()
        return entry
