#!/usr/bin/env python3
"""What hashing uploads costs at LAN speed (issue 21): 1 GiB multipart uploads (`curl -F`) to
filedrop with `sha256` on and off, in the same rounds, over two paths:

- a veth pair between two network namespaces this script makes, shaped to 1 Gbit/s each way
  (`tc ... tbf`): what a wired LAN delivers to the daemon (WiFi delivers less);
- loopback inside the server's namespace, unshaped: curl, the daemon and the hash thread
  share the machine's cores, the case `make bench` measures.

    sudo python3 bench/sha256_lan.py

Prints one markdown table, on ÷ off per path (the target: at least 0.90 for multipart), and
the daemon's CPU seconds per upload. A tool, not a test: it never fails on a timing. A
result counts only when the stored copy compares equal to the source (`cmp`) and, with
hashing on, the answer's sha256 is the source's.

Environment: BENCH_RUNS (rounds, default 5), BENCH_SIZE_MIB (default 1024), BENCH_LAN_RATE
(tc rate, default 1gbit), BENCH_FILEDROP (default .build/release/filedrop), BENCH_SAVE=1
(also write bench/results/<date>-<HHMM>-sha256-lan.md). Needs root, ip and tc (iproute2),
curl. The namespaces are removed at the end, also after an error or Ctrl-C.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from filedrop_process import FiledropProcess
from procstat import cpu_seconds

REPO = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("BENCH_FILEDROP", REPO / ".build" / "release" / "filedrop"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SIZE_MIB = int(os.environ.get("BENCH_SIZE_MIB", "1024"))
RATE = os.environ.get("BENCH_LAN_RATE", "1gbit")
READY_TIMEOUT = 15
UPLOAD_TIMEOUT = 600

# RFC 2544's benchmarking range: never a real network's.
SERVER_ADDRESS, CLIENT_ADDRESS = "198.18.0.1", "198.18.0.2"


class Link:
    """Two network namespaces joined by a veth pair, each end shaped to `rate` on egress."""

    def __init__(self, rate: str):
        tag = os.getpid()
        self.server, self.client = f"fdbench-srv-{tag}", f"fdbench-cli-{tag}"
        self.made: list[str] = []
        try:
            for namespace in (self.server, self.client):
                _run("ip", "netns", "add", namespace)
                self.made.append(namespace)
                _run("ip", "-n", namespace, "link", "set", "lo", "up")
            _run("ip", "link", "add", "fdb-srv", "netns", self.server, "type", "veth", "peer", "name", "fdb-cli",
                 "netns", self.client)
            for namespace, device, address in ((self.server, "fdb-srv", SERVER_ADDRESS),
                                               (self.client, "fdb-cli", CLIENT_ADDRESS)):
                _run("ip", "-n", namespace, "addr", "add", f"{address}/30", "dev", device)
                _run("ip", "-n", namespace, "link", "set", device, "up")
                # A token bucket at the link's rate; the burst holds a 64 KiB GSO packet with room.
                _run("ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", device, "root", "tbf",
                     "rate", rate, "burst", "256kb", "latency", "10ms")
        except BaseException:
            self.remove()
            raise

    def remove(self):
        for namespace in reversed(self.made):
            subprocess.run(["ip", "netns", "del", namespace], check=False)
        self.made.clear()


def start_daemon(namespace: str, save_dir: Path, workdir: Path, sha256: bool) -> FiledropProcess:
    """filedrop in the server namespace on 0.0.0.0 (the veth address and loopback alike),
    port 0. `ip netns exec` execs it: the PID is filedrop's own, for its CPU seconds."""
    return FiledropProcess(
        ["ip", "netns", "exec", namespace, str(BINARY), "--config", "", "--listen", "0.0.0.0:0",
         "--save-dir", str(save_dir), "--web-root", str(REPO / "web"), "--log-level", "warning",
         "--sha256", "true" if sha256 else "false"],
        str(workdir / f"notify-{'on' if sha256 else 'off'}"), READY_TIMEOUT)


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, text=True)


def upload(namespace: str, host: str, daemon: FiledropProcess, source: Path, save_dir: Path, digest: str, sha256: bool):
    """One timed `curl -F` upload from `namespace`; (MiB/s by curl's time_total, daemon CPU s),
    or None when the stored copy or the answer's sha256 is wrong."""
    cpu_before = cpu_seconds([daemon.pid])
    result = subprocess.run(
        ["ip", "netns", "exec", namespace, "curl", "-sS", "--fail", "--max-time", str(UPLOAD_TIMEOUT),
         "-H", "Accept: application/json", "-F", f"file=@{source}", "-w", "\n%{time_total}",
         f"http://{host}:{daemon.port}/upload"],
        capture_output=True, text=True, timeout=UPLOAD_TIMEOUT + 30)
    cpu = cpu_seconds([daemon.pid]) - cpu_before
    stored = save_dir / source.name
    try:
        body, seconds = result.stdout.rsplit("\n", 1)
        ok = result.returncode == 0 and subprocess.run(["cmp", "-s", str(source), str(stored)]).returncode == 0
        if ok and sha256:
            ok = digest in body
        return (SIZE_MIB / float(seconds), cpu) if ok else None
    finally:
        stored.unlink(missing_ok=True)


