"""Header and framing bombs against the real daemon: thousands of header fields, one huge
field, a huge request line, a head that never ends, a flood of tiny chunks, huge chunk
extensions and trailers, and a multipart form field that never ends. Each is refused at
its limit (or, for legal floods, handled in bounded time), the daemon's memory stays
bounded, and an honest client on another address is served during and after.
"""

from __future__ import annotations

import os
import time

import pytest

from attack_support import BOUNDARY, LegitClient
from http_raw import build_request, chunked

# Serial (run alone after the others, see pytest.ini): the daemon's resident memory is
# measured, and a flood of tiny chunks must be handled within a bound.
pytestmark = pytest.mark.serial

MEMORY_GROWTH_LIMIT = 48 << 20
# ConnectionConfiguration.lingerTimeout: how long input is drained after an error response.
LINGER = 5.0


def resident_bytes(daemon) -> int:
    with open(f"/proc/{daemon.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def send_until_refused(connection, chunks, limit: int) -> int:
    """Sends pieces until the server stops reading (reset or broken pipe) or `limit`
    bytes went out; returns how many were sent."""
    sent = 0
    connection.sock.settimeout(5)
    try:
        for piece in chunks:
            connection.send(piece)
            sent += len(piece)
            if sent >= limit:
                break
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    return sent


def assert_refused(connection, status: int):
    response = connection.read_response(timeout=10)
    assert response.status == status, response
    assert response.says_close
    assert connection.wait_closed(timeout=5)


BOMBS = {
    "ten thousand header fields": (b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"X-A: b\r\n" * 10_000 + b"\r\n", 431),
    "one field of a megabyte": (b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n", 431),
    "a cookie of a megabyte": (b"GET / HTTP/1.1\r\nHost: localhost\r\nCookie: " + b"a=b; " * (1 << 18) + b"\r\n\r\n", 431),
    "a request line of a megabyte": (b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),
    "a method of a megabyte": (b"G" * (1 << 20) + b" / HTTP/1.1\r\nHost: localhost\r\n\r\n", 431),
    "a field name of a megabyte": (b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"X" * (1 << 20) + b": a\r\n\r\n", 431),
    "ten thousand empty-valued fields": (b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"X:\r\n" * 10_000 + b"\r\n", 431),
}


@pytest.mark.parametrize("request_bytes,status", BOMBS.values(), ids=BOMBS.keys())
def test_header_bombs_are_refused_at_the_limit(daemon, request_bytes, status):
    before = resident_bytes(daemon)
    with LegitClient(daemon):
        connection = daemon.connect()
        send_until_refused(connection, [request_bytes[i:i + 65536] for i in range(0, len(request_bytes), 65536)],
                           len(request_bytes))
        assert_refused(connection, status)
    assert resident_bytes(daemon) - before < MEMORY_GROWTH_LIMIT


def test_a_head_that_never_ends_is_cut_off(daemon):
    # After the 431 the daemon drains input for a bounded linger time (so the client sees
    # the answer instead of a reset), then closes however fast the client keeps sending.
    before = resident_bytes(daemon)
    line = b"X-More: " + b"m" * 1000 + b"\r\n"
    with LegitClient(daemon):
        connection = daemon.connect()
        connection.sock.settimeout(5)
        started = time.monotonic()
        closed = False
        try:
            connection.send(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
            while time.monotonic() - started < LINGER + 10:
                connection.send(line * 64)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        assert closed, f"the daemon still read an endless head after {time.monotonic() - started:.1f}s"
    assert connection.read_response(timeout=5).status == 431
    assert resident_bytes(daemon) - before < MEMORY_GROWTH_LIMIT


def test_many_connections_each_near_the_head_limit_are_served(daemon):
    # 50 connections with heads just under 16 KiB each, held open together: legal, served.
    connections = []
    with LegitClient(daemon):
        for index in range(50):
            connection = daemon.connect()
            padding = 16 * 1024 - 200
            connection.send(build_request("GET", "/files/plain.txt", headers=[("X-Pad", "p" * padding)]))
            connections.append(connection)
        for connection in connections:
            response = connection.read_response(timeout=10)
            assert response.status == 200 and response.body == b"hello, filedrop\n"
            connection.close()


# Bodies built to make the daemon work or buffer

def test_a_flood_of_one_byte_chunks_is_stored_in_bounded_time(daemon):
    payload = os.urandom(100_000)
    body = b"".join(b"1\r\n" + payload[i:i + 1] + b"\r\n" for i in range(len(payload))) + b"0\r\n\r\n"
    with LegitClient(daemon):
        connection = daemon.connect()
        started = time.monotonic()
        connection.send(build_request("PUT", "/files/chunks.bin", headers=[("Transfer-Encoding", "chunked")]) + body)
        response = connection.read_response(timeout=30)
        elapsed = time.monotonic() - started
    assert response.status == 201, response
    assert (daemon.save_dir / "chunks.bin").read_bytes() == payload
    assert elapsed < 15, f"{len(payload)} one-byte chunks took {elapsed:.1f}s"


CHUNK_BOMBS = {
    "a chunk extension of a megabyte": b"1;" + b"e" * (1 << 20) + b"\r\nx\r\n0\r\n\r\n",
    "a chunk size line of a megabyte of extensions": b"1" + b";a=b" * (1 << 18) + b"\r\nx\r\n0\r\n\r\n",
    "ten thousand trailer fields": b"1\r\nx\r\n0\r\n" + b"X-T: v\r\n" * 10_000 + b"\r\n",
    "a trailer of a megabyte": b"1\r\nx\r\n0\r\nX-T: " + b"v" * (1 << 20) + b"\r\n\r\n",
}


@pytest.mark.parametrize("body", CHUNK_BOMBS.values(), ids=CHUNK_BOMBS.keys())
def test_chunk_line_and_trailer_bombs_are_refused(daemon, body):
    before = resident_bytes(daemon)
    with LegitClient(daemon):
        connection = daemon.connect()
        data = build_request("PUT", "/files/bomb.bin", headers=[("Transfer-Encoding", "chunked")]) + body
        send_until_refused(connection, [data[i:i + 65536] for i in range(0, len(data), 65536)], len(data))
        response = connection.read_response(timeout=10)
    assert response.status in (400, 431), response
    assert response.says_close
    assert not (daemon.save_dir / "bomb.bin").exists()
    assert resident_bytes(daemon) - before < MEMORY_GROWTH_LIMIT


@pytest.mark.parametrize("field", ["note", "relativePath"])
def test_a_multipart_form_field_that_never_ends_is_not_buffered(daemon_factory, field):
    daemon = daemon_factory(fill=False)
    (daemon.save_dir / "plain.txt").write_bytes(b"hello, filedrop\n")
    before = resident_bytes(daemon)
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n").encode()
    size = 256 << 20
    piece = b"f" * (1 << 20)

    def pieces():
        yield build_request("POST", "/upload", headers=[
            ("Content-Type", f"multipart/form-data; boundary={BOUNDARY}"), ("Transfer-Encoding", "chunked")])
        yield chunked(head)[:-5]
        for _ in range(size // len(piece)):
            yield b"%x\r\n" % len(piece) + piece + b"\r\n"
        yield chunked(f"\r\n--{BOUNDARY}--\r\n".encode())

    with LegitClient(daemon):
        connection = daemon.connect(timeout=30)
        send_until_refused(connection, pieces(), size * 2)
        response = connection.read_response(timeout=30)
    assert response.status == 400 and b"larger than" in response.body, response
    grown = resident_bytes(daemon) - before
    assert grown < MEMORY_GROWTH_LIMIT, f"a {size >> 20} MiB form field grew the daemon by {grown >> 20} MiB"
    assert [path.name for path in daemon.save_dir.iterdir()] == ["plain.txt"]
