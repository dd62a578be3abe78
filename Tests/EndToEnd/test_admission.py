"""Connection admission (issue 17): a handful of client addresses holding slow connections
must not lock other clients out; at max-connections new connections wait in the listen
backlog and get a later answer; connections over a per-address limit get a 503 with a
reason, never a bare reset; idle keep-alive connections make room first.

Distinct client addresses come from 127.0.0.0/8, which Linux routes to the loopback
interface as a whole: each client socket binds its source address before connecting."""

from __future__ import annotations

import errno
import socket
import time

import pytest

# Serial (run alone after the others, see pytest.ini): a fresh client must be answered
# within a second next to 170 slow readers.
pytestmark = pytest.mark.serial

BIG_FILE_SIZE = 8 << 20
SLOW_GET = b"GET /files/big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n"
PLAIN_GET = b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\n\r\n"


def address(n: int) -> str:
    return f"127.0.0.{n}"


def connect_from(source: str, port: int, timeout: float = 5.0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A small window: a download to this socket stalls after a few KiB if it is not read.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def read_response(sock: socket.socket, timeout: float) -> bytes:
    """Everything up to the end of a Content-Length response; raises on reset or timeout."""
    sock.settimeout(timeout)
    data = b""
    while True:
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            if len(body) >= length:
                return data
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def header(response: bytes, name: str) -> str | None:
    for line in response.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        key, _, value = line.decode("latin-1").partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def open_slow_readers(port: int, sources: list[str], per_source: int) -> list[socket.socket]:
    """Connections that each ask for a big download and never read it; those the daemon
    refuses are kept too (their 503 waits unread in the socket)."""
    readers = []
    for _ in range(per_source):
        for source in sources:
            sock = connect_from(source, port)
            try:
                sock.sendall(SLOW_GET)
            except OSError as error:
                assert error.errno not in (errno.ECONNRESET,), f"reset from {source}"
            readers.append(sock)
    return readers


def first_bytes(sock: socket.socket) -> bytes:
    sock.settimeout(2.0)
    try:
        return sock.recv(12)
    except socket.timeout:
        return b""


def close_all(sockets: list[socket.socket]):
    for sock in sockets:
        sock.close()


def timed_get(source: str, port: int, timeout: float) -> tuple[bytes, float]:
    """PLAIN_GET on a new connection from `source`: the response and the seconds it took."""
    fresh = connect_from(source, port)
    started = time.monotonic()
    fresh.sendall(PLAIN_GET)
    response = read_response(fresh, timeout=timeout)
    elapsed = time.monotonic() - started
    fresh.close()
    return response, elapsed


def refusal_lines(daemon, client: str) -> list[str]:
    return [line for line in daemon.stderr_text().splitlines() if f"refused a connection from {client} " in line]


def test_slow_readers_from_17_addresses_cannot_lock_out_an_18th(daemon_factory):
    daemon = daemon_factory("--max-connections", "128")
    (daemon.save_dir / "big.bin").write_bytes(b"\x5a" * BIG_FILE_SIZE)
    sources = [address(n) for n in range(2, 19)]
    # 17 x 10 = 170 attempts against 128 slots, each address under the per-address cap of 64:
    # without fair shares they would take every slot.
    readers = open_slow_readers(daemon.port, sources, per_source=10)
    try:
        time.sleep(0.5)
        response, elapsed = timed_get(address(19), daemon.port, timeout=5.0)
        assert response.startswith(b"HTTP/1.1 200 ") and response.endswith(b"hello, filedrop\n"), response[:200]
        assert elapsed < 1.0, f"a fresh client waited {elapsed:.2f}s next to 170 slow readers"
        # Every slow reader was either served (its download stalls) or told why not: no resets.
        answers = [first_bytes(sock) for sock in readers]
        served = [a for a in answers if a.startswith(b"HTTP/1.1 200")]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(served) + len(refused) == len(readers), [a for a in answers if a[:12] not in (b"HTTP/1.1 200", b"HTTP/1.1 503")][:5]
        assert len(served) < 128 and refused, (len(served), len(refused))
        for source in sources:
            assert len(refusal_lines(daemon, source)) <= 1, refusal_lines(daemon, source)
    finally:
        close_all(readers)


def test_at_max_connections_a_new_client_waits_for_a_slot_instead_of_a_reset(daemon_factory):
    daemon = daemon_factory("--max-connections", "16")
    (daemon.save_dir / "big.bin").write_bytes(b"\x5a" * BIG_FILE_SIZE)
    holders = open_slow_readers(daemon.port, [address(n) for n in range(2, 18)], per_source=1)
    waiting: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 3.0
        while "connection limit reached" not in daemon.stderr_text():
            assert time.monotonic() < deadline, daemon.stderr_tail()
            time.sleep(0.05)
        # Connected by the kernel (listen backlog) but not accepted while every slot is held.
        waiting = [connect_from(address(n), daemon.port) for n in range(40, 44)]
        for sock in waiting:
            sock.sendall(PLAIN_GET)
            sock.settimeout(0.5)
            try:
                early = sock.recv(100)
            except socket.timeout:
                early = None
            assert early is None, f"answered or closed while the server was full: {early!r}"
        for sock in holders[:4]:
            sock.close()
        for sock in waiting:
            response = read_response(sock, timeout=3.0)  # raises ConnectionResetError on a reset
            assert response.startswith((b"HTTP/1.1 200 ", b"HTTP/1.1 503 ")), response[:200]
            if response.startswith(b"HTTP/1.1 200 "):
                assert response.endswith(b"hello, filedrop\n")
            else:
                assert header(response, "Retry-After") and header(response, "Connection") == "close"
        limit_notices = [line for line in daemon.stderr_text().splitlines() if "connection limit reached" in line]
        assert len(limit_notices) == 1, limit_notices
        assert "16 connections open" in limit_notices[0]
    finally:
        close_all(holders + waiting)


def test_idle_keep_alive_connections_make_room_at_the_limit(daemon_factory):
    daemon = daemon_factory("--max-connections", "16", "--idle-timeout", "60s")
    idle = []
    try:
        for n in range(2, 18):
            sock = connect_from(address(n), daemon.port)
            sock.sendall(PLAIN_GET)
            assert read_response(sock, timeout=3.0).startswith(b"HTTP/1.1 200 ")
            idle.append(sock)
        response, elapsed = timed_get(address(40), daemon.port, timeout=3.0)
        assert response.startswith(b"HTTP/1.1 200 "), response[:200]
        assert elapsed < 1.0, f"served after {elapsed:.2f}s with 16 idle keep-alive connections open"
        # Some idle connection was closed to make room, and the oldest went first.
        closed = []
        for index, sock in enumerate(idle):
            sock.settimeout(0.2)
            try:
                if sock.recv(1) == b"":
                    closed.append(index)
            except socket.timeout:
                pass
        assert closed and closed[0] == 0, closed
    finally:
        close_all(idle)


def test_connections_over_the_per_address_cap_get_a_503_with_a_reason(daemon_factory):
    daemon = daemon_factory("--max-connections-per-client", "3")
    held = [connect_from(address(1), daemon.port) for _ in range(3)]
    try:
        # Each holds its slot with a head begun and never finished: a connection that sends
        # nothing at all waits in the kernel, not in a slot, until about a second has passed
        # (TCP_DEFER_ACCEPT).
        for sock in held:
            sock.sendall(b"GET / HTTP/1.1\r\n")
        time.sleep(0.2)
        for _ in range(5):
            extra = connect_from(address(1), daemon.port)
            extra.sendall(PLAIN_GET)
            response = read_response(extra, timeout=3.0)  # raises ConnectionResetError on a reset
            extra.close()
            assert response.startswith(b"HTTP/1.1 503 "), response[:200]
            assert header(response, "Connection") == "close"
            assert header(response, "Retry-After", ) == "5"
            assert b"as many connections open as one address may" in response
        lines = refusal_lines(daemon, "127.0.0.1")
        assert len(lines) == 1, lines
        assert "max-connections-per-client" in lines[0]
        # Another address is not affected.
        other = connect_from(address(2), daemon.port)
        other.sendall(PLAIN_GET)
        assert read_response(other, timeout=3.0).startswith(b"HTTP/1.1 200 ")
        other.close()
    finally:
        close_all(held)
