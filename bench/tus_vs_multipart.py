#!/usr/bin/env python3
"""Throughput of one large upload sent two ways to the same daemon in the same run:
tus (POST, then one PATCH per 8 MiB chunk on a keep-alive connection, as the page and
tuspy do) and a plain multipart form (`curl -F file=@...`, one request).

    python3 bench/tus_vs_multipart.py [--size-mib 1024] [--chunk-mib 8] [--rounds 2]

Prints MB/s (10^6 bytes per second) for each; not a test. Uses .build/release/filedrop (or
$FILEDROP_BIN) on loopback with a temporary save directory.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("FILEDROP_BIN", REPO / ".build" / "release" / "filedrop"))


class Daemon:
    """The daemon on 127.0.0.1 port 0; the port comes from its sd_notify READY message, and
    a thread keeps reading that socket so status updates never block it."""

    def __init__(self, save_dir: Path, workdir: Path):
        self.notify_path = str(workdir / "notify")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEDROP_", "NOTIFY_", "LISTEN_"))}
        env["NOTIFY_SOCKET"] = self.notify_path
        self.process = subprocess.Popen(
            [str(BINARY), "--listen", "127.0.0.1:0", "--save-dir", str(save_dir), "--web-root", str(REPO / "web"),
             "--max-upload-size", "64G", "--config="],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port = self._wait_ready()
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_ready(self) -> int:
        self.notify.settimeout(10)
        while True:
            fields = dict(line.split("=", 1) for line in self.notify.recv(65536).decode().splitlines() if "=" in line)
            if "X_FILEDROP_LISTEN" in fields:
                return int(fields["X_FILEDROP_LISTEN"].split(",")[0].rsplit(":", 1)[1])

    def _drain(self):
        self.notify.settimeout(None)
        try:
            while self.notify.recv(65536):
                pass
        except OSError:
            pass

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.notify.close()


def tus_upload(port: int, path: Path, chunk: int) -> None:
    size = path.stat().st_size
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    name = base64.b64encode(path.name.encode()).decode()
    connection.request("POST", "/files/", headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(size),
                                                   "Upload-Metadata": f"filename {name}"})
    created = connection.getresponse()
    created.read()
    assert created.status == 201, created.status
    location = created.getheader("Location")
    offset = 0
    with open(path, "rb") as source:
        while offset < size:
            data = source.read(chunk)
            connection.request("PATCH", location, body=data, headers={
                "Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream",
                "Upload-Offset": str(offset)})
            reply = connection.getresponse()
            reply.read()
            assert reply.status == 204, reply.status
            offset = int(reply.getheader("Upload-Offset"))
    connection.close()


def multipart_upload(port: int, path: Path) -> None:
    subprocess.run(["curl", "-sSf", "-o", "/dev/null", "-F", f"file=@{path}", f"http://127.0.0.1:{port}/upload.html"],
                   check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--chunk-mib", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tmp", default=None, help="directory for the source file and the save directory")
    options = parser.parse_args()
    size = options.size_mib << 20
    workdir = Path(tempfile.mkdtemp(prefix="tus-vs-multipart-", dir=options.tmp))
    try:
        source = workdir / "payload.bin"
        with open(source, "wb") as out:
            for _ in range(options.size_mib):
                out.write(os.urandom(1 << 20))
        save_dir = workdir / "save"
        save_dir.mkdir()
        daemon = Daemon(save_dir, workdir)
        results: dict[str, list[float]] = {"tus": [], "multipart": []}
        try:
            for _ in range(options.rounds):
                for method, upload in (("tus", lambda: tus_upload(daemon.port, source, options.chunk_mib << 20)),
                                       ("multipart", lambda: multipart_upload(daemon.port, source))):
                    started = time.monotonic()
                    upload()
                    elapsed = time.monotonic() - started
                    stored = save_dir / "payload.bin"
                    assert stored.stat().st_size == size, f"{method}: stored {stored.stat().st_size} bytes"
                    stored.unlink()
                    results[method].append(size / elapsed / 1e6)
        finally:
            daemon.stop()
        print(f"{options.size_mib} MiB upload, tus chunks of {options.chunk_mib} MiB, {options.rounds} round(s), loopback")
        for method, rates in results.items():
            print(f"  {method:<10} {max(rates):7.1f} MB/s best   " + "  ".join(f"{rate:.1f}" for rate in rates))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
