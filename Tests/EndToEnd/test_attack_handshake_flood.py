"""A flood of connections that send the first bytes of a TLS ClientHello (or of a request
head) and stop, from more client addresses than fair shares can hold off: every slot would
be taken for the whole head timeout. The daemon must keep answering fresh clients on both
ports while the flood's sockets stay open (a newcomer takes the slot of the oldest
connection that has not sent a whole handshake or head), and give the flood's memory back
once it ends.

Distinct client addresses come from 127.0.0.0/8 (the loopback interface takes them all).
The head timeout is long (30 s), so "answered at all while the flood holds its sockets" is
what is checked, not how fast. Figures (time to an answer, RSS) are printed for `pytest -s`.
"""

from __future__ import annotations

import errno
import resource
import selectors
import socket
import ssl
import time

import pytest

from tls_support import https_fetch, rss_kib, wait_until

# Serial: it holds 6,400 connections and measures the daemon's RSS after them.
pytestmark = pytest.mark.serial

ADDRESSES = [f"127.0.{subnet}.{host}" for subnet in (0, 1) for host in range(2, 52)]
PER_ADDRESS = 64
HEAD_TIMEOUT = "30s"
# Well under the head timeout: only an evicted flood connection can make room this soon.
ANSWER_BOUND = 10.0
FLOOD_SECONDS = 120.0
# RSS must come back to within this of where it was before the flood ...
RSS_MARGIN_KIB = 20 * 1024
# ... this long after the flood's sockets close.
RSS_SETTLE_SECONDS = 30.0

# A TLS record header announcing a 512-byte handshake record, the ClientHello's own header
# and its version: 11 bytes, after which the server waits for the rest.
STALLED_CLIENT_HELLO = bytes.fromhex("1603010200" "010001fc" "0303")
STALLED_HEAD = b"GET / HTTP/"


def whole_client_hello() -> bytes:
    """A real, complete ClientHello (Python's OpenSSL), for a flood that stalls one step later:
    the daemon makes a session, answers, and waits for the client's next flight."""
    context = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    client = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        client.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


PLAIN_GET = b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"


