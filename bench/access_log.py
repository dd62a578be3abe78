#!/usr/bin/env python3
"""What the access log costs: `wrk -t2 -c64` on a 4 KiB file against filedrop with its default
log (access log on, log-level info, access-log-rate's default budget) and against the same
binary with `--access-log false`, in the same rounds, order alternating. Prints both rates and
default ÷ off (the target: at least 0.90).

    python3 bench/access_log.py [ROUNDS] [SECONDS]     (default 5 rounds of 10 s)

Where the log goes: journald when this machine has one (/run/systemd/journal/socket), as under
systemd (stderr is a file whose device and inode JOURNAL_STREAM names, so the daemon sends
native entries); else the file itself, through the text sink. The first line says which.
`make bench` runs the same measurement as its `accesslog` row (BENCH_WORKLOADS=accesslog).

A tool, not a test: it never fails on a timing. Loopback only. Needs `make build` and wrk.
Environment: BENCH_FILEDROP (default .build/release/filedrop).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
JOURNAL_SOCKET = Path("/run/systemd/journal/socket")
READY_TIMEOUT = 10.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_destination() -> str:
    return "journald" if JOURNAL_SOCKET.exists() else "a file (text sink)"


def measure(binary: Path, web_root: Path, work: Path, seconds: int, access_log: bool) -> dict:
    """Starts filedrop, runs wrk on its 4 KiB file, stops it: {"rate", "ok", "note", "lines"}."""
    root = work / ("default-log" if access_log else "access-log-off")
    files = root / "files"
    files.mkdir(parents=True, exist_ok=True)
    (files / "small.bin").write_bytes(os.urandom(4096))
    port = _free_port()
    log = root / "server.log"
    log.write_bytes(b"")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILEDROP_", "NOTIFY_", "LISTEN_", "JOURNAL_"))}
    if JOURNAL_SOCKET.exists():
        status = log.stat()
        env["JOURNAL_STREAM"] = f"{status.st_dev}:{status.st_ino}"
    argv = [str(binary), "--config", "", "--listen", f"127.0.0.1:{port}", "--save-dir", str(files),
            "--web-root", str(web_root), "--max-connections-per-client", "2000"]
    if not access_log:
        argv += ["--access-log", "false"]
    with open(log, "ab") as output:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=output, stderr=output, env=env,
                                   cwd=root, start_new_session=True)
    url = f"http://127.0.0.1:{port}/files/small.bin"
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                return {"rate": 0.0, "ok": False, "note": f"not ready; see {log}", "lines": 0}
            time.sleep(0.1)
        done = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", url], capture_output=True, text=True,
                              timeout=seconds + 60)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", done.stdout)
    problems = ([] if rate else ["wrk printed no rate"]) + ([f"{non2xx.group(1)} non-2xx"] if non2xx else [])
    lines = log.read_text(errors="replace").count(" GET /files/small.bin 200 ")
    return {"rate": float(rate.group(1)) if rate else 0.0, "ok": not problems, "note": "; ".join(problems),
            "lines": lines}


def paired_round(binary: Path, web_root: Path, work: Path, seconds: int, default_first: bool) -> tuple[dict, dict]:
    order = [True, False] if default_first else [False, True]
    results = {on: measure(binary, web_root, work, seconds, on) for on in order}
    return results[True], results[False]


class AccessLogWorkload:
    """The `accesslog` row of bench/run.py: one paired measurement per round, filedrop only."""

    def __init__(self, sizes, work: Path, outcome):
        self.sizes = sizes
        self.work = work / "accesslog"
        self.Outcome = outcome

    def log_ratio(self, server, run):
        if server.kind.key != "filedrop":
            return None
        on, off = paired_round(Path(server.tools.filedrop), Path(server.tools.web_root), self.work,
                               self.sizes.wrk_seconds, default_first=run % 2 == 0)
        ok = on["ok"] and off["ok"] and off["rate"] > 0
        return self.Outcome(on["rate"] / off["rate"] if ok else 0.0, ok=ok,
                            note="; ".join(n for n in (on["note"], off["note"]) if n),
                            extra={"default_rps": on["rate"], "off_rps": off["rate"]})


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    binary = Path(os.environ.get("BENCH_FILEDROP", REPO / ".build" / "release" / "filedrop"))
    if not binary.is_file():
        raise SystemExit(f"no filedrop at {binary}: run make build")
    work = REPO / ".build" / "bench-work" / "accesslog"
    print(f"filedrop {binary}, log to {log_destination()}; wrk -t2 -c64 -d{seconds}s on a 4 KiB file, "
          f"{rounds} round(s), order alternating\n")
    print("| round | default log req/s | access-log = false req/s | default ÷ off | access lines written |")
    print("|---|---|---|---|---|")
    ratios, ons, offs = [], [], []
    for index in range(rounds):
        on, off = paired_round(binary, REPO / "web", work, seconds, default_first=index % 2 == 0)
        ok = on["ok"] and off["ok"] and off["rate"] > 0
        ratio = on["rate"] / off["rate"] if ok else None
        if ok:
            ratios.append(ratio)
            ons.append(on["rate"])
            offs.append(off["rate"])
        note = "" if ok else f" ({on['note'] or off['note']})"
        print(f"| {index + 1} | {on['rate']:,.0f} | {off['rate']:,.0f} | "
              f"{'-' if ratio is None else f'{ratio:.3f}'}{note} | {on['lines']:,} |", flush=True)
    if ratios:
        print(f"| median | {statistics.median(ons):,.0f} | {statistics.median(offs):,.0f} | "
              f"{statistics.median(ratios):.3f} (target ≥ 0.90) | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
