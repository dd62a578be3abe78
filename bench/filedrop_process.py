"""The filedrop a stand-alone benchmark script starts, and the sd_notify socket it is given:
the daemon says on it when it is ready and on which port (X_FILEDROP_LISTEN, port 0
resolved), and a thread keeps reading it afterwards so status updates never block the
daemon. A path, not an abstract name: a daemon in another network namespace reaches it too."""

from __future__ import annotations

import os
from pathlib import Path
import socket
import subprocess
import threading


class NotifySocket:
    def __init__(self, path: str):
        self.path = path
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(path)

    def wait_for_port(self, timeout: float) -> int:
        """The first listening port the daemon reports in its READY message; then keeps draining."""
        self.socket.settimeout(timeout)
        while True:
            fields = dict(line.split("=", 1) for line in self.socket.recv(65536).decode().splitlines() if "=" in line)
            if "X_FILEDROP_LISTEN" in fields:
                threading.Thread(target=self._drain, daemon=True).start()
                return int(fields["X_FILEDROP_LISTEN"].split(",")[0].rsplit(":", 1)[1])

    def _drain(self):
        self.socket.settimeout(None)
        try:
            while self.socket.recv(65536):
                pass
        except OSError:
            pass

    def close(self):
        self.socket.close()


class FiledropProcess:
    """filedrop started with `argv` (the binary and its flags, or a wrapper such as `ip netns
    exec NS` before them), NOTIFY_SOCKET at `notify_path`, none of the caller's FILEDROP_*
    settings, quiet; `port` is the one its READY message names."""

    def __init__(self, argv: list[str], notify_path: str, ready_timeout: float = 10):
        self.notify = NotifySocket(notify_path)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEDROP_", "NOTIFY_", "LISTEN_"))}
        env["NOTIFY_SOCKET"] = notify_path
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.pid = self.process.pid
        self.port = self.notify.wait_for_port(ready_timeout)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.notify.close()


def loopback_daemon(binary: Path, repo: Path, workdir: Path) -> tuple[FiledropProcess, Path]:
    """`binary` on 127.0.0.1, port 0, serving `repo`'s web/, saving into a new `workdir/save`
    (fsync on, its default); also returns that save directory."""
    save_dir = workdir / "save"
    save_dir.mkdir()
    daemon = FiledropProcess([str(binary), "--listen", "127.0.0.1:0", "--save-dir", str(save_dir), "--web-root",
                              str(repo / "web"), "--max-upload-size", "64G", "--config="], str(workdir / "notify"))
    return daemon, save_dir


def random_file(path: Path, size_mib: int) -> Path:
    """`size_mib` MiB of random bytes (a multipart parser meets every byte value)."""
    with open(path, "wb") as out:
        for _ in range(size_mib):
            out.write(os.urandom(1 << 20))
    return path
