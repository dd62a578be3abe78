"""A disk that fills up under a resumable upload, against the real daemon on a small tmpfs
of its own (mounted for the test, unmounted in teardown; skipped where mounting is not
allowed): the 507's sentence names the offset the upload is kept at, and that offset must
be the one HEAD reports and the partial file holds, so the client resumes where the server
really is, even when the write that failed had put part of its bytes on the disk.
"""

from __future__ import annotations

import os
import re
import select
import subprocess

import pytest

from conftest import Daemon
from http_raw import RawConnection, build_request, fetch

MIB = 1 << 20
SIZE = 3 * MIB


@pytest.fixture
def small_disk_daemon(tmp_path):
    """A daemon whose save directory is a 4 MiB tmpfs; no free-space margin, so the disk
    really fills."""
    workdir = tmp_path / "daemon"
    workdir.mkdir()
    daemon = Daemon(workdir, ["--min-free-space", "0", "--fsync=false"], fill=False)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(daemon.save_dir)],
                             capture_output=True, text=True, timeout=30)
    if mounted.returncode != 0:
        daemon.cleanup()
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        daemon.start()
        yield daemon
        daemon.stop()
    finally:
        subprocess.run(["umount", "--lazy", str(daemon.save_dir)], capture_output=True, timeout=30)
        daemon.cleanup()


def create(daemon, length: int) -> str:
    created = fetch(daemon.url + "/files/", "POST", headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(length),
                                                              "Upload-Metadata": "filename ZmlsbC5iaW4="})
    assert created.status == 201, created
    return created.header("Location").split("127.0.0.1:%d" % daemon.port, 1)[1]


def patch_head(path: str, length: int) -> bytes:
    return build_request("PATCH", path, headers=[("Tus-Resumable", "1.0.0"), ("Upload-Offset", "0"),
                                                  ("Content-Type", "application/offset+octet-stream"),
                                                  ("Expect", "100-continue"), ("Content-Length", str(length))])


def send_until_answered(connection: RawConnection, body: bytes):
    """Sends `body` in pieces, stopping as soon as the server answers (a 507 mid-body), so
    the answer is read before a reset could discard it."""
    piece = 64 * 1024
    for start in range(0, len(body), piece):
        readable, _, _ = select.select([connection.sock], [], [], 0)
        if readable:
            return
        try:
            connection.sock.sendall(body[start:start + piece])
        except (BrokenPipeError, ConnectionResetError):
            return


def test_a_full_disk_mid_patch_names_the_offset_head_reports(small_disk_daemon):
    daemon = small_disk_daemon
    # Two 3 MiB uploads on a 4 MiB disk: each passes the room check before either writes
    # (both wait for 100 Continue first), so the second runs out of space mid-body.
    paths = [create(daemon, SIZE), create(daemon, SIZE)]
    connections = [RawConnection.open(("127.0.0.1", daemon.port), timeout=20) for _ in paths]
    try:
        for connection, path in zip(connections, paths):
            connection.send(patch_head(path, SIZE))
        for connection in connections:
            assert connection.read_response().status == 100
        answers = []
        for connection in connections:
            send_until_answered(connection, os.urandom(SIZE))
            answers.append(connection.read_response(timeout=20))
    finally:
        for connection in connections:
            connection.close()
    statuses = [answer.status for answer in answers]
    assert statuses[0] == 204 and statuses[1] == 507, answers
    message = answers[1].body.decode()
    kept = re.search(r"kept at byte (\d+)", message)
    assert kept, message
    said = int(kept.group(1))
    # What HEAD says, and what the partial file holds, is what the sentence said.
    head = fetch(daemon.url + paths[1], "HEAD", headers={"Tus-Resumable": "1.0.0"})
    assert int(head.header("Upload-Offset")) == said, (message, head)
    upload_id = paths[1].rsplit("/", 1)[1]
    partial = daemon.save_dir / ".filedrop-tus" / (upload_id + ".part")
    assert partial.stat().st_size == said, message
    # Room again (the first upload's file goes): the upload goes on from that very offset.
    for stored in daemon.save_dir.glob("fill*.bin"):
        stored.unlink()
    resumed = fetch(daemon.url + paths[1], "PATCH", body=os.urandom(SIZE - said), headers={
        "Tus-Resumable": "1.0.0", "Upload-Offset": str(said), "Content-Type": "application/offset+octet-stream"})
    assert resumed.status == 204, resumed
    assert int(resumed.header("Upload-Offset")) == SIZE
