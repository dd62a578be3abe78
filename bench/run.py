#!/usr/bin/env python3
"""`make bench`: filedrop side by side with nginx, lighttpd, copyparty and uploadserver.

Installs what it needs (Debian packages, a virtual environment under .build/bench-venv),
starts every server on loopback with its own directory, runs the same workloads on each in
rounds whose order rotates (so drift hits everyone alike), measures the machine's ceilings in
the same rounds, and prints a markdown table. A tool, not a test: it never fails on a timing.

Environment: BENCH_RUNS (rounds, default 3), BENCH_QUICK=1 (small sizes, one round),
BENCH_SAVE=1 (also write bench/results/<date>-<HHMM>.md), BENCH_SERVERS=key,key and
BENCH_WORKLOADS=key,key (subsets), BENCH_FILEDROP=PATH (that binary, no build), BENCH_BASELINE=PATH
(another filedrop binary, e.g. the previous commit's, run as one more peer: keys filedrop-baseline and
filedrop-baseline-nofsync).
Every server is stopped by the PID we started, also on Ctrl-C or SIGTERM.
"""

import datetime
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from access_log import AccessLogWorkload
from callgrind import REQUESTS as CALLGRIND_REQUESTS, CallgrindWorkload
from ceilings import Ceilings
from latency import NOTES as LATENCY_NOTES, LatencySizes, LatencyTables, LatencyWorkload
from listing import ListingTables, ListingWorkload
from report import Report, Series
from servers import RunningServer, all_kinds, free_ports
from prerequisites import install
from procstat import rss_bytes, tree_pids
from tls import TlsWorkload
from tls_report import NOTES as TLS_NOTES, TlsTables
from workloads import MIB, Outcome, Workloads

GIB = 1024 * MIB
REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".build" / "bench-work"
TIME_BUDGET_SECONDS = {"full": 55 * 60, "quick": 12 * 60}
STARTED = time.monotonic()


@dataclass
class Sizes:
    big: int
    chunk: int
    concurrent_count: int
    wrk_seconds: int
    held_connections: int
    transfer_timeout: int


@dataclass
class Sources:
    big: Path
    chunk: Path
    small: Path


@dataclass
class Workload:
    key: str
    title: str
    unit: str
    description: str
    method: str
    upload: bool = False
    lower_is_better: bool = False
    ceiling: str = ""
    ceiling_rows: tuple = ()
    extra_column: tuple = ()
    # Which runner has `method` ("transfers": workloads.py, "latency": latency.py, "tls": tls.py,
    # "callgrind": callgrind.py), and for a
    # workload with a table of its own, the object whose lines(title) prints it.
    runner: str = "transfers"
    table: object = None


@dataclass
class Ceiling:
    key: str
    title: str
    method: str


def _size(n):
    return f"{n // GIB} GiB" if n >= GIB else f"{n // MIB} MiB"


