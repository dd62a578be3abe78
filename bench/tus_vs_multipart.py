#!/usr/bin/env python3
"""Throughput of one large upload sent two ways to the same daemon in the same run:
tus (POST, then PATCHes on one keep-alive connection sized as the page sizes them,
web/tus.js: 8 MiB first, then what the last one's rate carries in 8 s, at least twice the
last; `--chunk-mib N` sends fixed N MiB PATCHes instead, as the page did before) and a plain
multipart form (`curl -F file=@...`, one request).

    python3 bench/tus_vs_multipart.py [--size-mib 1024] [--chunk-mib N] [--rounds 2]

Prints MB/s (10^6 bytes per second) for each; not a test. Uses .build/release/filedrop (or
$FILEDROP_BIN) on loopback with a temporary save directory.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from filedrop_process import loopback_daemon, random_file

REPO = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("FILEDROP_BIN", REPO / ".build" / "release" / "filedrop"))


FIRST_CHUNK = 8 << 20
PATCH_SECONDS = 8


def page_chunks():
    """web/tus.js PatchSize: yields the next PATCH's size, is sent (bytes, seconds) back."""
    size = FIRST_CHUNK
    while True:
        sent, seconds = yield size
        size = max(size, 2 * sent, round(sent / max(seconds, 0.001) * PATCH_SECONDS))


def fixed_chunks(chunk: int):
    while True:
        yield chunk


def tus_upload(port: int, path: Path, chunk: int | None) -> None:
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
    sizes = fixed_chunks(chunk) if chunk else page_chunks()
    next_size = next(sizes)
    with open(path, "rb") as source:
        while offset < size:
            length = min(next_size, size - offset)
            started = time.monotonic()
            # The body straight from the file (sendfile), as a browser streams a File: reading
            # a 1 GiB PATCH into memory first would time the read, not the upload.
            connection.putrequest("PATCH", location, skip_accept_encoding=True)
            for field, value in (("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"),
                                 ("Upload-Offset", str(offset)), ("Content-Length", str(length))):
                connection.putheader(field, value)
            connection.endheaders()
            connection.sock.sendfile(source, offset, length)
            reply = connection.getresponse()
            reply.read()
            assert reply.status == 204, reply.status
            sent = int(reply.getheader("Upload-Offset")) - offset
            offset += sent
            next_size = sizes.send((sent, time.monotonic() - started)) if not chunk else next_size
    connection.close()


def multipart_upload(port: int, path: Path) -> None:
    subprocess.run(["curl", "-sSf", "-o", "/dev/null", "-F", f"file=@{path}", f"http://127.0.0.1:{port}/upload.html"],
                   check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--chunk-mib", type=int, default=None, help="fixed PATCH size (default: the page's)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tmp", default=None, help="directory for the source file and the save directory")
    options = parser.parse_args()
    size = options.size_mib << 20
    workdir = Path(tempfile.mkdtemp(prefix="tus-vs-multipart-", dir=options.tmp))
    try:
        source = random_file(workdir / "payload.bin", options.size_mib)
        daemon, save_dir = loopback_daemon(BINARY, REPO, workdir)
        results: dict[str, list[float]] = {"tus": [], "multipart": []}
        try:
            for _ in range(options.rounds):
                chunk = options.chunk_mib << 20 if options.chunk_mib else None
                for method, upload in (("tus", lambda: tus_upload(daemon.port, source, chunk)),
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
        chunking = f"chunks of {options.chunk_mib} MiB" if options.chunk_mib else "the page's chunking"
        print(f"{options.size_mib} MiB upload, tus with {chunking}, {options.rounds} round(s), loopback")
        for method, rates in results.items():
            print(f"  {method:<10} {statistics.median(rates):7.1f} MB/s median, {max(rates):7.1f} best   "
                  + "  ".join(f"{rate:.1f}" for rate in rates))
        print(f"  tus ÷ multipart: {statistics.median(results['tus']) / statistics.median(results['multipart']):.2f}x (medians)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
