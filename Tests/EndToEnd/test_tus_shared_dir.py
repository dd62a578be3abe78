"""Several daemons on one save directory (issue 20), no balancer: the test talks to each
daemon's port. The upload's record and partial file are the truth for every daemon: one
created on A after B started is continued on B; two PATCHes at the same offset through A
and B cannot both write (the loser gets 423 Locked, or 409 when the winner had already
finished); a daemon killed mid-PATCH leaves the offset on disk for the other; an expired
upload is removed once, by whichever daemon looks first.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import pytest

from test_tus import PATCH_TYPE, TUS, TUS_FOLDER, create, head, patch, tus_url

CHUNK = 4 * 1024 * 1024


@pytest.fixture
def shared_dir(tmp_path):
    path = tmp_path / "shared"
    path.mkdir()
    return path


def start_on(daemon_factory, shared_dir, *args: str):
    """A daemon on `shared_dir` (the last --save-dir wins over the fixture's own)."""
    daemon = daemon_factory(*args, "--save-dir", str(shared_dir), fill=False)
    daemon.save_dir = shared_dir
    return daemon


def partial_size(shared_dir, location: str) -> int:
    return (shared_dir / TUS_FOLDER / (location.rsplit("/", 1)[1] + ".part")).stat().st_size


def offset_on(daemon, location: str) -> int:
    status = head(daemon, location)
    assert status.status == 200, status
    return int(status.header("Upload-Offset"))


class SlowPatch:
    """A PATCH sent by hand: its head and part of its body now, the rest when asked, so the
    request holds the upload's lock as long as the test wants."""

    def __init__(self, daemon, location: str, offset: int, body: bytes):
        self.body = body
        self.sent = 0
        self.socket = socket.create_connection(("127.0.0.1", daemon.port), timeout=30)
        path = tus_url(daemon, location).split(str(daemon.port), 1)[1]
        headers = dict(TUS, **PATCH_TYPE, **{"Upload-Offset": str(offset), "Content-Length": str(len(body)),
                                             "Host": f"127.0.0.1:{daemon.port}"})
        head_text = f"PATCH {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        self.socket.sendall(head_text.encode())

    def send(self, count: int):
        self.socket.sendall(self.body[self.sent:self.sent + count])
        self.sent += count

    def finish(self) -> int:
        self.send(len(self.body) - self.sent)
        status_line = b""
        while not status_line.endswith(b"\r\n"):
            byte = self.socket.recv(1)
            assert byte, "the daemon closed the connection without an answer"
            status_line += byte
        self.socket.close()
        return int(status_line.split()[1])


def wait_for_size(shared_dir, location: str, size: int, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while partial_size(shared_dir, location) < size:
        assert time.monotonic() < deadline, f"partial file at {partial_size(shared_dir, location)}, waited for {size}"
        time.sleep(0.02)


def test_upload_created_after_the_other_daemon_started_continues_there(daemon_factory, shared_dir):
    first = start_on(daemon_factory, shared_dir)
    second = start_on(daemon_factory, shared_dir)
    content = os.urandom(3 * CHUNK + 17)
    created = create(first, len(content), name="continued.bin")
    assert created.status == 201
    location = created.header("Location")
    assert patch(first, location, 0, content[:CHUNK]).status == 204
    assert offset_on(second, location) == CHUNK
    assert patch(second, location, CHUNK, content[CHUNK:2 * CHUNK]).status == 204
    # And back: the first daemon takes over what the second wrote.
    assert offset_on(first, location) == 2 * CHUNK
    assert patch(first, location, 2 * CHUNK, content[2 * CHUNK:]).status == 204
    assert (shared_dir / "continued.bin").read_bytes() == content
    assert not any((shared_dir / TUS_FOLDER).iterdir())
    assert head(second, location).status == 404


def test_a_patch_while_another_daemon_writes_is_refused_with_423(daemon_factory, shared_dir):
    first = start_on(daemon_factory, shared_dir)
    second = start_on(daemon_factory, shared_dir)
    content = os.urandom(2 * CHUNK)
    location = create(first, len(content), name="contested.bin").header("Location")
    slow = SlowPatch(first, location, 0, content[:CHUNK])
    slow.send(CHUNK // 2)
    wait_for_size(shared_dir, location, 1)
    refused = patch(second, location, 0, content[:CHUNK])
    assert refused.status == 423, refused
    assert b"Another request is writing this upload" in refused.body
    assert slow.finish() == 204
    assert offset_on(second, location) == CHUNK
    assert patch(second, location, CHUNK, content[CHUNK:]).status == 204
    assert (shared_dir / "contested.bin").read_bytes() == content


def test_two_patches_at_the_same_offset_at_once_exactly_one_wins(daemon_factory, shared_dir):
    first = start_on(daemon_factory, shared_dir)
    second = start_on(daemon_factory, shared_dir)
    content = os.urandom(2 * CHUNK)
    location = create(first, len(content), name="raced.bin").header("Location")
    # Each daemon gets a different body for the same bytes: the file shows whose was kept.
    bodies = {first: content[:CHUNK], second: os.urandom(CHUNK)}
    results = {}
    threads = [threading.Thread(target=lambda d=d: results.__setitem__(d, patch(d, location, 0, bodies[d]))) for d in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    statuses = sorted(response.status for response in results.values())
    assert statuses[0] == 204 and statuses[1] in (409, 423), statuses
    winner = next(d for d, response in results.items() if response.status == 204)
    assert offset_on(first, location) == CHUNK
    rest = content[CHUNK:]
    assert patch(second, location, CHUNK, rest).status == 204
    assert (shared_dir / "raced.bin").read_bytes() == bodies[winner] + rest


def test_daemon_killed_mid_patch_leaves_its_offset_to_the_other(daemon_factory, shared_dir):
    first = start_on(daemon_factory, shared_dir)
    second = start_on(daemon_factory, shared_dir)
    content = os.urandom(3 * CHUNK)
    location = create(first, len(content), name="survivor.bin").header("Location")
    slow = SlowPatch(first, location, 0, content)
    slow.send(CHUNK + 12345)
    wait_for_size(shared_dir, location, CHUNK)
    os.kill(first.pid, signal.SIGKILL)
    first.process.wait(timeout=10)
    on_disk = partial_size(shared_dir, location)
    assert CHUNK <= on_disk <= CHUNK + 12345
    # The dead daemon's lock went with its process: the other one serves the upload at once.
    assert offset_on(second, location) == on_disk
    assert patch(second, location, on_disk, content[on_disk:]).status == 204
    assert (shared_dir / "survivor.bin").read_bytes() == content
    slow.socket.close()
    first.notifications.clear()
    first.start()


def test_an_expired_upload_is_removed_once(daemon_factory, shared_dir):
    # Long enough that a loaded machine still creates, writes and reads the upload back
    # before it expires; the sleep then outlasts it from the last write.
    first = start_on(daemon_factory, shared_dir, "--tus-expiration", "5s")
    second = start_on(daemon_factory, shared_dir, "--tus-expiration", "5s")
    location = create(first, 1000, name="abandoned.bin").header("Location")
    assert patch(first, location, 0, b"x" * 100).status == 204
    assert offset_on(second, location) == 100
    time.sleep(6.2)
    answers = {}
    threads = [threading.Thread(target=lambda d=d: answers.__setitem__(d, head(d, location).status)) for d in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert list(answers.values()) == [404, 404]
    assert not any((shared_dir / TUS_FOLDER).iterdir())
    removals = [line for daemon in (first, second) for line in daemon.stderr_text().splitlines() if "expired after" in line]
    assert len(removals) == 1, removals
