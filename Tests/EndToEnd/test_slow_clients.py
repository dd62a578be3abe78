"""Slow and stalled clients: a thousand slowloris connections must neither starve a normal
request nor outlive the head timeout, and a body that never arrives must be dropped after
the body timeout without leaving a file behind. Wall-clock bounds here are generous
behaviour checks, not benchmarks."""

import errno
import resource
import selectors
import socket
import time

import pytest

from http_raw import build_request

# Serial (run alone after the others, see pytest.ini): a thousand connections, and a
# normal request must not starve next to them.
pytestmark = pytest.mark.serial

SLOW_CONNECTIONS = 1000
HEAD_TIMEOUT = 5.0
BODY_TIMEOUT = 2.0
MARGIN = 4.0
NORMAL_REQUEST_BOUND = 1.0
SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"z" * 64


def raise_open_file_limit(needed: int):
    """The test and the daemon it starts (which inherits the limit) each hold one descriptor
    per connection; root may raise the hard limit too."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, max(hard, needed)))


class SlowClient:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.opened_at = time.monotonic()
        self.closed_at: float | None = None
        self.sent = 0
        self.received = b""

    def close(self):
        self.closed_at = time.monotonic()
        self.sock.close()


def open_slow_clients(port: int, count: int) -> list[SlowClient]:
    clients = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.setblocking(False)
        clients.append(SlowClient(sock))
    return clients


def test_slow_header_senders_neither_starve_others_nor_outlive_the_head_timeout(daemon_factory):
    raise_open_file_limit(4 * SLOW_CONNECTIONS)
    daemon = daemon_factory("--head-timeout", "5s", "--max-connections", "2000",
                            "--max-connections-per-client", "2000")
    clients = open_slow_clients(daemon.port, SLOW_CONNECTIONS)
    selector = selectors.DefaultSelector()
    for client in clients:
        selector.register(client.sock, selectors.EVENT_READ, client)
    open_clients = set(clients)
    deadline = clients[-1].opened_at + HEAD_TIMEOUT + MARGIN
    next_byte_at = time.monotonic()
    normal_request_elapsed = None

    def finish(client: SlowClient):
        selector.unregister(client.sock)
        client.close()
        open_clients.discard(client)

    try:
        while open_clients and time.monotonic() < deadline:
            now = time.monotonic()
            if now >= next_byte_at:
                # One more header byte per connection per second; never the end of the head.
                for client in list(open_clients):
                    try:
                        client.sock.send(SLOW_HEAD[client.sent:client.sent + 1])
                        client.sent += 1
                    except OSError as error:
                        assert error.errno in (errno.EPIPE, errno.ECONNRESET), error
                        finish(client)
                next_byte_at = now + 1.0
            if normal_request_elapsed is None and now - clients[0].opened_at >= 2.0:
                connection = daemon.connect(timeout=NORMAL_REQUEST_BOUND + 5)
                started = time.monotonic()
                response = connection.request("GET", "/files/plain.txt")
                normal_request_elapsed = time.monotonic() - started
                assert response.status == 200 and response.body == b"hello, filedrop\n"
                connection.close()
            for key, _ in selector.select(timeout=max(0.0, min(next_byte_at, deadline) - time.monotonic())):
                client = key.data
                try:
                    data = client.sock.recv(4096)
                except ConnectionResetError:
                    data = b""
                client.received += data
                if not data:
                    finish(client)
    finally:
        for client in list(open_clients):
            finish(client)
        selector.close()

    assert normal_request_elapsed is not None and normal_request_elapsed < NORMAL_REQUEST_BOUND, \
        f"a normal request took {normal_request_elapsed}s next to {SLOW_CONNECTIONS} slow ones"
    still_open = [client for client in clients if client.closed_at is None or client.closed_at >= deadline]
    assert len(still_open) == 0, f"{len(still_open)} slow connections outlived the head timeout + {MARGIN}s"
    early = [client for client in clients if client.closed_at - client.opened_at < HEAD_TIMEOUT - 1.5]
    assert len(early) == 0, f"{len(early)} slow connections were closed long before the head timeout"
    answered = [client.received for client in clients if client.received]
    assert all(data.startswith(b"HTTP/1.1 408 ") for data in answered), answered[:3]
    daemon.assert_no_fd_leak(timeout=5.0)


def test_body_that_never_arrives_is_dropped_after_the_body_timeout(daemon_factory):
    daemon = daemon_factory("--body-timeout", "2s", "--max-upload-size", "3G")
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/never.bin",
                                  headers=[("Content-Length", str(2 * 1024 ** 3))]) + b"x" * 1000)
    started = time.monotonic()
    assert connection.is_open_after(BODY_TIMEOUT / 2), "closed long before the body timeout"
    assert connection.wait_closed(timeout=BODY_TIMEOUT + MARGIN), "still open after the body timeout"
    elapsed = time.monotonic() - started
    assert elapsed >= BODY_TIMEOUT - 0.5
    if connection.buffer:
        assert connection.buffer.startswith(b"HTTP/1.1 408 "), connection.buffer[:200]
    assert not (daemon.save_dir / "never.bin").exists()
    cleanup_deadline = time.monotonic() + 2.0
    while daemon.temp_files() and time.monotonic() < cleanup_deadline:
        time.sleep(0.05)
    assert daemon.temp_files() == []


def test_a_slow_but_steady_body_is_not_mistaken_for_a_stalled_one(daemon_factory):
    """While a body streams in, the daemon asks the kernel to wake it only once a large block
    has queued (SO_RCVLOWAT). A client sending steadily but slowly never fills such a block
    within the body timeout: the daemon must still see its progress (it drops the mark back
    to one byte every tick) and store the upload, not answer 408."""
    daemon = daemon_factory("--body-timeout", "1s")
    size = 320 * 1024  # more than one block: the mark is at its highest for most of the body
    body = bytes(range(256)) * (size // 256)
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/steady.bin", headers=[("Content-Length", str(size))]))
    piece = 16 * 1024
    started = time.monotonic()
    for offset in range(0, size, piece):
        connection.send(body[offset:offset + piece])
        time.sleep(0.1)  # 160 KiB/s: 2 s in all, twice the body timeout, never idle for long
    assert time.monotonic() - started > 1.5
    response = connection.read_response(timeout=5)
    assert response.status == 201, response
    assert (daemon.save_dir / "steady.bin").read_bytes() == body
