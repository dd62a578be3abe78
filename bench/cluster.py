#!/usr/bin/env python3
"""Aggregate upload throughput of 1, 2 and 3 filedrop daemons on one save directory behind
HAProxy (docs/haproxy.cfg, as docs/deployment.md shows it), next to one daemon reached
directly: what one HAProxy costs, and whether more daemons on one machine hold up.

    python3 bench/cluster.py [--uploads 16] [--size-mib 64] [--rounds 2]

Each run starts `--uploads` `curl -T` PUTs at once (one connection each, so HAProxy spreads
them round-robin) and counts the bytes of all of them over the wall time until the last
ends; every stored copy must compare equal for a run to count. Rounds rotate the order of
the setups. Not a test: it prints a table and never fails on a figure. Uses
.build/release/filedrop (or $FILEDROP_BIN), on loopback, defaults otherwise (fsync on).
BENCH_QUICK=1 means 8 uploads of 8 MiB, one round.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from filedrop_process import FiledropProcess

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "EndToEnd"))
from haproxy_config import haproxy_config  # noqa: E402 (the one renderer of docs/haproxy.cfg)

BINARY = Path(os.environ.get("FILEDROP_BIN", REPO / ".build" / "release" / "filedrop"))
WORK = REPO / ".build" / "bench-work" / "cluster"
MIB = 1 << 20
TRANSFER_TIMEOUT = 300
READY_TIMEOUT = 15
# Every client is HAProxy's address to the daemons: per-client limits would measure themselves.
DAEMON_ARGS = ["--max-uploads-per-client", "64", "--max-connections-per-client", "1024", "--max-upload-size", "64G",
               "--config="]
SETUPS = [("direct", 1), ("haproxy", 1), ("haproxy", 2), ("haproxy", 3)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Setup:
    """`count` daemons on `save_dir`, and HAProxy in front unless `how` is "direct"."""

    def __init__(self, how: str, count: int, save_dir: Path):
        for stale in WORK.glob("notify-*"):
            stale.unlink()
        self.daemons = [FiledropProcess([str(BINARY), "--listen", "127.0.0.1:0", "--save-dir", str(save_dir),
                                         "--web-root", str(REPO / "web"), *DAEMON_ARGS],
                                        str(WORK / f"notify-{index}"), READY_TIMEOUT) for index in range(count)]
        self.haproxy = None
        self.port = self.daemons[0].port
        if how == "haproxy":
            self.port = free_port()
            config = WORK / "haproxy.cfg"
            config.write_text(haproxy_config(self.port, [daemon.port for daemon in self.daemons], WORK / "haproxy.sock"))
            self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            self._wait_until_all_up(count)

    def _wait_until_all_up(self, count: int):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.haproxy.poll() is not None:
                raise SystemExit("bench: haproxy exited at start")
            try:
                with socket.socket(socket.AF_UNIX) as stats:
                    stats.connect(str(WORK / "haproxy.sock"))
                    stats.sendall(b"show stat\n")
                    text = b"".join(iter(lambda: stats.recv(65536), b"")).decode()
                up = [line for line in text.splitlines() if line.startswith("daemons,filedrop") and ",UP," in line]
                if len(up) == count:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit("bench: HAProxy did not see every daemon UP")

    def stop(self):
        if self.haproxy is not None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=30)
        for daemon in self.daemons:
            daemon.stop()


def run_once(port: int, source: Path, uploads: int, save_dir: Path) -> float | None:
    """MiB/s of `uploads` PUTs at once, or None when one failed or stored a wrong copy."""
    started = time.monotonic()
    curls = [subprocess.Popen(["curl", "--http1.1", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time",
                               str(TRANSFER_TIMEOUT), "-T", str(source), f"http://127.0.0.1:{port}/files/up-{index}.bin"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for index in range(uploads)]
    codes = [curl.communicate(timeout=TRANSFER_TIMEOUT + 30)[0].decode() for curl in curls]
    elapsed = time.monotonic() - started
    stored = [save_dir / f"up-{index}.bin" for index in range(uploads)]
    intact = all(code == "201" for code in codes) and all(
        path.exists() and filecmp.cmp(path, source, shallow=False) for path in stored)
    for path in save_dir.iterdir():
        path.unlink()
    return uploads * source.stat().st_size / MIB / elapsed if intact else None


def main():
    quick = os.environ.get("BENCH_QUICK") == "1"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=8 if quick else 16)
    parser.add_argument("--size-mib", type=int, default=8 if quick else 64)
    parser.add_argument("--rounds", type=int, default=1 if quick else 2)
    options = parser.parse_args()
    if shutil.which("haproxy") is None:
        raise SystemExit("bench: no haproxy (apt-get install haproxy)")
    shutil.rmtree(WORK, ignore_errors=True)
    save_dir = WORK / "files"
    save_dir.mkdir(parents=True)
    source = WORK / "source.bin"
    with open(source, "wb") as output:
        for _ in range(options.size_mib):
            output.write(os.urandom(MIB))

    results: dict[tuple[str, int], list[float]] = {setup: [] for setup in SETUPS}
    failures: dict[tuple[str, int], int] = {setup: 0 for setup in SETUPS}
    for round_index in range(options.rounds):
        for how, count in SETUPS[round_index % len(SETUPS):] + SETUPS[:round_index % len(SETUPS)]:
            setup = Setup(how, count, save_dir)
            try:
                value = run_once(setup.port, source, options.uploads, save_dir)
            finally:
                setup.stop()
            if value is None:
                failures[(how, count)] += 1
            else:
                results[(how, count)].append(value)

    print(f"\n## Several daemons behind HAProxy: {options.uploads} concurrent {options.size_mib} MiB PUTs "
          f"({options.rounds} round(s), fsync on, {os.cpu_count()} CPUs)\n")
    print("| setup | MiB/s aggregate (median) | min–max | vs 1 daemon direct | vs 1 daemon behind HAProxy |")
    print("|---|---|---|---|---|")
    medians = {setup: statistics.median(values) for setup, values in results.items() if values}
    for how, count in SETUPS:
        values = results[(how, count)]
        label = "1 daemon, direct" if how == "direct" else f"{count} daemon{'s' if count > 1 else ''} behind HAProxy"
        if not values:
            print(f"| {label} | failed ({failures[(how, count)]} run(s)) | | | |")
            continue
        ratio = lambda base: f"{medians[(how, count)] / medians[base]:.2f}x" if base in medians else "-"  # noqa: E731
        print(f"| {label} | {medians[(how, count)]:.0f} | {min(values):.0f}–{max(values):.0f} | "
              f"{ratio(('direct', 1))} | {ratio(('haproxy', 1))} |")
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
