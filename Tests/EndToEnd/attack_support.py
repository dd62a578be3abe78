"""Shared pieces of the `test_attack_*.py` files: an honest client that keeps using the
daemon while an attack runs (from another address, [::1], so per-client limits hit by the
attacker on 127.0.0.1 do not apply to it), and a canary tree outside the save directory
that must come out of every attack unchanged.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from http_raw import fetch

BOUNDARY = "----filedropAttack7MA4YWxk"


def multipart(parts: list[tuple[str, str | None, bytes]], boundary: str = BOUNDARY) -> tuple[dict[str, str], bytes]:
    """A multipart/form-data body from (field name, file name or None, content) parts."""
    body = b""
    for field, filename, content in parts:
        disposition = f'form-data; name="{field}"' + (f'; filename="{filename}"' if filename is not None else "")
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode("utf-8", "surrogateescape")
        body += content + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={boundary}", "Accept": "application/json"}, body


def tree(directory: Path) -> dict[str, bytes | str]:
    """Every entry below `directory`: file contents, symlink targets, "dir" for folders."""
    entries: dict[str, bytes | str] = {}
    for path in sorted(directory.rglob("*")):
        key = str(path.relative_to(directory))
        if path.is_symlink():
            entries[key] = "-> " + os.readlink(path)
        elif path.is_dir():
            entries[key] = "dir"
        else:
            entries[key] = path.read_bytes()
    return entries


class Canary:
    """A directory next to the save directory (where `../` lands) plus a file one more level
    up: after the attack both must hold exactly what they held before."""

    def __init__(self, daemon):
        self.daemon = daemon
        self.outside = daemon.workdir / "outside"
        self.outside.mkdir(exist_ok=True)
        (self.outside / "secret.txt").write_bytes(b"outside the save directory\n")
        self.watched = [daemon.workdir.parent, daemon.workdir]
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, bytes | str]:
        # Everything around the save directory except the save directory itself and the
        # daemon's own logs, which grow during the test.
        result = {}
        for root in self.watched:
            for key, value in tree(root).items():
                path = root / key
                if path.is_relative_to(self.daemon.save_dir) or path.name in ("daemon.stderr", "daemon.stdout"):
                    continue
                result[str(path)] = value
        return result

    def assert_untouched(self):
        after = self.snapshot()
        added = sorted(set(after) - set(self.before))
        changed = sorted(key for key in self.before if after.get(key) != self.before[key])
        assert not added and not changed, f"written outside the save directory: added {added}, changed {changed}"


class LegitClient:
    """A thread that downloads a known file over IPv6 again and again while the attack
    runs. Used as a context manager: on exit it checks that every request succeeded (and
    that there were some), then makes one more request after the attack."""

    def __init__(self, daemon, path: str = "/files/plain.txt", expected: bytes = b"hello, filedrop\n",
                 interval: float = 0.05, per_request_timeout: float = 5.0):
        self.daemon = daemon
        self.path = path
        self.expected = expected
        self.interval = interval
        self.per_request_timeout = per_request_timeout
        self.successes = 0
        self.failures: list[str] = []
        self.slowest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _once(self) -> str | None:
        started = time.monotonic()
        try:
            response = fetch(self.daemon.url6 + self.path, timeout=self.per_request_timeout)
        except Exception as error:  # noqa: BLE001 - any failure of the honest client counts
            return f"{type(error).__name__}: {error}"
        self.slowest = max(self.slowest, time.monotonic() - started)
        if response.status != 200 or response.body != self.expected:
            return f"{response.status} {response.body[:80]!r}"
        return None

    def _run(self):
        while not self._stop.is_set():
            failure = self._once()
            if failure is None:
                self.successes += 1
            else:
                self.failures.append(failure)
            self._stop.wait(self.interval)

    def __enter__(self) -> "LegitClient":
        self._thread.start()
        return self

    def __exit__(self, kind, value, traceback):
        self._stop.set()
        self._thread.join(timeout=self.per_request_timeout + 5)
        if kind is not None:
            return False
        assert not self.failures, f"the honest client failed during the attack: {self.failures[:5]}"
        assert self.successes > 0, "the honest client got no request through during the attack"
        after = self._once()
        assert after is None, f"the honest client failed after the attack: {after}"
        return False
