"""What a tus upload is once every byte is in, against the real daemon: killed with SIGKILL
between the last byte and its response, the daemon saves the file when it starts again;
a save that fails for a reason that may pass (an immutable folder) keeps the data and a
retry finishes it; and a 429 leaves neither a tus record nor an "upload started" line.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import time
from urllib.parse import urlsplit

import pytest

from http_raw import build_request, fetch
from test_tus import PATCH_TYPE, TUS, TUS_FOLDER, create, head, patch, tus_files


def relative_metadata(path: str) -> str:
    return "relativePath " + base64.b64encode(path.encode()).decode()


def part_size(daemon, upload_id: str) -> int | None:
    try:
        return (daemon.save_dir / TUS_FOLDER / f"{upload_id}.part").stat().st_size
    except FileNotFoundError:
        return None


def test_sigkill_after_the_last_byte_is_saved_on_restart(daemon, tmp_path):
    # A big last chunk with fsync on (the default): fsync and rename take long enough for
    # the kill to land before the publish most of the time. Either way, after the restart
    # the file must be there, byte-identical, and HEAD must say complete.
    content = os.urandom(48 * 1024 * 1024)
    first = 1024 * 1024
    created = create(daemon, len(content), name="killed.bin")
    assert created.status == 201, created
    location = created.header("Location")
    upload_id = location.rsplit("/", 1)[1]
    assert patch(daemon, location, 0, content[:first]).status == 204

    connection = daemon.connect(timeout=30)
    headers = [(name, value) for name, value in {**TUS, **PATCH_TYPE, "Upload-Offset": str(first)}.items()]
    connection.send(build_request("PATCH", urlsplit(location).path, headers=headers, body=content[first:]))
    # Every byte written by the daemon (visible in the partial file at once), or the file
    # already moved to its name: kill now, before the response.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        size = part_size(daemon, upload_id)
        if size is None or size == len(content):
            break
        time.sleep(0.001)
    else:
        pytest.fail("the daemon never received the last chunk")
    os.kill(daemon.pid, signal.SIGKILL)
    daemon.process.wait(timeout=10)
    killed_before_publish = not (daemon.save_dir / "killed.bin").exists()
    connection.close()
    daemon.notifications.clear()
    daemon.start()

    assert (daemon.save_dir / "killed.bin").read_bytes() == content, \
        f"killed {'before' if killed_before_publish else 'after'} the publish"
    status = head(daemon, location)
    assert status.status == 200
    assert status.header("Upload-Offset") == str(len(content)) == status.header("Upload-Length")
    assert tus_files(daemon) == []
    if killed_before_publish:
        assert "saved 1 resumable upload(s)" in daemon.stderr_text()


def can_make_immutable(path) -> bool:
    probe = path / "probe"
    probe.mkdir()
    try:
        return subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode == 0
    finally:
        subprocess.run(["chattr", "-i", str(probe)], capture_output=True)
        probe.rmdir()


@pytest.fixture
def immutable_folder(daemon):
    """`<save>/locked/`, immutable (chattr +i) while the test runs: even root cannot rename
    a file into it, so publishing fails with EPERM the way a folder made immutable by an
    administrator (or a permission problem for a non-root daemon) would. Skipped where the
    file system has no immutable flag."""
    folder = daemon.save_dir / "locked"
    folder.mkdir()
    if not can_make_immutable(daemon.save_dir):
        pytest.skip("chattr +i is not supported on this file system")
    subprocess.run(["chattr", "+i", str(folder)], check=True)
    state = {"locked": True}

    def unlock():
        if state["locked"]:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
            state["locked"] = False

    try:
        yield folder, unlock
    finally:
        unlock()


@pytest.mark.parametrize("retry", ["empty PATCH", "HEAD"])
def test_failed_publish_keeps_the_upload_and_a_retry_saves_it(daemon, immutable_folder, retry):
    folder, unlock = immutable_folder
    content = os.urandom(3 * 1024 * 1024 + 7)
    created = create(daemon, len(content), headers={"Upload-Metadata": relative_metadata("locked/data.bin")})
    assert created.status == 201, created
    location = created.header("Location")
    upload_id = location.rsplit("/", 1)[1]

    failed = patch(daemon, location, 0, content)
    assert failed.status == 503, failed
    text = failed.body.decode()
    assert "complete and kept on the server, but could not be saved under its name" in text, text
    assert "retry to finish it" in text and "discarded" not in text
    assert tus_files(daemon) == [f"{upload_id}.info", f"{upload_id}.part"]
    assert part_size(daemon, upload_id) == len(content)
    assert head(daemon, location).status == 503, "HEAD tries to save it too, and says it could not"
    assert tus_files(daemon) == [f"{upload_id}.info", f"{upload_id}.part"]

    unlock()
    if retry == "HEAD":
        status = head(daemon, location)
        assert status.status == 200
        assert status.header("Upload-Offset") == str(len(content)) == status.header("Upload-Length")
    else:
        finished = patch(daemon, location, len(content), b"")
        assert finished.status == 204, finished
        assert finished.header("Upload-Offset") == str(len(content))
    assert (folder / "data.bin").read_bytes() == content
    assert tus_files(daemon) == []


def test_429_leaves_no_tus_record_and_no_upload_line(daemon_factory):
    daemon = daemon_factory("--max-uploads-per-client", "1")
    held = daemon.connect()
    held.send(build_request("PUT", "/files/held.bin", headers=[("Content-Length", "10")]) + b"12345")
    deadline = time.monotonic() + 5
    while "upload started" not in daemon.stderr_text():
        assert time.monotonic() < deadline, daemon.stderr_tail()
        time.sleep(0.02)
    before = daemon.stderr_text()

    refused = create(daemon, 5, headers=PATCH_TYPE, body=b"abcde")
    assert refused.status == 429, refused
    assert refused.header("Location") is None
    assert tus_files(daemon) == []
    assert fetch(daemon.url + "/files/other.bin", "PUT", body=b"x").status == 429
    assert fetch(daemon.url + "/upload?name=third.bin", "POST", body=b"x").status == 429
    time.sleep(0.2)
    logged = daemon.stderr_text()[len(before):]
    assert "upload started" not in logged and "upload failed" not in logged, logged
    assert daemon.temp_files() == []

    held.send(b"67890")
    assert held.read_response().status == 201
    # Nothing was held against tus-max-per-client by the refused creation.
    accepted = create(daemon, 5, headers=PATCH_TYPE, body=b"abcde")
    assert accepted.status == 201, accepted
    assert tus_files(daemon) == []