def raise_open_file_limit(needed: int):
    """The test holds one descriptor per flood socket; root may raise the hard limit too.
    The daemon inherits the limit (and raises its own soft limit to the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, max(hard, needed)))


class Flood:
    """Non-blocking sockets from many addresses, each sending `payload` once connected and
    then nothing; kept open until `close`. Connecting never blocks on a full backlog."""

    def __init__(self, port: int, payload: bytes):
        self.port = port
        self.payload = payload
        self.sockets: list[socket.socket] = []
        self.selector = selectors.DefaultSelector()

    def open_round(self, sources: list[str]):
        """One connection from each of `sources`."""
        for source in sources:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.bind((source, 0))
            code = sock.connect_ex(("127.0.0.1", self.port))
            assert code in (0, errno.EINPROGRESS), f"connect from {source}: {errno.errorcode.get(code, code)}"
            self.sockets.append(sock)
            self.selector.register(sock, selectors.EVENT_WRITE)
        self.send_pending(deadline=time.monotonic() + 0.05)

    def send_pending(self, deadline: float):
        """Sends the payload on every socket whose connection completed, until `deadline` or
        none is left waiting."""
        while self.selector.get_map() and time.monotonic() < deadline:
            for key, _ in self.selector.select(timeout=max(0.0, deadline - time.monotonic())):
                sock = key.fileobj
                self.selector.unregister(sock)
                try:
                    sock.send(self.payload)
                except OSError:
                    pass  # refused or reset: the flood goes on without it

    @property
    def waiting(self) -> int:
        return len(self.selector.get_map())

    def close(self):
        for sock in self.sockets:
            sock.close()
        self.selector.close()
        self.sockets = []


def plain_answer(port: int, source: str) -> tuple[bytes, float]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(ANSWER_BOUND)
    started = time.monotonic()
    try:
        sock.connect(("127.0.0.1", port))
        sock.sendall(PLAIN_GET)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data, time.monotonic() - started
    finally:
        sock.close()


def https_answer(daemon) -> tuple[int, float]:
    started = time.monotonic()
    reply = https_fetch(daemon, "/files/plain.txt", timeout=ANSWER_BOUND)
    return reply.status, time.monotonic() - started


def fresh_clients_are_answered(daemon, round_index: int, timings: list[float]):
    """A new address on the plain port and a TLS client on the HTTPS port, each answered
    well before any flood connection times out."""
    try:
        plain, plain_took = plain_answer(daemon.port, f"127.0.3.{round_index % 250 + 2}")
        status, https_took = https_answer(daemon)
    except OSError as error:  # socket.timeout included
        pytest.fail(f"a fresh client got no answer within {ANSWER_BOUND:g}s during the flood: {error!r}")
    # With HTTPS on, the plain port sends browsers there: any whole answer is one.
    assert plain.startswith(b"HTTP/1.1 308 ") and b"\r\nLocation: https://" in plain, plain[:200]
    assert status == 200
    timings += [plain_took, https_took]


@pytest.mark.parametrize("target", ["https", "https-whole-hello", "plain"])
def test_a_flood_of_stalled_handshakes_from_100_addresses_leaves_fresh_clients_answered(https_daemon, target):
    raise_open_file_limit(len(ADDRESSES) * PER_ADDRESS + 4096)
    daemon = https_daemon("--head-timeout", HEAD_TIMEOUT)
    port, payload = {
        "https": (daemon.https_port, STALLED_CLIENT_HELLO),
        "https-whole-hello": (daemon.https_port, whole_client_hello()),
        "plain": (daemon.port, STALLED_HEAD),
    }[target]
    # Warm both ports up first, so what the first requests allocate is part of the start.
    timings: list[float] = []
    fresh_clients_are_answered(daemon, 0, timings)
    timings.clear()
    rss_start = rss_kib(daemon.pid)
    rss_peak = rss_start
    flood = Flood(port, payload)
    try:
        deadline = time.monotonic() + FLOOD_SECONDS
        # One address after another, each opening all it may: the order fair shares yield
        # the most slots to (early addresses keep what they took before the server filled).
        for index, source in enumerate(ADDRESSES):
            assert time.monotonic() < deadline, f"the flood took over {FLOOD_SECONDS:g}s to send"
            flood.open_round([source] * PER_ADDRESS)
            if index % 10 == 9:
                flood.send_pending(deadline=time.monotonic() + 1.0)
                rss_peak = max(rss_peak, rss_kib(daemon.pid))
                fresh_clients_are_answered(daemon, index, timings)
        flood.send_pending(deadline=time.monotonic() + 2.0)
        # Every flood socket is still open, those the daemon closed included; the daemon
        # holds every slot it may. Fresh clients are answered all the same.
        for round_index in range(8):
            rss_peak = max(rss_peak, rss_kib(daemon.pid))
            fresh_clients_are_answered(daemon, 100 + round_index, timings)
        held = daemon.fd_count()
    finally:
        flood_sockets, never_connected = len(flood.sockets), flood.waiting
        flood.close()
    assert "every connection slot is taken" in daemon.stderr_text(), daemon.stderr_tail()
    stopped = time.monotonic()
    # Judged once the daemon has closed its side of every flood connection.
    assert wait_until(lambda: daemon.fd_count() <= daemon.baseline_fds, timeout=RSS_SETTLE_SECONDS), daemon.fd_count()
    closed_after = time.monotonic() - stopped
    settled = wait_until(lambda: rss_kib(daemon.pid) <= rss_start + RSS_MARGIN_KIB,
                         timeout=max(0.0, RSS_SETTLE_SECONDS - closed_after), interval=0.25)
    rss_after = rss_kib(daemon.pid)
    print(f"\n{target} flood: {flood_sockets} sockets ({never_connected} never connected), daemon fds during: {held}; "
          f"fresh answers in {min(timings):.3f}-{max(timings):.3f}s (n={len(timings)}); "
          f"RSS start {rss_start} KiB, peak {rss_peak} KiB, after {rss_after} KiB "
          f"({time.monotonic() - stopped:.1f}s after the flood closed; daemon's side closed after {closed_after:.1f}s)")
    assert settled, f"RSS {rss_after} KiB {RSS_SETTLE_SECONDS:g}s after the flood, {rss_start} KiB before it"
    fresh_clients_are_answered(daemon, 200, timings)
