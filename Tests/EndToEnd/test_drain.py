"""SIGTERM drain (daemon(7)): the daemon stops taking connections at once - a new one is
refused (or answered 503), not left unanswered in the listen backlog - while an upload in
flight still finishes and is stored intact."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from http_raw import build_request

# Serial (run alone after the others, see pytest.ini): a new connection must be refused
# within REFUSAL_BOUND of STOPPING=1.
pytestmark = pytest.mark.serial

REFUSAL_BOUND = 0.1
SIZE = 256 * 1024


def new_connection_outcome(host: str, port: int, timeout: float) -> str:
    """"refused", "503", or what else happened to a fresh connection asking for a page."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect((host, port))
        except ConnectionRefusedError:
            return "refused"
        try:
            sock.sendall(b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
            data = sock.recv(4096)
        except socket.timeout:
            return "no answer"
        except ConnectionResetError:
            return "reset"
        return "503" if data.startswith(b"HTTP/1.1 503 ") else f"answered {data[:40]!r}"


def start_half_upload(daemon, name: str) -> tuple[object, bytes]:
    """A PUT of SIZE random bytes with only the first half sent yet: the connection and body."""
    body = os.urandom(SIZE)
    upload = daemon.connect(timeout=10)
    upload.send(build_request("PUT", f"/files/{name}", headers=[("Content-Length", str(SIZE))]))
    upload.send(body[:SIZE // 2])
    time.sleep(0.2)
    return upload, body


def test_sigterm_refuses_new_connections_at_once_while_an_upload_finishes(daemon_factory):
    daemon = daemon_factory("--drain-timeout", "10s")
    upload, body = start_half_upload(daemon, "during-drain.bin")

    os.kill(daemon.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5.0
    while daemon.notification_value("STOPPING") is None:
        assert time.monotonic() < deadline, "no STOPPING=1 after SIGTERM"
        time.sleep(0.002)
    stopping_seen = time.monotonic()
    for host, port in (("127.0.0.1", daemon.port), ("::1", daemon.port6)):
        outcome = new_connection_outcome(host, port, timeout=REFUSAL_BOUND)
        elapsed = time.monotonic() - stopping_seen
        assert outcome in ("refused", "503"), f"a new connection to [{host}] during the drain: {outcome}"
        assert elapsed < REFUSAL_BOUND, f"refused only {elapsed:.3f}s after STOPPING=1"

    # The upload that was in flight still completes, and the daemon then exits by itself.
    upload.send(body[SIZE // 2:])
    response = upload.read_response(timeout=5)
    assert response.status == 201, response
    assert (daemon.save_dir / "during-drain.bin").read_bytes() == body
    daemon.process.wait(timeout=5)
    assert daemon.process.returncode == 0, daemon.stderr_tail()


def test_a_socket_inherited_from_systemd_is_left_open_for_the_next_start(daemon_factory):
    """With socket activation systemd holds the listening socket: at SIGTERM the daemon
    only stops polling it, so a connection made during the drain waits in the backlog for
    the next start (here the test, which holds its own copy, takes it over)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    # sd_listen_fds(3): the socket at descriptor 3, LISTEN_FDS=1, LISTEN_PID the daemon's own.
    wrapper = ["bash", "-c", f'exec 3<&{listener.fileno()}; LISTEN_PID=$$ LISTEN_FDS=1 exec "$@"', "bash"]
    try:
        daemon = daemon_factory(pass_fds=(listener.fileno(),), command_prefix=wrapper)
        assert daemon.port == port, daemon.notification_value("X_FILEDROP_LISTEN")
        upload, body = start_half_upload(daemon, "inherited.bin")
        os.kill(daemon.pid, signal.SIGTERM)
        daemon.wait_for_notification("STOPPING", 5.0)
        time.sleep(0.1)
        waiting = socket.create_connection(("127.0.0.1", port), timeout=2)  # not refused
        with waiting:
            waiting.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            upload.send(body[SIZE // 2:])
            assert upload.read_response(timeout=5).status == 201
            daemon.process.wait(timeout=5)
            assert daemon.process.returncode == 0, daemon.stderr_tail()
            assert (daemon.save_dir / "inherited.bin").read_bytes() == body
            # The daemon never took it; the next holder of the socket does.
            listener.settimeout(2)
            taken_over, _ = listener.accept()
            with taken_over:
                taken_over.settimeout(2)
                assert taken_over.recv(100).startswith(b"GET / HTTP/1.1")
    finally:
        listener.close()


def test_an_upload_still_arriving_at_the_drain_deadline_gets_a_503_with_a_sentence(daemon_factory):
    """Past drain-timeout the daemon cannot wait any longer: the upload it gives up on is
    told so (503, a sentence, Connection: close), not cut with a bare reset, and nothing of
    it is kept."""
    daemon = daemon_factory("--drain-timeout", "1s")
    upload, _ = start_half_upload(daemon, "too-slow.bin")
    os.kill(daemon.pid, signal.SIGTERM)
    response = upload.read_response(timeout=10)
    assert response.status == 503, response
    assert response.says_close, response
    assert b"restarting" in response.body and b"Send it again" in response.body, response.body
    daemon.process.wait(timeout=10)
    assert daemon.process.returncode == 0, daemon.stderr_tail()
    assert not (daemon.save_dir / "too-slow.bin").exists()
    assert not daemon.temp_files()