def source_file(workdir: Path) -> tuple[Path, str]:
    path = workdir / "payload.bin"
    hasher = hashlib.sha256()
    with open(path, "wb") as out:
        for _ in range(SIZE_MIB):
            block = os.urandom(1 << 20)
            hasher.update(block)
            out.write(block)
    return path, hasher.hexdigest()


def report(results: dict, load_before: str) -> str:
    def median(key, index):
        values = [outcome[index] for outcome in results[key] if outcome]
        return statistics.median(values) if values else None

    def spread(key):
        values = [outcome[0] for outcome in results[key] if outcome]
        return f"{min(values):.0f}–{max(values):.0f}" if values else "-"

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    lines = [f"# SHA-256 of uploads at LAN speed (issue 21), {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}", "",
             f"- machine: {os.cpu_count()} CPUs ({cpu}), kernel {platform.release()}",
             f"- load average before: {load_before}; after: {_load()}",
             f"- filedrop {BINARY} (commit {commit}), fsync on (the default); {RUNS} round(s), "
             f"sha256 on and off alternating first",
             f"- one {SIZE_MIB} MiB multipart upload (curl -F) per row and round; MiB/s by curl's time_total; "
             "medians and min–max over runs whose stored copy compared equal", "",
             "| path | sha256 on MiB/s | min–max | sha256 off MiB/s | min–max | on ÷ off (target ≥ 0.90) "
             "| daemon CPU s on | off | ok runs |",
             "|---|---|---|---|---|---|---|---|---|"]
    for path, label in (("lan", f"veth between namespaces, {RATE} each way (tc tbf)"),
                        ("loopback", "loopback in the server namespace, unshaped")):
        on, off = median((path, True), 0), median((path, False), 0)
        ratio = f"{on / off:.2f} ({'met' if on / off >= 0.90 else 'not met'})" if on and off else "-"
        cpu_on, cpu_off = median((path, True), 1), median((path, False), 1)
        ok = sum(1 for sha in (True, False) for outcome in results[(path, sha)] if outcome)
        lines.append(f"| {label} | {on or 0:.0f} | {spread((path, True))} | {off or 0:.0f} | {spread((path, False))} "
                     f"| {ratio} | {cpu_on or 0:.2f} | {cpu_off or 0:.2f} | {ok}/{2 * RUNS} |")
    return "\n".join(lines) + "\n"


def _load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main() -> int:
    if os.geteuid() != 0:
        print("sha256_lan: needs root (network namespaces, tc)", file=sys.stderr)
        return 1
    for tool in ("ip", "tc", "curl", "cmp"):
        if not shutil.which(tool):
            print(f"sha256_lan: {tool} is missing (apt-get install iproute2 curl diffutils)", file=sys.stderr)
            return 1
    if not BINARY.exists():
        print(f"sha256_lan: {BINARY} is missing (make build, or set BENCH_FILEDROP)", file=sys.stderr)
        return 1
    load_before = _load()
    workdir = Path(tempfile.mkdtemp(prefix="sha256-lan-", dir=REPO / ".build"))
    link = None
    daemons: dict[bool, tuple[FiledropProcess, Path]] = {}
    results = {(path, sha): [] for path in ("lan", "loopback") for sha in (True, False)}
    try:
        source, digest = source_file(workdir)
        link = Link(RATE)
        for sha in (True, False):
            save_dir = workdir / f"save-{'on' if sha else 'off'}"
            save_dir.mkdir()
            daemons[sha] = (start_daemon(link.server, save_dir, workdir, sha), save_dir)
        for round_number in range(RUNS):
            # Which of the two goes first alternates, so drift hits both alike.
            order = (True, False) if round_number % 2 == 0 else (False, True)
            for path, namespace, host in (("lan", link.client, SERVER_ADDRESS), ("loopback", link.server, "127.0.0.1")):
                for sha in order:
                    daemon, save_dir = daemons[sha]
                    os.sync()
                    outcome = upload(namespace, host, daemon, source, save_dir, digest, sha)
                    results[(path, sha)].append(outcome)
                    shown = f"{outcome[0]:.0f} MiB/s, daemon CPU {outcome[1]:.2f} s" if outcome else "FAILED"
                    print(f"round {round_number + 1}/{RUNS} {path:<8} sha256 {'on ' if sha else 'off'}: {shown}",
                          file=sys.stderr)
    finally:
        for daemon, _ in daemons.values():
            daemon.stop()
        if link:
            link.remove()
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(results, load_before)
    print(text)
    if os.environ.get("BENCH_SAVE") == "1":
        target = REPO / "bench" / "results" / f"{datetime.datetime.now():%Y-%m-%d-%H%M}-sha256-lan.md"
        target.write_text(text)
        print(f"saved {target.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