def workload_list(sizes, quick=False, results=None):
    big, chunk, n = _size(sizes.big), _size(sizes.chunk), sizes.concurrent_count
    uploads = ("tcp", ("tcp", "dd_fsync"))
    return [
        Workload("get", f"{big} GET", "MiB/s", f"`curl -o` of a {big} file; the received copy is compared with cmp.",
                 "get_big", ceiling="tcp", ceiling_rows=("tcp",)),
        Workload("post", f"{big} multipart POST (curl -F)", "MiB/s",
                 "One file field; the stored file is compared with cmp, then deleted.", "post_big", upload=True,
                 ceiling=uploads[0], ceiling_rows=uploads[1]),
        Workload("put", f"{big} raw PUT (curl -T)", "MiB/s", "The stored file is compared with cmp, then deleted.",
                 "put_big", upload=True, ceiling=uploads[0], ceiling_rows=uploads[1]),
        Workload("concurrent", f"{n} concurrent {chunk} uploads", "MiB/s aggregate",
                 f"{n} curl processes at once: raw PUT where the server has it, else multipart; all {n} stored "
                 "copies must compare equal for the run to count.", "concurrent_uploads", upload=True,
                 ceiling=uploads[0], ceiling_rows=uploads[1]),
        Workload("wrk", f"wrk -t2 -c64 -d{sizes.wrk_seconds}s, 4 KiB file", "req/s",
                 "Keep-alive GETs of a 4 KiB file (checked with cmp first); a run with non-2xx answers does not count.",
                 "wrk_small", extra_column=("p99 ms", lambda s: _p99(s))),
        Workload("wrkclose", f"wrk -t2 -c64 -d{sizes.wrk_seconds}s -H 'Connection: close', 4 KiB file", "req/s",
                 "One request per connection: the same GETs as the wrk row, each on a new connection the server "
                 "closes after its answer (accept, the request, the close).",
                 "wrk_small_close", extra_column=("p99 ms", lambda s: _p99(s))),
        Workload("accesslog", f"wrk -t2 -c64 -d{sizes.wrk_seconds}s, default log vs access-log = false", "default ÷ off",
                 "The wrk row against two fresh copies of filedrop in each round: its default log (access log on, "
                 "log-level info, access-log-rate's budget) and `--access-log false`; the value is the first's req/s "
                 "over the second's (target: at least 0.90). Logs go to journald when the machine has one, else to a "
                 "file. filedrop only; `python3 bench/access_log.py` runs it alone.", "log_ratio", runner="accesslog",
                 extra_column=("req/s default / off", lambda s: _both_rates(s))),
        Workload("callgrind", f"user-space instructions per keep-alive GET of the 4 KiB file (callgrind)",
                 "instructions/request",
                 f"A copy of the server under `valgrind --tool=callgrind` answers {CALLGRIND_REQUESTS:,} of wrk's "
                 "requests, one after another (counters zeroed after a warm-up); lower is better. filedrop and "
                 "lighttpd only.", "instructions", lower_is_better=True, runner="callgrind"),
        Workload("callgrind-browser", "user-space instructions per keep-alive GET of the 4 KiB file with a browser's "
                 "fields (callgrind)", "instructions/request",
                 "As the callgrind row, with the sixteen fields Chromium 120 sends when it navigates to a file "
                 "(`BROWSER_FIELDS` in bench/callgrind.py) instead of wrk's one.", "browser_instructions",
                 lower_is_better=True, runner="callgrind"),
        Workload("conns", f"{sizes.held_connections:,} keep-alive connections held", "RSS MiB",
                 f"{sizes.held_connections:,} connections each fetch the 4 KiB file once and stay open; the value is "
                 "the server's RSS while they are held (lower is better). 'held' is how many the server kept open.",
                 "hold_connections", lower_is_better=True, extra_column=("held", lambda s: _held(s, sizes))),
        Workload("latency", "Latency isolation: a probe client while another client loads the server", "ms",
                 "filedrop and nginx only; see the table.", "isolation", runner="latency",
                 table=LatencyTables(quick, {} if results is None else results)),
        Workload("listing", "A folder of 100,000 files: listings against nginx autoindex, and the page in Chromium", "",
                 "filedrop and nginx only; see the table.", "listing", runner="listing",
                 table=ListingTables({} if results is None else results)),
        Workload("tls", "HTTPS: filedrop, nginx and lighttpd with the same certificate and cipher", "",
                 "filedrop, nginx and lighttpd only; see the table.", "tls", runner="tls",
                 table=TlsTables(sizes, {} if results is None else results)),
    ]


def _p99(series: Series):
    value = series.extra_median("p99_ms")
    return "-" if value is None else f"{value:.2f}"


def _both_rates(series: Series):
    on, off = series.extra_median("default_rps"), series.extra_median("off_rps")
    return "-" if on is None or off is None else f"{on:,.0f} / {off:,.0f}"


def _held(series: Series, sizes):
    values = [o.extra.get("held", 0) for o in series.outcomes]
    return f"{min(values)}/{sizes.held_connections}" if values else "-"


CEILINGS = [
    Ceiling("tcp", "loopback TCP → file (sendfile to a process writing a file)", "tcp_to_file"),
    Ceiling("dd", "dd to the page cache", "dd_page_cache"),
    Ceiling("dd_fsync", "dd conv=fsync", "dd_fsync"),
]


def settings():
    quick = os.environ.get("BENCH_QUICK") == "1"
    runs = int(os.environ.get("BENCH_RUNS", "1" if quick else "3"))
    if quick:
        sizes = Sizes(big=128 * MIB, chunk=8 * MIB, concurrent_count=16, wrk_seconds=3, held_connections=1000,
                      transfer_timeout=120)
    else:
        sizes = Sizes(big=GIB, chunk=64 * MIB, concurrent_count=16, wrk_seconds=10, held_connections=1000,
                      transfer_timeout=300)
    return quick, max(1, runs), sizes


