"""Several real filedrop daemons on one save directory behind a real HAProxy (issue 20).

The HAProxy configuration is `docs/haproxy.cfg`, the one docs/deployment.md shows: only the
addresses on its `bind`, `server` and `stats socket` lines are changed, so the documented
configuration is the tested one. Everything listens on loopback, on ports chosen free at
runtime (the daemons bind port 0 and say which through their NOTIFY_SOCKET; HAProxy needs a
number, taken from a socket bound to port 0 and closed just before it starts).

Each daemon runs in a private mount namespace of its own (`unshare --mount`) with the save
directory bind-mounted onto itself, so a test can make that one daemon's view read-only
(`make_read_only`) while the others go on writing: the tests run as root, which chmod would
not stop, and a read-only mount stops root too (EROFS).
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from conftest import TEMP_FILE_PREFIX, Daemon, free_fixed_port
from haproxy_config import haproxy_config

HAPROXY_BIN = shutil.which("haproxy") or "/usr/sbin/haproxy"
# Mount namespaces, bind mounts and FUSE need root; CI runs `make test` as root.
requires_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: mount namespaces, bind mounts, bindfs")
STATE_TIMEOUT = 15.0
# Behind HAProxy every request comes from 127.0.0.1, so the daemons' per-client limits see
# all the test's clients as one (docs/deployment.md says so for operators).
DAEMON_ARGS = ["--max-uploads-per-client", "64", "--tus-max-per-client", "200", "--max-connections-per-client", "1024"]


class ClusterDaemon(Daemon):
    """A daemon on `save_dir` (shared), in a mount namespace of its own."""

    def __init__(self, workdir: Path, save_dir: Path, extra_args: list[str]):
        workdir.mkdir()
        bind_self = 'mount --bind "$0" "$0" && exec "$@"'
        super().__init__(workdir, DAEMON_ARGS + extra_args, fill=False, listen=["127.0.0.1:0"],
                         command_prefix=["unshare", "--mount", "--propagation", "private",
                                         "sh", "-c", bind_self, str(save_dir)])
        os.rmdir(self.save_dir)
        self.save_dir = save_dir

    def make_read_only(self):
        """This daemon's view of the save directory becomes read-only; the others' stays."""
        subprocess.run(["nsenter", "--target", str(self.pid), "--mount", "--",
                        "mount", "-o", "remount,bind,ro", str(self.save_dir)], check=True, timeout=10)

    def make_writable(self):
        subprocess.run(["nsenter", "--target", str(self.pid), "--mount", "--",
                        "mount", "-o", "remount,bind,rw", str(self.save_dir)], check=True, timeout=10)


class HAProxy:
    """HAProxy in the foreground (`-db`) with `haproxy_config`; `states()` reads its stats socket."""

    def __init__(self, workdir: Path, daemon_ports: list[int]):
        self.workdir = workdir
        self.port = free_fixed_port()
        self.stats_socket = Path(workdir) / "haproxy.sock"
        self.config = Path(workdir) / "haproxy.cfg"
        self.config.write_text(haproxy_config(self.port, daemon_ports, self.stats_socket))
        self.log_path = Path(workdir) / "haproxy.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "HAProxy":
        check = subprocess.run([HAPROXY_BIN, "-c", "-f", str(self.config)], capture_output=True, text=True, timeout=10)
        assert check.returncode == 0, f"haproxy refuses the configuration:\n{check.stdout}{check.stderr}"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([HAPROXY_BIN, "-db", "-f", str(self.config)], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        self.wait_for(lambda states: states and all(state == "UP" for state in states.values()), "every server UP")
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def command(self, line: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stats:
            stats.settimeout(5)
            stats.connect(str(self.stats_socket))
            stats.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := stats.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def states(self) -> dict[str, str]:
        """Each backend server's status ("UP", "DOWN", "UP 1/2"...) from `show stat`."""
        if not self.stats_socket.exists():
            return {}
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
        return {row["svname"]: row["status"] for row in rows
                if row["pxname"] == "daemons" and row["svname"] not in ("FRONTEND", "BACKEND")}

    def wait_for(self, condition, what: str, timeout: float = STATE_TIMEOUT) -> dict[str, str]:
        deadline = time.monotonic() + timeout
        states: dict[str, str] = {}
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"haproxy exited:\n{self.log_path.read_text()}"
            try:
                states = self.states()
            except (ConnectionRefusedError, FileNotFoundError):
                states = {}
            if condition(states):
                return states
            time.sleep(0.1)
        raise AssertionError(f"HAProxy: no {what} within {timeout}s: {states}\n{self.log_path.read_text()}")


