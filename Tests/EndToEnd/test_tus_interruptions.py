"""tus uploads whose connection breaks: a proxy (tcp_cutter.py) between the client and the
daemon closes the connection after 30% or 70% of the file, the client asks HEAD for the
Upload-Offset and sends the rest with a new PATCH, and the file lands byte-identical. An
upload left alone past `--tus-expiration` is gone (404) and so is its partial data.
The daemon killed with SIGKILL mid-upload is test_tus.py's tuspy crash test.
"""

from __future__ import annotations

import http.client
import os
import time
from urllib.parse import urlsplit

import pytest

from http_raw import fetch
from tcp_cutter import CuttingProxy
from test_tus import PATCH_TYPE, TUS, create, head, patch, tus_files, tus_url

FILE_BYTES = 24 * 1024 * 1024


def patch_via(proxy: CuttingProxy, location: str, offset: int, body: bytes) -> int | None:
    """One PATCH of `body` at `offset` through the proxy: its status, None if the connection broke."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    try:
        connection.request("PATCH", urlsplit(location).path, body=body,
                           headers=dict(TUS, **PATCH_TYPE, **{"Upload-Offset": str(offset)}))
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def upload_with_resume(daemon, proxy: CuttingProxy, location: str, content: bytes) -> list[int]:
    """Sends `content` through the proxy, resuming from HEAD's Upload-Offset after each
    break; returns the offsets it resumed from."""
    resumed_from = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = head(daemon, location)
        assert status.status == 200, status
        offset = int(status.header("Upload-Offset"))
        if offset == len(content):
            return resumed_from
        result = patch_via(proxy, location, offset, content[offset:])
        if offset and result in (None, 204):
            resumed_from.append(offset)
        if result == 204:
            return resumed_from
        # None: the proxy cut it. 409/423: the daemon has not yet noticed the old
        # connection close (its offset or write lock is about to move); ask again.
        assert result in (None, 409, 423), result
        if result is not None:
            time.sleep(0.05)
    pytest.fail("upload did not finish within 60 s")


@pytest.mark.parametrize("cut_fractions", [[0.3], [0.7], [0.3, 0.7]], ids=["30%", "70%", "30%+70%"])
def test_cut_connection_resumes_byte_identical(daemon, cut_fractions):
    content = os.urandom(FILE_BYTES)
    created = create(daemon, len(content), name="cut.bin")
    assert created.status == 201
    location = created.header("Location")
    proxy = CuttingProxy(("127.0.0.1", daemon.port), [int(FILE_BYTES * f) for f in cut_fractions])
    try:
        resumed_from = upload_with_resume(daemon, proxy, location, content)
    finally:
        proxy.close()
    assert proxy.cut_count == len(cut_fractions)
    assert len(resumed_from) >= len(cut_fractions)
    # What the daemon had read before each cut was kept: every resume starts past the
    # previous one and no later than the cut (bytes still in the daemon's socket buffer
    # when the connection closed may be dropped; a real radio drop loses those anyway).
    previous = 0
    for fraction, offset in zip(cut_fractions, resumed_from):
        assert previous < offset <= FILE_BYTES * fraction, (fraction, offset, resumed_from)
        previous = offset
    assert (daemon.save_dir / "cut.bin").read_bytes() == content
    assert tus_files(daemon) == []


# Expiry counts whole seconds from the last write, so an upload may go up to a second early:
# 3 s leaves the first PATCH 2 s to arrive on a loaded machine.
EXPIRATION = 3


def test_expired_upload_is_404_and_its_data_is_gone(daemon_factory):
    daemon = daemon_factory("--tus-expiration", f"{EXPIRATION}s")
    location = create(daemon, 10, name="late.bin").header("Location")
    assert patch(daemon, location, 0, b"12345").status == 204
    assert len(tus_files(daemon)) >= 1
    # Expiry is checked on access too: no waiting for the once-a-minute sweep.
    time.sleep(EXPIRATION + 1.1)
    assert head(daemon, location).status in (404, 410)
    assert tus_files(daemon) == []
    assert patch(daemon, location, 5, b"67890").status in (404, 410)
    assert fetch(tus_url(daemon, location), method="DELETE", headers=TUS).status in (404, 410)
    assert not (daemon.save_dir / "late.bin").exists()


def test_expired_upload_refuses_a_patch_first(daemon_factory):
    daemon = daemon_factory("--tus-expiration", f"{EXPIRATION}s")
    location = create(daemon, 10, name="later.bin").header("Location")
    assert patch(daemon, location, 0, b"12345").status == 204
    time.sleep(EXPIRATION + 1.1)
    assert patch(daemon, location, 5, b"67890").status in (404, 410)
    assert tus_files(daemon) == []
    assert not (daemon.save_dir / "later.bin").exists()
