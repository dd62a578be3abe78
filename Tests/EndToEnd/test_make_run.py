"""`make run` must serve the page. The test starts the daemon through the Makefile's `serve`
step (what `make run` does after building) on a free port, on both wildcard addresses as
`make run` does, and fetches `/` over IPv4 and IPv6 loopback."""

import socket

from conftest import FILEDROP_BIN, REPO, Daemon, free_fixed_port
from http_raw import fetch

# `make run` listens on both wildcard addresses (dual-stack), so the port must be free on both.
BOTH_WILDCARDS = ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::"))

class MakeServeDaemon(Daemon):
    """The daemon as `make serve` starts it; make stays the parent, the daemon is its child."""

    def __init__(self, workdir, port: int):
        super().__init__(workdir, [], listen=[], fill=False)
        self.make_port = port

    def command(self):
        return ["make", "--no-print-directory", "-C", str(REPO), "serve", f"PORT={self.make_port}",
                f"BIN={FILEDROP_BIN}", f"SAVE_DIR={self.save_dir / 'uploads'}"]

    @property
    def pid(self) -> int:
        children = open(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read().split()
        # The recipe execs the daemon, so make's only child is the daemon itself.
        return int(children[0]) if children else self.process.pid


def test_make_serve_serves_the_page_on_both_address_families(tmp_path):
    port = free_fixed_port(BOTH_WILDCARDS)
    daemon = MakeServeDaemon(tmp_path, port)
    try:
        daemon.start()
        command_line = open(f"/proc/{daemon.pid}/cmdline", "rb").read().split(b"\0")
        assert str(FILEDROP_BIN).encode() in command_line, "make's child is not the daemon"
        assert f"[::]:{port}" in daemon.notification_value("X_FILEDROP_LISTEN")
        assert (daemon.save_dir / "uploads").is_dir()
        for base in (f"http://127.0.0.1:{port}", f"http://[::1]:{port}"):
            response = fetch(f"{base}/")
            assert response.status == 200
            assert response.header("Content-Type") == "text/html; charset=utf-8"
            assert b"<html" in response.body.lower()
        daemon.assert_no_fd_leak()
        assert daemon.stop() == 0
    finally:
        daemon.cleanup()


def test_make_serve_prints_where_to_open_the_page(tmp_path):
    port = free_fixed_port(BOTH_WILDCARDS)
    daemon = MakeServeDaemon(tmp_path, port)
    try:
        daemon.start()
        daemon.stop()
        output = daemon.stderr_text() + daemon._stdout_path.read_text(errors="replace")
        assert "http://" in output and f":{port}" in output, output
    finally:
        daemon.cleanup()