def make_sources(sizes):
    """Random contents (multipart parsers meet every byte value), kept between runs."""
    directory = WORK / "sources"
    directory.mkdir(parents=True, exist_ok=True)
    sources = Sources(directory / f"big-{sizes.big}.bin", directory / f"chunk-{sizes.chunk}.bin", directory / "small.bin")
    for path, size in ((sources.big, sizes.big), (sources.chunk, sizes.chunk), (sources.small, 4096)):
        if path.exists() and path.stat().st_size == size:
            continue
        with open(path, "wb") as output:
            for offset in range(0, size, 16 * MIB):
                output.write(os.urandom(min(16 * MIB, size - offset)))
    return sources


def prepare_root(kind, sources):
    root = WORK / "servers" / kind.key
    shutil.rmtree(root, ignore_errors=True)
    (root / "files").mkdir(parents=True)
    os.link(sources.big, root / "files" / "get.bin")
    shutil.copyfile(sources.small, root / "files" / "small.bin")
    return root


def machine_header(quick, runs, sizes, servers, tools, load_before):
    memory = next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    filesystem = subprocess.run(["findmnt", "-no", "FSTYPE,SOURCE", "-T", str(WORK)], capture_output=True,
                                text=True).stdout.split()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    now = datetime.datetime.now().astimezone()
    lines = [f"# filedrop benchmark{' (quick smoke run)' if quick else ''}, {now:%Y-%m-%d %H:%M %Z}", "",
             f"- machine: {os.cpu_count()} CPUs ({cpu}), {int(memory) // 1024:,} MiB RAM, kernel {platform.release()}, "
             f"disk {' on '.join(filesystem) or '?'}",
             f"- load average before: {load_before}; after: {_load()}",
             (f"- filedrop binary {tools.filedrop} (BENCH_FILEDROP), bench commit {commit}"
              if os.environ.get("BENCH_FILEDROP") else f"- filedrop commit {commit}")
             + f"; {runs} run(s) per server and workload, order rotated every round",
             f"- sizes: big {_size(sizes.big)}, concurrent {sizes.concurrent_count} × {_size(sizes.chunk)}, "
             f"wrk {sizes.wrk_seconds} s, {sizes.held_connections:,} held connections; latency: "
             f"{_size(LatencySizes.for_run(quick).big)} uploads and overwrite, "
             f"{LatencySizes.for_run(quick).chunk_count} × {_size(LatencySizes.for_run(quick).chunk)}",
             "- versions: " + "; ".join(dict.fromkeys(s.kind.version(tools) for s in servers)),
             "- MiB/s are curl's own timings (time_total) of one transfer; medians and min–max count only runs "
             "whose copy compared equal"]
    return lines


def _load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


NOTES = [
    "Peak RSS is the largest sum of VmRSS over the server's process tree (sampled every 50 ms) during the "
    "workload; for nginx that is the master plus its workers, shared pages counted in each.",
    "CPU s is utime + stime of the server's tree during the workload (median over runs); curl and wrk are not counted.",
    "The page cache is flushed (sync) before every timed step; uploads are deleted after their comparison.",
    "curl sends `Expect: 100-continue` with -T and large -F bodies, as users get by default; a server that "
    "does not answer it (uploadserver speaks HTTP/1.0) costs curl's 1 s wait.",
    "uploadserver answers HTTP/1.0 and closes every connection: wrk reconnects for each request (its "
    "listen backlog is Python's default of 5), and it cannot hold connections open (n/a).",
    "copyparty is run without -e2d (its default: no up2k database); 'copyparty' hashes every upload (sha512, "
    "its default), '--put-ck no --bup-ck no' turns that off.",
    "filedrop's default fsyncs every upload before it becomes visible; the peers never fsync, so compare "
    "uploads with `--fsync false` and with the dd conv=fsync ceiling.",
]


