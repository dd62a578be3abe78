"""A save directory that takes no upload against the real daemon: while every upload would
get 507 (no free bytes above min-free-space, a truly full disk, no free inode, a read-only
mount), `/healthz` answers 503 with the reason, and it answers 200 again once space is
freed. A daemon in `access = read-only` takes no uploads by design: it stays healthy while
its save directory can be read. Real tmpfs mounts (root only)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from http_raw import fetch

HEALTH_CHANGE_TIMEOUT = 10.0
BOUNDARY = "----filedropDiskFull"


@pytest.fixture
def small_tmpfs(tmp_path, request):
    """A tmpfs of 20 MiB (`request.param`: extra mount options), unmounted in teardown."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mountpoint = tmp_path / "small"
    mountpoint.mkdir()
    options = ",".join(["size=20m"] + list(getattr(request, "param", [])))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mountpoint)],
                             capture_output=True, text=True, timeout=10)
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], timeout=10)


def fill(directory: Path) -> Path:
    """Writes a filler file until the file system says ENOSPC (bounded: a 20 MiB tmpfs)."""
    filler = directory / "filler.bin"
    chunk = b"\0" * (1 << 20)
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        for _ in range(64):
            try:
                os.write(descriptor, chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC
                return filler
        pytest.fail("the 20 MiB tmpfs never filled up")
    finally:
        os.close(descriptor)


def fill_inodes(directory: Path) -> list[Path]:
    """Empty files until no inode is left (bounded by the mount's nr_inodes)."""
    made = []
    for index in range(1000):
        path = directory / f"empty-{index}"
        try:
            path.touch()
        except OSError as error:
            assert error.errno == errno.ENOSPC
            return made
        made.append(path)
    pytest.fail("the tmpfs never ran out of inodes")


def health_once(daemon, status: int, accept: str = "text/plain"):
    """`/healthz` once it answers `status`: a reading is reused for up to a second
    (`SaveDirectoryHealth.maxAge`), so a change shows within a few checks (bounded)."""
    deadline = time.monotonic() + HEALTH_CHANGE_TIMEOUT
    while True:
        answer = fetch(daemon.url + "/healthz", headers={"Accept": accept})
        if answer.status == status or time.monotonic() > deadline:
            assert answer.status == status, answer.body
            return answer
        time.sleep(0.1)


def form(name: str, content: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\r\n".encode()
            + content + f"\r\n--{BOUNDARY}--\r\n".encode())


@pytest.mark.parametrize("min_free_space", ["1M", "0"])
def test_healthz_is_503_while_uploads_get_507_and_200_once_space_is_freed(daemon_factory, small_tmpfs, min_free_space):
    daemon = daemon_factory("--save-dir", str(small_tmpfs), "--min-free-space", min_free_space, "--fsync", "false", fill=False)
    assert health_once(daemon, 200).body == b"ok\n"
    filler = fill(small_tmpfs)

    # Every kind of upload is refused, with the sentence a person reads.
    put = fetch(daemon.url + "/files/one-byte.txt", "PUT", {"Accept": "application/json"}, b"x")
    assert put.status == 507, put.body
    assert json.loads(put.body)["error"] == "The server's disk is too full for this upload."
    posted = fetch(daemon.url + "/upload.html", "POST", {"Accept": "application/json",
                                                         "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
                   form("one-byte.txt", b"x"))
    assert posted.status == 507, posted.body

    # The balancer sees what the uploads see: 503 with the same reason, text and JSON.
    answer = health_once(daemon, 503)
    assert answer.body.decode() == ("503 Service Unavailable: The save directory takes no uploads now: "
                                    "The server's disk is too full for this upload.\n")
    assert answer.header("Cache-Control") == "no-store"
    as_json = health_once(daemon, 503, accept="application/json")
    assert json.loads(as_json.body) == {"error": "The save directory takes no uploads now: The server's disk is too full for this upload.",
                                        "status": 503}

    filler.unlink()
    assert health_once(daemon, 200).body == b"ok\n"
    assert fetch(daemon.url + "/files/after.txt", "PUT", {}, b"fits").status == 201
    assert (small_tmpfs / "after.txt").read_bytes() == b"fits"
    assert daemon.temp_files() == []


def test_healthz_is_503_while_min_free_space_is_not_free(daemon_factory, small_tmpfs):
    """Not full at all, but less free than min-free-space keeps: no upload can start."""
    daemon = daemon_factory("--save-dir", str(small_tmpfs), "--min-free-space", "30M", fill=False)
    assert fetch(daemon.url + "/files/a.txt", "PUT", {}, b"x").status == 507
    assert b"too full" in health_once(daemon, 503).body


@pytest.mark.parametrize("small_tmpfs", [["nr_inodes=32"]], indirect=True)
def test_healthz_is_503_without_a_free_inode(daemon_factory, small_tmpfs):
    daemon = daemon_factory("--save-dir", str(small_tmpfs), "--min-free-space", "0", "--fsync", "false", fill=False)
    assert health_once(daemon, 200).status == 200
    made = fill_inodes(small_tmpfs)
    put = fetch(daemon.url + "/files/no-inode.txt", "PUT", {"Accept": "application/json"}, b"x")
    assert put.status == 507, put.body
    assert json.loads(put.body)["error"] == "The server's disk has no room for another file (no free inodes)."
    assert b"no free inodes" in health_once(daemon, 503).body
    for path in made:
        path.unlink()
    health_once(daemon, 200)


def test_read_only_mount_is_503_unless_the_daemon_takes_no_uploads(daemon_factory, small_tmpfs):
    (small_tmpfs / "existing.txt").write_text("still readable")
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True, timeout=10)
    taking = daemon_factory("--save-dir", str(small_tmpfs), "--min-free-space", "0", fill=False)
    assert fetch(taking.url + "/files/new.txt", "PUT", {}, b"data").status == 507
    assert b"read-only" in health_once(taking, 503).body

    # A read-only daemon serves downloads only: a read-only disk is what it needs.
    serving = daemon_factory("--save-dir", str(small_tmpfs), "--access", "read-only", fill=False)
    assert health_once(serving, 200).body == b"ok\n"
    assert fetch(serving.url + "/files/existing.txt").body == b"still readable"


def test_read_only_daemon_on_a_full_disk_is_healthy(daemon_factory, small_tmpfs):
    (small_tmpfs / "existing.txt").write_text("still readable")
    fill(small_tmpfs)
    daemon = daemon_factory("--save-dir", str(small_tmpfs), "--access", "read-only", fill=False)
    assert health_once(daemon, 200).body == b"ok\n"
    assert fetch(daemon.url + "/files/existing.txt").body == b"still readable"
