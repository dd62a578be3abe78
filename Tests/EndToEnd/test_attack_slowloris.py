"""Slowloris and its cousins against the real daemon: heads that trickle in, bodies that
trickle then stall, readers that never read, idle keep-alive connections, and more
connections from one address than it may hold. Each is closed at its timeout (or at
accept), leaves no temporary file, and an honest client on another address is served
during and after. (`test_slow_clients.py` holds the thousand-connection version.)
"""

from __future__ import annotations

import select
import socket
import time

import pytest

from attack_support import LegitClient
from http_raw import build_request

# Serial (run alone after the others, see pytest.ini): honest requests must be answered
# within a bound next to the slow heads, and each timeout is checked from both sides.
pytestmark = pytest.mark.serial

HEAD_TIMEOUT = 3.0
BODY_TIMEOUT = 2.0
IDLE_TIMEOUT = 2.0
MARGIN = 3.0


def trickle(connections, data: bytes, interval: float, duration: float) -> dict:
    """Sends `data` one byte per connection every `interval` seconds for `duration`;
    returns when the server answered or closed each connection (after an error response
    the server still drains input for a moment, so a successful send proves nothing)."""
    sent = {id(connection): 0 for connection in connections}
    closed_at = {}
    started = time.monotonic()
    while time.monotonic() - started < duration and len(closed_at) < len(connections):
        for connection in connections:
            if id(connection) in closed_at:
                continue
            position = sent[id(connection)] % len(data)
            try:
                connection.send(data[position:position + 1])
                sent[id(connection)] += 1
            except (BrokenPipeError, ConnectionResetError):
                closed_at[id(connection)] = time.monotonic() - started
                continue
            readable, _, _ = select.select([connection.sock], [], [], 0)
            if readable:
                closed_at[id(connection)] = time.monotonic() - started
        time.sleep(interval)
    return closed_at


def test_trickled_heads_are_closed_at_the_head_timeout(daemon_factory):
    daemon = daemon_factory("--head-timeout", f"{HEAD_TIMEOUT:g}s")
    head = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"z" * 4096
    with LegitClient(daemon) as legit:
        connections = [daemon.connect() for _ in range(40)]
        closed_at = trickle(connections, head, interval=0.25, duration=HEAD_TIMEOUT + MARGIN)
    # Bytes kept coming, yet the head deadline is absolute: every connection was cut.
    assert len(closed_at) == len(connections), f"{len(connections) - len(closed_at)} trickling heads outlived the timeout"
    assert min(closed_at.values()) >= HEAD_TIMEOUT - 1.0, sorted(closed_at.values())[:3]
    for connection in connections:
        connection.wait_closed(timeout=1)
        assert connection.buffer == b"" or connection.buffer.startswith(b"HTTP/1.1 408 "), connection.buffer[:100]
    assert legit.slowest < 2.0, f"an honest request took {legit.slowest:.2f}s next to the slow heads"


def test_a_body_that_trickles_then_stalls_is_closed_at_the_body_timeout(daemon_factory):
    daemon = daemon_factory("--body-timeout", f"{BODY_TIMEOUT:g}s")
    with LegitClient(daemon) as legit:
        # --max-uploads-per-client (8 by default) is what one address may run at once.
        connections = [daemon.connect() for _ in range(8)]
        for connection in connections:
            connection.send(build_request("PUT", "/files/slow.bin", headers=[("Content-Length", str(1 << 30))]))
        # The body timeout counts inactivity: a byte every half second keeps them open
        # well past it (a slow phone on bad WiFi is not cut off) ...
        closed_early = trickle(connections, b"s", interval=0.5, duration=BODY_TIMEOUT * 2)
        assert closed_early == {}, "a trickling body was closed although bytes kept arriving"
        # ... and once the bytes stop, the timeout closes them.
        stalled = time.monotonic()
        for connection in connections:
            assert connection.wait_closed(timeout=BODY_TIMEOUT + MARGIN), "a stalled body outlived the body timeout"
        assert time.monotonic() - stalled >= BODY_TIMEOUT - 0.5
    assert legit.slowest < 2.0
    assert not any(path.name.startswith("slow") for path in daemon.save_dir.iterdir())
    deadline = time.monotonic() + 3
    while daemon.temp_files() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemon.temp_files() == []


def test_a_reader_that_never_reads_is_closed_at_the_write_timeout(daemon_factory):
    # The write timeout is the body timeout: a download that makes no progress is dropped.
    daemon = daemon_factory("--body-timeout", f"{BODY_TIMEOUT:g}s")
    with open(daemon.save_dir / "big.bin", "wb") as big:
        big.truncate(256 << 20)
    with LegitClient(daemon):
        sockets = []
        for _ in range(5):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", daemon.port))
            sock.sendall(build_request("GET", "/files/big.bin"))
            sockets.append(sock)
        time.sleep(BODY_TIMEOUT + MARGIN)
        for sock in sockets:
            # Drain what the kernel buffered; the server must have given up and closed.
            sock.settimeout(5)
            received = 0
            try:
                while chunk := sock.recv(1 << 20):
                    received += len(chunk)
            except ConnectionResetError:
                pass
            assert received < 256 << 20, "the whole file went out to a reader that never read"
            sock.close()


def test_idle_keep_alive_connections_are_closed_at_the_idle_timeout(daemon_factory):
    daemon = daemon_factory("--idle-timeout", f"{IDLE_TIMEOUT:g}s")
    with LegitClient(daemon):
        connections = [daemon.connect() for _ in range(30)]
        for connection in connections:
            assert connection.request("GET", "/files/plain.txt").status == 200
        started = time.monotonic()
        for connection in connections:
            assert connection.wait_closed(timeout=IDLE_TIMEOUT + MARGIN)
        assert time.monotonic() - started >= IDLE_TIMEOUT - 0.5


def test_one_address_cannot_hold_more_connections_than_its_share(daemon_factory):
    daemon = daemon_factory("--max-connections-per-client", "10", "--head-timeout", "30s")
    with LegitClient(daemon):
        connections = [daemon.connect() for _ in range(25)]
        for connection in connections:
            try:
                connection.send(b"GET / HTTP/1.1\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
        refused = [connection for connection in connections if connection.wait_closed(timeout=1.0)]
        assert len(refused) >= 15, f"only {len(refused)} of 25 connections from one address were closed at accept"
        for connection in connections:
            connection.close()