def run_rounds(runs, servers, workloads, runners, ceilings, results, deadline, notes):
    """Each round runs every server (and the ceilings) once, starting one place later than the last."""
    entries = [*servers, None]
    for round_index in range(runs):
        shift = round_index % len(entries)
        for entry in entries[shift:] + entries[:shift]:
            if time.monotonic() > deadline:
                notes.append(f"Stopped in round {round_index + 1} of {runs}: the time budget "
                             f"({(deadline - STARTED) / 60:.0f} min) ran out.")
                return
            if entry is None:
                for ceiling in CEILINGS:
                    _progress(round_index, "ceiling", ceiling.key)
                    outcome = getattr(ceilings, ceiling.method)(f"{round_index}")
                    results.setdefault((ceiling.key, "ceiling"), []).append(outcome)
                continue
            for workload in workloads:
                _progress(round_index, entry.kind.key, workload.key)
                results.setdefault((workload.key, entry.kind.key), []).append(
                    _run_one(runners[workload.runner], workload, entry, round_index))


def _run_one(runner, workload, server, round_index):
    if server.process.poll() is not None:
        return Outcome(0.0, ok=False, note=f"server exited with {server.process.returncode}")
    try:
        return getattr(runner, workload.method)(server, round_index)
    except subprocess.TimeoutExpired as error:
        return Outcome(0.0, ok=False, note=f"timed out: {' '.join(map(str, error.cmd))[:120]}")
    except (OSError, ValueError) as error:
        return Outcome(0.0, ok=False, note=f"{type(error).__name__}: {error}")


def _progress(round_index, who, what):
    print(f"[{time.monotonic() - STARTED:6.0f} s] round {round_index + 1}: {who} {what}", file=sys.stderr, flush=True)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    # SIGINT too: a shell without job control starts background commands with it ignored.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _interrupt)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    quick, runs, sizes = settings()
    tools = install(REPO)
    load_before = _load()
    (WORK / "client").mkdir(parents=True, exist_ok=True)
    (WORK / "ceilings").mkdir(parents=True, exist_ok=True)
    sources = make_sources(sizes)
    wanted = os.environ.get("BENCH_SERVERS")
    baseline = os.environ.get("BENCH_BASELINE")
    if baseline and not Path(baseline).is_file():
        raise SystemExit(f"bench: BENCH_BASELINE={baseline} is not a file")
    kinds = [k for k in all_kinds(Path(baseline).resolve() if baseline else None)
             if not wanted or k.key in wanted.split(",")]
    only = os.environ.get("BENCH_WORKLOADS")
    results, notes = {}, list(NOTES)
    workloads = [w for w in workload_list(sizes, quick, results) if not only or w.key in only.split(",")]
    if any(w.key == "latency" for w in workloads):
        notes += LATENCY_NOTES
    if any(w.key == "tls" for w in workloads):
        notes += TLS_NOTES
    servers = []
    deadline = time.monotonic() + TIME_BUDGET_SECONDS["quick" if quick else "full"]
    try:
        for kind, port in zip(kinds, free_ports(len(kinds))):
            server = RunningServer(kind, prepare_root(kind, sources), port, tools)
            servers.append(server)
            _progress(-1, kind.key, f"starting on port {port}")
            server.start()
        time.sleep(1)
        for server in servers:
            results[("idle", server.kind.key)] = rss_bytes(tree_pids(server.pid))
        runners = {"transfers": Workloads(sizes, sources, WORK / "client"),
                   "latency": LatencyWorkload(quick, WORK, WORK / "sources", tools, Outcome),
                   "tls": TlsWorkload(sizes, sources, WORK, tools),
                   "listing": ListingWorkload(quick, WORK, tools, Outcome, REPO),
                   "callgrind": CallgrindWorkload(WORK, Outcome),
                   "accesslog": AccessLogWorkload(sizes, WORK, Outcome)}
        run_rounds(runs, servers, workloads, runners, Ceilings(sizes, sources, WORK / "ceilings"), results, deadline, notes)
    except KeyboardInterrupt:
        notes.append("Interrupted: the tables hold the rounds finished before.")
        print("\ninterrupted; stopping the servers", file=sys.stderr)
    finally:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_IGN)
        for server in reversed(servers):
            server.stop()
    text = Report(workloads, CEILINGS, kinds, results,
                  machine_header(quick, runs, sizes, servers, tools, load_before), notes).render()
    print(text)
    (WORK / "last.md").write_text(text)
    if os.environ.get("BENCH_SAVE") == "1":
        directory = REPO / "bench" / "results"
        directory.mkdir(exist_ok=True)
        # The minute too: a day's earlier reports are kept, not overwritten.
        target = directory / f"{datetime.datetime.now():%Y-%m-%d-%H%M}{'-quick' if quick else ''}.md"
        target.write_text(text)
        print(f"saved {target.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
