"""Hostile and broken uploads against the real daemon: each gets the right status (or a
closed connection when the client left), leaves no file and no temporary behind, and the
daemon keeps serving. Disk-full and read-only cases use a real tmpfs (root only)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from http_raw import build_request, chunked, fetch

BOUNDARY = "----filedropHostile7MA4YWxk"


def multipart(files: list[tuple[str, bytes]], boundary: str = BOUNDARY, close: bool = True) -> bytes:
    body = b""
    for name, content in files:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                 "Content-Type: application/octet-stream\r\n\r\n").encode("utf-8", "surrogateescape")
        body += content + b"\r\n"
    if close:
        body += f"--{boundary}--\r\n".encode()
    return body


def visible_files(directory: Path) -> set[str]:
    return {str(path.relative_to(directory)) for path in directory.rglob("*")}


def assert_still_serving(daemon):
    response = fetch(daemon.url + "/files/?format=json")
    assert response.status == 200


def wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def upload_log_says_failed(daemon) -> bool:
    return "upload failed" in daemon.stderr_text()


# Clients that give up half-way

@pytest.mark.parametrize("how", ["close", "shutdown-write"])
def test_client_that_disconnects_at_half_leaves_nothing(daemon_factory, how):
    daemon = daemon_factory(fill=False)
    payload = os.urandom(4 << 20)
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/half.bin", headers=[("Content-Length", str(len(payload)))]))
    connection.send(payload[: len(payload) // 2])
    if how == "close":
        connection.close()
    else:
        connection.sock.shutdown(socket.SHUT_WR)
    assert wait_for(lambda: upload_log_says_failed(daemon)), daemon.stderr_tail()
    assert visible_files(daemon.save_dir) == set()
    assert daemon.temp_files() == []
    assert_still_serving(daemon)


def test_truncated_multipart_body_leaves_nothing(daemon_factory):
    daemon = daemon_factory(fill=False)
    body = multipart([("first.txt", b"complete"), ("second.bin", os.urandom(1 << 20))])
    connection = daemon.connect()
    connection.send(build_request("POST", "/upload.html", headers=[
        ("Content-Type", f"multipart/form-data; boundary={BOUNDARY}"), ("Content-Length", str(len(body)))]))
    connection.send(body[: len(body) - 1000])
    connection.sock.shutdown(socket.SHUT_WR)
    assert wait_for(lambda: upload_log_says_failed(daemon)), daemon.stderr_tail()
    # The first file was complete and is kept; the interrupted one is gone without a trace.
    assert visible_files(daemon.save_dir) == {"first.txt"}
    assert daemon.temp_files() == []


def test_multipart_without_its_closing_delimiter_is_400(daemon):
    body = multipart([("unfinished.txt", b"data")], close=False)
    response = fetch(daemon.url + "/upload.html", "POST", {
        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, body)
    assert response.status == 400
    assert b"interrupted" in response.body or b"end" in response.body
    assert not (daemon.save_dir / "unfinished.txt").exists()
    assert daemon.temp_files() == []


def test_wrong_boundary_is_400_and_stores_nothing(daemon_factory):
    daemon = daemon_factory(fill=False)
    body = multipart([("a.txt", b"data")], boundary="the-real-one")
    response = fetch(daemon.url + "/upload.html", "POST", {
        "Content-Type": "multipart/form-data; boundary=not-the-one-in-the-body"}, body)
    assert response.status == 400
    assert visible_files(daemon.save_dir) == set()


def test_chunked_body_with_a_broken_chunk_is_400_and_discarded(daemon_factory):
    daemon = daemon_factory(fill=False)
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/broken.bin", headers=[("Transfer-Encoding", "chunked")]))
    connection.send(b"10\r\n" + b"x" * 16 + b"\r\nnot-hex\r\n")
    response = connection.read_response()
    assert response.status == 400
    assert response.says_close
    assert visible_files(daemon.save_dir) == set()
    assert daemon.temp_files() == []


# Limits

def test_declared_body_over_max_request_size_is_413_before_the_body(daemon_factory):
    daemon = daemon_factory("--max-request-size", "1M", fill=False)
    connection = daemon.connect()
    connection.send(build_request("POST", "/upload.html", headers=[
        ("Content-Type", f"multipart/form-data; boundary={BOUNDARY}"), ("Content-Length", str(2 << 20))]))
    response = connection.read_response()
    assert response.status == 413
    assert response.says_close


def test_streamed_multipart_over_max_request_size_is_413_and_discarded(daemon_factory):
    daemon = daemon_factory("--max-request-size", "1M", fill=False)
    body = multipart([("big.bin", os.urandom(2 << 20))])
    connection = daemon.connect()
    connection.send(build_request("POST", "/upload.html", headers=[
        ("Content-Type", f"multipart/form-data; boundary={BOUNDARY}"), ("Transfer-Encoding", "chunked")]))
    connection.send(chunked(body))
    response = connection.read_response()
    assert response.status == 413
    assert visible_files(daemon.save_dir) == set()
    assert daemon.temp_files() == []


# The disk: full, filling up mid-upload, read-only (real tmpfs, root only)

@pytest.fixture
def tiny_tmpfs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mountpoint = tmp_path / "tiny"
    mountpoint.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mountpoint)]).returncode != 0:
        pytest.skip("mount -t tmpfs failed here")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)])


def test_upload_bigger_than_free_space_is_507_up_front(daemon_factory, tiny_tmpfs):
    daemon = daemon_factory("--save-dir", str(tiny_tmpfs), fill=False)
    response = fetch(daemon.url + "/files/big.bin", "PUT", {}, os.urandom(2 << 20))
    assert response.status == 507
    assert os.listdir(tiny_tmpfs) == []


def test_disk_filling_up_mid_write_is_507_and_leaves_nothing(daemon_factory, tiny_tmpfs):
    daemon = daemon_factory("--save-dir", str(tiny_tmpfs), "--min-free-space", "0", fill=False)
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/grows.bin", headers=[("Transfer-Encoding", "chunked")]))
    # Unknown length: nothing can be refused up front, so ENOSPC arrives mid-write.
    for _ in range(8):
        connection.send(chunked(os.urandom(256 << 10))[:-5])
    try:
        connection.send(b"0\r\n\r\n")
    except OSError:
        pass
    response = connection.read_response(timeout=10)
    assert response.status == 507
    assert os.listdir(tiny_tmpfs) == []
    # The daemon is unharmed and the space came back: a small upload still works.
    small = fetch(daemon.url + "/files/small.txt", "PUT", {}, b"fits")
    assert small.status == 201
    assert (tiny_tmpfs / "small.txt").read_bytes() == b"fits"


def test_read_only_save_directory_is_refused_clearly(daemon_factory, tiny_tmpfs):
    (tiny_tmpfs / "existing.txt").write_text("still readable")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    daemon = daemon_factory("--save-dir", str(tiny_tmpfs), "--min-free-space", "0", fill=False)
    response = fetch(daemon.url + "/files/new.txt", "PUT", {"Accept": "application/json"}, b"data")
    assert response.status == 507
    assert b"read-only" in response.body
    assert fetch(daemon.url + "/files/existing.txt").body == b"still readable"
