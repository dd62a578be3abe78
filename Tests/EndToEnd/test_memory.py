"""Issue 23: the daemon's memory comes back after big transfers. Uploads hash in 256 KiB
chunks (up to 2 MiB queued per upload); with glibc's default, freeing the first mmap'd chunk
raised the mmap threshold, later chunks came from the per-thread arenas, and the arenas kept
them: 16 concurrent uploads left 37 MiB of anonymous memory behind. The daemon fixes the
thresholds at start (`DaemonStartup.returnFreedBuffersToTheKernel`).

Anonymous memory (RssAnon) is what is compared: file-backed pages (code the transfers ran
for the first time) are the binary's and the libraries', not buffers.

The release daemon links libstdc++ in (Package.swift): the shared one cost about 1 MiB of RSS
at start for the few functions the Swift runtime calls.
"""

from __future__ import annotations

import concurrent.futures
import os

import pytest

from http_raw import fetch

# Serial (run alone after the others, see pytest.ini): the daemon's resident memory is
# compared before and after 512 MiB of uploads that take both cores.
pytestmark = pytest.mark.serial

UPLOADS = 16
UPLOAD_SIZE = 32 << 20
# What the uploads may leave behind: arenas' small blocks, per-loop buffers made on first use.
ANONYMOUS_GROWTH_LIMIT = 2 << 20


def anonymous_resident_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no RssAnon")


def test_concurrent_uploads_give_their_buffers_back(daemon_factory):
    daemon = daemon_factory("--max-uploads-per-client", str(UPLOADS), "--fsync", "false")
    # One small upload first: code paths and loop buffers made on first use are not the point.
    assert fetch(f"{daemon.url}/files/warm.bin", method="PUT", body=b"warm\n").status == 201
    before = anonymous_resident_bytes(daemon.pid)
    body = os.urandom(UPLOAD_SIZE)

    def upload(index: int) -> int:
        return fetch(f"{daemon.url}/files/big-{index}.bin", method="PUT", body=body, timeout=120).status

    with concurrent.futures.ThreadPoolExecutor(UPLOADS) as pool:
        statuses = list(pool.map(upload, range(UPLOADS)))
    assert statuses == [201] * UPLOADS
    growth = anonymous_resident_bytes(daemon.pid) - before
    assert growth <= ANONYMOUS_GROWTH_LIMIT, f"{growth >> 10} KiB of anonymous memory kept after {UPLOADS} uploads"


def mapped_files(pid: int) -> set[str]:
    with open(f"/proc/{pid}/maps") as maps:
        return {fields[5] for fields in (line.split() for line in maps) if len(fields) > 5}


def test_the_daemon_maps_no_shared_libstdcxx(daemon_factory):
    daemon = daemon_factory()
    assert fetch(f"{daemon.url}/").status == 200
    files = mapped_files(daemon.pid)
    assert any("libc.so" in name for name in files), files
    assert not [name for name in files if "libstdc++" in name]