class Cluster:
    """`count` daemons on one save directory and HAProxy in front, round-robin."""

    def __init__(self, workdir: Path, save_dir: Path, count: int = 3, extra_args: list[str] | None = None):
        self.save_dir = save_dir
        self.daemons = [ClusterDaemon(workdir / f"daemon{index + 1}", save_dir, extra_args or []) for index in range(count)]
        self.workdir = workdir
        self.haproxy: HAProxy | None = None

    def start(self) -> "Cluster":
        for daemon in self.daemons:
            daemon.start()
        self.haproxy = HAProxy(self.workdir, [daemon.port for daemon in self.daemons]).start()
        return self

    @property
    def url(self) -> str:
        return self.haproxy.url

    def stop(self):
        if self.haproxy is not None:
            self.haproxy.stop()
        for daemon in self.daemons:
            daemon.stop(check=False)
            daemon.cleanup()

    def extra_entries(self, expected: set[str]) -> list[str]:
        """Everything in the save directory that is not an expected file: temporaries,
        partial uploads, tus records, stray folders."""
        found = {str(path.relative_to(self.save_dir)) for path in self.save_dir.rglob("*")}
        return sorted(found - expected)


def temp_files(save_dir: Path) -> list[str]:
    return sorted(str(path) for path in save_dir.rglob("*") if path.name.startswith(TEMP_FILE_PREFIX))


class BindfsMount:
    """`backing` seen through bindfs (FUSE) at `mountpoint`: a file system that refuses
    O_TMPFILE (EOPNOTSUPP), so the daemons publish through their named-temporary fallback,
    as they must on NFS."""

    def __init__(self, backing: Path, mountpoint: Path):
        self.backing, self.mountpoint = backing, mountpoint

    def __enter__(self) -> Path:
        if not os.path.exists("/dev/fuse"):
            pytest.skip("no /dev/fuse here (a container without the FUSE device): bindfs cannot mount")
        self.backing.mkdir()
        self.mountpoint.mkdir()
        subprocess.run(["bindfs", str(self.backing), str(self.mountpoint)], check=True, timeout=10)
        try:
            os.close(os.open(self.mountpoint, os.O_TMPFILE | os.O_WRONLY, 0o600))
        except OSError as error:
            assert error.errno == errno.EOPNOTSUPP, error
        else:
            self.__exit__()
            raise AssertionError("bindfs took O_TMPFILE: this kernel's FUSE would not exercise the fallback")
        return self.mountpoint

    def __exit__(self, *_):
        subprocess.run(["fusermount3", "-u", str(self.mountpoint)], check=False, timeout=10)


@pytest.fixture(params=["local", "bindfs"])
def save_dir(request, tmp_path):
    """The shared save directory: on the test's own file system, or through bindfs, which
    refuses O_TMPFILE (as NFS does) so the daemons publish through their fallback."""
    if request.param == "local":
        directory = tmp_path / "shared"
        directory.mkdir()
        yield directory
        return
    with BindfsMount(tmp_path / "backing", tmp_path / "shared") as directory:
        yield directory


# Plain uploads for the balancer: multipart and PUT alternating, some sharing a name.
UPLOADS = 200
SHARED_NAMES = 4
SHARED_NAME_UPLOADS = 40
REQUEST_TIMEOUT = 30


def upload_plan() -> list[tuple[str, str, bytes]]:
    """(method, name, content): multipart and PUT alternating, some names shared."""
    rng = random.Random(20)
    plan = []
    for index in range(UPLOADS):
        name = f"same-{index % SHARED_NAMES}.txt" if index < SHARED_NAME_UPLOADS else f"file-{index:03}.bin"
        content = f"upload {index}\n".encode() + os.urandom(rng.randrange(0, 256 << 10))
        plan.append(("multipart" if index % 2 else "put", name, content))
    return plan


def send(base: str, method: str, name: str, content: bytes) -> requests.Response:
    """One upload on a connection of its own, so HAProxy balances every upload."""
    headers = {"Connection": "close"}
    if method == "put":
        return requests.put(f"{base}/files/{name}", data=content, headers=headers, timeout=REQUEST_TIMEOUT)
    return requests.post(f"{base}/upload", files={"file": (name, content)}, headers=headers, timeout=REQUEST_TIMEOUT)
