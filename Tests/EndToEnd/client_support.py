"""Helpers of the tests that drive real clients: curl with bounded time, random content."""

import os
import subprocess

CURL_TIMEOUT = 30


def curl(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """curl with bounded time; `-w` output lands in stdout."""
    return subprocess.run(["curl", "--http1.1", "--silent", "--show-error", "--max-time", "20", *args],
                          input=stdin, capture_output=True, timeout=CURL_TIMEOUT, check=False)


def random_bytes(size: int) -> bytes:
    return os.urandom(size)
