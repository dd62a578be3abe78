"""Fixtures that run the real filedrop binary, modeled on dufs `tests/fixtures.rs` and
miniserve `tests/fixtures/mod.rs`.

Each test gets a daemon on port 0 (IPv4 and IPv6 loopback) serving a temp save directory
full of awkward names. Readiness and the bound ports come from a NOTIFY_SOCKET the test
owns, as systemd would provide it. Teardown stops the daemon with SIGTERM and checks that it
exited 0, said STOPPING=1, left no temp file and leaked no file descriptor.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from http_raw import RawConnection

REPO = Path(__file__).resolve().parents[2]
FILEDROP_BIN = Path(os.environ.get("FILEDROP_BIN", REPO / ".build" / "release" / "filedrop"))
WEB_ROOT = REPO / "web"
READY_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
TEMP_FILE_PREFIX = ".filedrop-tmp"

# Names that break naive quoting, escaping, percent-decoding or path handling.
# The daemon serves some and refuses (4xx) the ones its name policy rejects: control
# characters, and hidden names unless --allow-hidden.
AWKWARD_FILES: dict[str, bytes] = {
    "file\n1.txt": b"a newline in the name\n",
    "\N{GRINNING FACE}.bin": bytes(range(256)),
    'quote"s.txt': b"double quote\n",
    "%20.txt": b"percent twenty\n",
    "..txt": b"two dots\n",
    "plain.txt": b"hello, filedrop\n",
    "sub dir/inner.txt": b"inside a subdirectory\n",
}
REFUSED_NAMES = {"file\n1.txt", "..txt"}
SERVED_FILES = {name: content for name, content in AWKWARD_FILES.items() if name not in REFUSED_NAMES}


def free_fixed_port(addresses: tuple[tuple[int, str], ...] = ((socket.AF_INET, "127.0.0.1"),)) -> int:
    """A port free on every (family, host) in `addresses`, for a program that cannot bind
    port 0 and say which port it got (HAProxy, `make serve`). It comes from below the
    kernel's ephemeral range, where port-0 binds and outgoing connections never land, so no
    test running beside this one takes it before the program binds it; each pytest-xdist
    worker looks in a slice of its own, so neither does another worker."""
    ephemeral_start = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    low = 10000 if ephemeral_start > 10000 + 100 * workers else 1024
    width = (ephemeral_start - low) // workers
    start = low + worker * width
    offset = random.randrange(width)
    for step in range(width):
        port = start + (offset + step) % width
        try:
            for family, host in addresses:
                with socket.socket(family, socket.SOCK_STREAM) as probe:
                    if family == socket.AF_INET6:
                        probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                    probe.bind((host, port))
        except OSError:
            continue
        return port
    raise AssertionError(f"no free port in {start}-{start + width - 1} on {addresses}")


def parse_notification(datagram: bytes) -> dict[str, str]:
    """sd_notify(3): newline-separated KEY=VALUE assignments."""
    fields = {}
    for line in datagram.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key] = value
    return fields


def parse_listen_addresses(value: str) -> list[tuple[str, int]]:
    """`127.0.0.1:8080,[::1]:8080` -> [("127.0.0.1", 8080), ("::1", 8080)]."""
    addresses = []
    for item in filter(None, value.split(",")):
        host, _, port = item.strip().rpartition(":")
        addresses.append((host.strip("[]"), int(port)))
    return addresses


class Daemon:
    """One running filedrop process and everything a test needs to talk to it."""

    ready_timeout_seen: str | None = None

    def __init__(self, workdir: Path, extra_args: list[str], env: dict[str, str] | None = None,
                 listen: list[str] | None = None, fill: bool = True, pass_fds: tuple[int, ...] = (),
                 command_prefix: list[str] | None = None):
        self.workdir = workdir
        self.save_dir = workdir / "files"
        self.save_dir.mkdir()
        if fill:
            for name, content in AWKWARD_FILES.items():
                path = self.save_dir / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
        self.extra_args = extra_args
        self.listen = listen or ["127.0.0.1:0", "[::1]:0"]
        self.env = env or {}
        self.pass_fds = pass_fds
        self.command_prefix = command_prefix or []
        self.notifications: list[dict[str, str]] = []
        self.connections: list[RawConnection] = []
        self.process: subprocess.Popen | None = None
        self.baseline_fds: int | None = None
        # AF_UNIX paths are limited to 108 bytes; pytest's tmp_path can be longer.
        self._notify_dir = tempfile.mkdtemp(prefix="fdn-", dir="/tmp")
        self.notify_path = os.path.join(self._notify_dir, "notify")
        self.notify_socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify_socket.bind(self.notify_path)
        # Read every datagram as it comes, as systemd does: a datagram socket queues only a
        # few messages, and a daemon whose notifications pile up unread would lose later
        # ones (STOPPING=1) however long a test runs.
        self._reader_stop = threading.Event()
        self._reader = threading.Thread(target=self._read_notifications, daemon=True)
        self._reader.start()
        self._stderr_path = workdir / "daemon.stderr"
        self._stdout_path = workdir / "daemon.stdout"

    # Lifecycle

    def command(self) -> list[str]:
        args = self.command_prefix + [str(FILEDROP_BIN)]
        for address in self.listen:
            args += ["--listen", address]
        # No --web-root: the daemon serves the page built into it, as it ships.
        args += ["--save-dir", str(self.save_dir)]
        return args + self.extra_args

    def start(self) -> "Daemon":
        if not FILEDROP_BIN.is_file():
            pytest.fail(f"no daemon binary at {FILEDROP_BIN}: run `make build` or set FILEDROP_BIN")
        if Daemon.ready_timeout_seen is not None:
            # A daemon that never becomes ready would cost every remaining test the full wait.
            pytest.fail("not started: an earlier daemon never became ready:\n" + Daemon.ready_timeout_seen)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("FILEDROP_", "LISTEN_", "NOTIFY_", "WATCHDOG_", "MAKE", "MFLAGS"))}
        env.update(self.env)
        env["NOTIFY_SOCKET"] = self.notify_path
        with open(self._stderr_path, "wb") as stderr, open(self._stdout_path, "wb") as stdout:
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                            stdout=stdout, stderr=stderr, env=env,
                                            cwd=self.workdir, pass_fds=self.pass_fds)
        self.wait_for_notification("READY", READY_TIMEOUT)
        addresses = parse_listen_addresses(self.notification_value("X_FILEDROP_LISTEN") or "")
        v4 = [port for host, port in addresses if ":" not in host]
        v6 = [port for host, port in addresses if ":" in host]
        self.port = v4[0] if v4 else None
        self.port6 = v6[0] if v6 else None
        secure = parse_listen_addresses(self.notification_value("X_FILEDROP_HTTPS_LISTEN") or "")
        self.https_port = next((port for host, port in secure if ":" not in host), None)
        self.https_port6 = next((port for host, port in secure if ":" in host), None)
        self.baseline_fds = self.fd_count()
        return self

    def stop(self, check: bool = True) -> int:
        """SIGTERM, wait, and (with `check`) require exit 0, STOPPING=1 and no temp file."""
        for connection in self.connections:
            connection.close()
        if self.process is None:
            return 0
        if self.process.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
        try:
            code = self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
            pytest.fail(f"daemon ignored SIGTERM for {STOP_TIMEOUT}s\n{self.stderr_tail()}")
        # The daemon sent STOPPING=1 before it exited, but the reader thread may not have
        # taken it off the socket yet: give it a moment rather than race it.
        deadline = time.monotonic() + 2.0
        while self.notification_value("STOPPING") is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if check:
            assert code == 0, f"daemon exited {code}\n{self.stderr_tail()}"
            assert "1" == self.notification_value("STOPPING"), \
                f"no STOPPING=1 notification: {self.notifications}"
            assert self.temp_files() == [], f"temp files left behind: {self.temp_files()}"
        return code

    def cleanup(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
        self._reader_stop.set()
        self._reader.join(timeout=2)
        self.notify_socket.close()
        shutil.rmtree(self._notify_dir, ignore_errors=True)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url6(self) -> str:
        return f"http://[::1]:{self.port6}"

    @property
    def https_url(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def stderr_text(self) -> str:
        return self._stderr_path.read_bytes().decode("utf-8", "replace")

    def stderr_tail(self, lines: int = 40) -> str:
        text = "daemon stderr (last lines):\n" + "\n".join(self.stderr_text().splitlines()[-lines:])
        stdout = self._stdout_path.read_bytes().decode("utf-8", "replace").splitlines()[-lines:]
        return text + ("\ndaemon stdout (last lines):\n" + "\n".join(stdout) if stdout else "")

    def wait_for_log_lines(self, needle: str, timeout: float = 10.0) -> list[str]:
        """The log lines containing `needle`, once there is at least one (bounded wait)."""
        deadline = time.monotonic() + timeout
        while not (lines := [line for line in self.stderr_text().splitlines() if needle in line]):
            assert time.monotonic() < deadline, f"no log line with {needle!r}\n{self.stderr_tail()}"
            time.sleep(0.05)
        return lines

    def flush_access_log(self):
        """Returns once every request answered so far has its access-log line written. The
        lines are written in batches off the event loops: a marker request's line is written
        with theirs or after, and a second marker's after any batch the first one's shared."""
        for _ in range(2):
            marker = f"/access-log-flushed-{uuid.uuid4().hex}"
            connection = self.connect()
            connection.request("GET", marker)
            connection.close()
            self.wait_for_log_lines(f"GET {marker} ")

    def assert_logged_as_cut(self, target: str, received: int, size: int):
        """One access-log line for `target` marked as cut, with bytes sent between what the
        client read and the whole body."""
        lines = self.wait_for_log_lines(f"GET {target} ")
        assert len(lines) == 1 and f"GET {target} 200 (response cut)" in lines[0], lines
        sent = int(re.search(r" bytes=(\d+)", lines[0]).group(1))
        assert received <= sent < size, lines[0]

    # sd_notify

    def _read_notifications(self):
        self.notify_socket.settimeout(0.1)
        while not self._reader_stop.is_set():
            try:
                datagram = self.notify_socket.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.notifications.append(parse_notification(datagram))

    def drain_notifications(self):
        """Kept for callers: a background thread reads the socket continuously."""

    def notification_value(self, key: str) -> str | None:
        for fields in reversed(self.notifications):
            if key in fields:
                return fields[key]
        return None

    def wait_for_notification(self, key: str, timeout: float) -> str:
        """Wait for a datagram carrying `key`; fail early with stderr if the daemon exits."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.notification_value(key)
            if value is not None:
                return value
            if self.process.poll() is not None:
                pytest.fail(f"daemon exited with {self.process.returncode} before {key}\n"
                            f"{self.stderr_tail()}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                message = f"no {key} within {timeout}s; got {self.notifications}\n{self.stderr_tail()}"
                if key == "READY":
                    Daemon.ready_timeout_seen = message
                pytest.fail(message)
            time.sleep(min(0.02, remaining))

    # Connections

    def connect(self, ipv6: bool = False, timeout: float = 5.0) -> RawConnection:
        """A raw TCP connection, closed by teardown if the test does not close it."""
        address = ("::1", self.port6) if ipv6 else ("127.0.0.1", self.port)
        connection = RawConnection.open(address, timeout=timeout)
        self.connections.append(connection)
        return connection

    # Leaks

    def fd_count(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def open_fds(self) -> list[str]:
        targets = []
        for fd in sorted(os.listdir(f"/proc/{self.pid}/fd"), key=int):
            try:
                targets.append(f"{fd} -> {os.readlink(f'/proc/{self.pid}/fd/{fd}')}")
            except FileNotFoundError:
                pass
        return targets

    def assert_no_fd_leak(self, timeout: float = 3.0):
        """Call after closing every connection: the daemon closes its side asynchronously,
        so wait (bounded) until it holds no more descriptors than right after start."""
        for connection in self.connections:
            connection.close()
        deadline = time.monotonic() + timeout
        while self.fd_count() > self.baseline_fds:
            if time.monotonic() > deadline:
                pytest.fail(f"daemon holds {self.fd_count()} fds, {self.baseline_fds} after start:\n"
                            + "\n".join(self.open_fds()))
            time.sleep(0.05)

    def temp_files(self) -> list[str]:
        return sorted(str(path.relative_to(self.save_dir)) for path in self.save_dir.rglob("*")
                      if path.name.startswith(TEMP_FILE_PREFIX))


def pytest_collection_modifyitems(items):
    """pytest-xdist hands the files to its workers in collection order: the files marked
    `long` go first, so a run does not end with one worker alone on one of them."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture
def daemon_factory(tmp_path):
    """Start daemons with extra flags: `daemon_factory("--max-upload-size", "1K")` (or
    `extra_args=[...]`). Keyword arguments: env (extra environment), listen (addresses),
    fill (awkward names), pass_fds (descriptors to inherit) and command_prefix (a wrapper
    the binary runs under, e.g. a shell that sets LISTEN_PID)."""
    daemons: list[Daemon] = []

    def start(*args: str, extra_args: list[str] | None = None, env: dict[str, str] | None = None,
              listen: list[str] | None = None, fill: bool = True, pass_fds: tuple[int, ...] = (),
              command_prefix: list[str] | None = None) -> Daemon:
        workdir = tmp_path / f"daemon{len(daemons)}"
        workdir.mkdir()
        daemon = Daemon(workdir, list(args) + list(extra_args or []), env=env, listen=listen, fill=fill,
                        pass_fds=pass_fds, command_prefix=command_prefix)
        daemons.append(daemon)
        return daemon.start()

    yield start
    try:
        # Only daemons that became ready are checked; a failed start has already failed the test.
        for daemon in daemons:
            if daemon.baseline_fds is not None:
                if daemon.process.poll() is None:
                    daemon.assert_no_fd_leak()
                daemon.stop()
    finally:
        for daemon in daemons:
            daemon.cleanup()


@pytest.fixture
def daemon(daemon_factory) -> Daemon:
    """A daemon with default settings."""
    return daemon_factory()


# Debian's Chromium (or FILEDROP_CHROMIUM) driven by Playwright from PyPI; Playwright never
# downloads a browser of its own. One browser per test module, shared by the page tests.
CHROMIUM = os.environ.get("FILEDROP_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


# HTTPS: a throwaway CA and ECDSA P-256 leaves made once per session with the openssl CLI
# (tls_support.py), and daemons started with `tls = files` on them. Clients trust that CA
# and nothing else; no test turns certificate checks off.


@pytest.fixture(scope="session")
def tls_pki(tmp_path_factory):
    """The test CA (`.ca`), the leaf for localhost, 127.0.0.1 and ::1 (`.leaf`, `.key`), a
    second CA that signed nothing we serve (`.other_ca`), and `.issue(...)` for more leaves."""
    from tls_support import TestPKI
    return TestPKI.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def https_daemon(daemon_factory, tls_pki):
    """Start a daemon serving HTTPS on 127.0.0.1 and ::1 (port 0) with the test leaf:
    `https_daemon("--head-timeout", "1s", cert=..., key=...)`; other keyword arguments go to
    daemon_factory. The daemon has `.https_port`, `.https_port6`, `.https_url` and `.ca`."""

    def start(*args: str, cert: Path | None = None, key: Path | None = None,
              https_listen: list[str] | None = None, **options) -> Daemon:
        tls_args = ["--tls", "files", "--tls-cert", str(cert or tls_pki.leaf), "--tls-key", str(key or tls_pki.key)]
        for address in https_listen or ["127.0.0.1:0", "[::1]:0"]:
            tls_args += ["--https-listen", address]
        daemon = daemon_factory(*tls_args, *args, **options)
        assert daemon.https_port is not None, f"no X_FILEDROP_HTTPS_LISTEN in {daemon.notifications}"
        daemon.ca = tls_pki.ca
        return daemon

    return start
