#!/usr/bin/env python3
"""Writes Sources/filedrop/hot-text.order: the functions of the daemon's binary that a
start, the usual requests, held keep-alive connections, a reload and a stop execute, for
lld's --symbol-ordering-file (Package.swift), which lays them out side by side.

Why: the kernel maps a file-backed page fault's neighbours too (fault-around, 64 KiB), and
the 1,600 functions a serving daemon runs (about 700 KiB) were spread over 74 such windows of
the 6.5 MiB of text, so 4.8 MiB of text was resident where 2 MiB of pages were touched.
Side by side they fill a few windows.

Usage: scripts/hot-text.py [path/to/release/filedrop] (default .build/release/filedrop).
Runs the daemon under valgrind's callgrind (under a minute) and needs curl. Rerun it after
changes that move the serving paths; a stale list costs memory, never correctness (names that
are gone are skipped by the linker). SwiftPM does not know the list is a link input: remove
.build/release/filedrop before the next release build so that it links again.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "Sources" / "filedrop" / "hot-text.order"
HEADER = ("# Functions a serving daemon runs, laid out together by lld (--symbol-ordering-file).\n"
          "# Made by scripts/hot-text.py; see there for why and when to rerun it.\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(port: int, process: subprocess.Popen, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the daemon exited with {process.returncode} before serving")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the daemon did not serve within two minutes")


def curl(*args: str):
    subprocess.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "120", *args], check=True)


def held_connections(port: int, count: int) -> list[socket.socket]:
    """Keep-alive connections that each fetched a small file once, as the bench's `conns`."""
    held = []
    request = f"GET /files/small.bin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received or len(received) < received.index(b"\r\n\r\n") + 4 + 4096:
            chunk = s.recv(65536)
            if not chunk:
                break
            received += chunk
        held.append(s)
    return held


def workload(port: int, work: Path):
    """The requests a daemon serves day to day, over plain HTTP."""
    url = f"http://127.0.0.1:{port}"
    upload = work / "upload.bin"
    for path in ["/", "/app.js", "/style.css", "/config.json", "/i18n-en.json", "/healthz", "/metrics", "/qr.svg",
                 "/files/", "/files/?format=json", "/files/small.bin", "/files/missing.bin"]:
        curl(url + path)
    curl("-H", "Accept-Encoding: gzip", url + "/app.js")
    curl("-r", "100-199", url + "/files/small.bin")
    curl("-I", url + "/files/small.bin")
    curl("-H", "If-None-Match: *", url + "/files/small.bin")
    curl("-T", str(upload), url + "/files/put.bin")
    curl("-F", f"file=@{upload};filename=form.bin;type=application/octet-stream", url + "/upload")
    curl(url + "/files/put.bin")
    curl(url + "/files/?zip")
    curl("-X", "DELETE", url + "/files/form.bin")
    created = subprocess.run(["curl", "-sS", "-D", "-", "-o", "/dev/null", "-X", "POST", "-H", "Tus-Resumable: 1.0.0",
                              "-H", f"Upload-Length: {upload.stat().st_size}", "-H", "Upload-Metadata: filename dHVzLmJpbg==",
                              url + "/files/"], check=True, capture_output=True, text=True).stdout
    location = re.search(r"(?im)^location:\s*(\S+)", created)
    if location:
        target = location.group(1) if location.group(1).startswith("http") else url + location.group(1)
        curl("-X", "PATCH", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Offset: 0",
             "-H", "Content-Type: application/offset+octet-stream", "--data-binary", f"@{upload}", target)
    return held_connections(port, 50)


def executed_functions(profile: Path, binary: Path) -> set[str]:
    """Symbols of `binary` whose instructions a callgrind profile (--dump-instr=yes) counted.
    The addresses are looked up in the symbol table rather than taken from callgrind's
    function names: it charges a tail-called thunk (a metadata accessor is one `jmp`) to
    its caller, and names a recursive call's frames `name'2`."""
    symbols = []
    listing = subprocess.run(["nm", "-n", "--defined-only", str(binary)], check=True, capture_output=True, text=True).stdout
    for line in listing.splitlines():
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[1] in "tTwW":
            symbols.append((int(fields[0], 16), fields[2]))
    starts = [address for address, _ in symbols]
    names, in_binary = set(), False
    for line in profile.read_text(errors="replace").splitlines():
        if line.startswith("ob="):
            in_binary = Path(line[3:].strip()).resolve() == binary
        elif in_binary and line.startswith("0x"):
            index = bisect.bisect_right(starts, int(line.split()[0], 16)) - 1
            if index >= 0:
                names.add(symbols[index][1])
    return names


def functions_sharing_a_section() -> set[str]:
    """Functions of the toolchain's static libraries that share their section with others:
    libswiftCore's Swift.o keeps 12,600 functions in one 1.5 MiB .text, the regex libraries
    860 KiB more. Naming one of them would move the whole section into the hot run and spread
    it out again, so they stay where they are."""
    info = json.loads(subprocess.run(["swiftc", "-print-target-info"], check=True, capture_output=True, text=True).stdout)
    static = Path(info["paths"]["runtimeResourcePath"] + "_static") / "linux"
    shared = set()
    for archive in sorted(static.glob("*.a")):
        sections: dict[tuple[str, str], dict[str, list[str]]] = {}
        member = ""
        listing = subprocess.run(["readelf", "-sW", str(archive)], check=True, capture_output=True, text=True,
                                 errors="replace").stdout
        for line in listing.splitlines():
            if line.startswith("File: "):
                member = line
                continue
            fields = line.split()
            # Num: Value Size Type Bind Vis Ndx Name
            if len(fields) == 8 and fields[3] == "FUNC" and fields[6].isdigit():
                sections.setdefault((member, fields[6]), {}).setdefault(fields[1], []).append(fields[7])
        for functions in sections.values():
            if len(functions) > 1:
                shared.update(name for names in functions.values() for name in names)
    return shared


def main():
    binary = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".build" / "release" / "filedrop").resolve()
    for tool in ("valgrind", "curl"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed")
    with tempfile.TemporaryDirectory(prefix="hot-text-") as directory:
        work = Path(directory)
        files = work / "files"
        files.mkdir()
        (files / "small.bin").write_bytes(os.urandom(4096))
        (work / "upload.bin").write_bytes(os.urandom(24 << 20))
        profile = work / "callgrind.out"
        port = free_port()
        daemon = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-strings=no", "--compress-pos=no",
             f"--callgrind-out-file={profile}", str(binary), "--config", "", "--listen", f"127.0.0.1:{port}",
             "--save-dir", str(files), "--web-root", str(ROOT / "web"), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=open(work / "daemon.log", "w"))
        try:
            wait_until_serving(port, daemon)
            held = workload(port, work)
            daemon.send_signal(signal.SIGHUP)
            time.sleep(2)
            curl(f"http://127.0.0.1:{port}/files/small.bin")
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=120)
            for s in held:
                s.close()
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
        names = executed_functions(profile, binary) - functions_sharing_a_section()
    OUTPUT.write_text(HEADER + "".join(f"{name}\n" for name in sorted(names)))
    print(f"{len(names)} functions -> {OUTPUT.relative_to(ROOT)}; remove .build/release/filedrop to link with them")


if __name__ == "__main__":
    main()
