"""Latency isolation (issue 17): does one heavy client stall everyone else?

For each scenario a fresh server is started in its own directory, a probe process (this file
run as `latency.py probe`) opens its own keep-alive connection and alternates `GET` of a 4 KiB
file and `GET /`, one request every PROBE_INTERVAL, timing each; meanwhile this process runs the
load (big uploads with fsync, an overwrite of a big file, a wrong-password flood from 200
addresses, a big ZIP download). filedrop and nginx get the same load in the same round.
Targets: the probe's worst request under 50 ms, and filedrop's p99 no worse than nginx's.

Every loop is bounded in count and time; big files are deleted after each scenario.
"""

import base64
import json
import math
import os
import statistics
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from servers import RunningServer, free_ports, variant
from workloads import run_at_once

MIB = 1024 * 1024
GIB = 1024 * MIB
SERVERS = ("filedrop", "nginx")
MAX_STALL_TARGET_MS = 50.0
PROBE_INTERVAL = 0.002
PROBE_REQUEST_TIMEOUT = 30.0
PROBE_WARMUP_REQUESTS = 20
LEAD_SECONDS = 0.5
TAIL_SECONDS = 1.0
FLOOD_ADDRESSES = 200
FLOOD_SECONDS = 4.0
PASSWORD = "latency-bench-password"
CURL_FORMAT = "%{http_code} %{time_total} %{size_download}\n"


@dataclass
class LatencySizes:
    big: int
    chunk: int
    chunk_count: int
    zip_files: int
    load_timeout: int

    @staticmethod
    def for_run(quick):
        if quick:
            return LatencySizes(big=256 * MIB, chunk=32 * MIB, chunk_count=8, zip_files=4, load_timeout=120)
        return LatencySizes(big=2 * GIB, chunk=256 * MIB, chunk_count=8, zip_files=4, load_timeout=240)


def _size(n):
    return f"{n // GIB} GiB" if n >= GIB else f"{n // MIB} MiB"


@dataclass
class Scenario:
    key: str
    title: str
    access: str = "open"


def scenarios(sizes):
    return [
        Scenario("idle", "no load (reference)"),
        Scenario("upload", f"one {_size(sizes.big)} upload (curl -T; filedrop fsyncs)"),
        Scenario("uploads", f"{sizes.chunk_count} concurrent {_size(sizes.chunk)} uploads (curl -T; filedrop fsyncs)"),
        Scenario("overwrite", f"6-byte PUT over a {_size(sizes.big)} file"),
        Scenario("flood", f"{FLOOD_ADDRESSES} wrong passwords from {FLOOD_ADDRESSES} addresses in "
                          f"{FLOOD_SECONDS:.0f} s (probe logged in)", access="private"),
        Scenario("zip", f"{_size(sizes.chunk * sizes.zip_files)} download: filedrop ?zip of a folder, "
                        f"nginx the same {sizes.zip_files} files on one connection"),
    ]


@dataclass
class LoadResult:
    ok: bool
    seconds: float
    note: str = ""
    detail: str = ""


@dataclass
class ScenarioResult:
    probe: dict
    load: LoadResult


class LatencyWorkload:
    """The `latency` workload: every scenario on one server kind, returning one Outcome."""

    def __init__(self, quick, work, sources_dir, tools, outcome_type):
        self.sizes = LatencySizes.for_run(quick)
        self.work = work / "latency"
        self.sources_dir = sources_dir
        self.tools = tools
        self.outcome_type = outcome_type
        # BENCH_LATENCY_SCENARIOS=upload,flood runs only those (keys: see `scenarios`).
        wanted = os.environ.get("BENCH_LATENCY_SCENARIOS")
        self.scenarios = [s for s in scenarios(self.sizes) if not wanted or s.key in wanted.split(",")]
        self._sources = None
        self._hashes = None

    def sources(self):
        if self._sources is None:
            big = _random_file(self.sources_dir / f"latency-big-{self.sizes.big}.bin", self.sizes.big)
            chunk = _random_file(self.sources_dir / f"latency-chunk-{self.sizes.chunk}.bin", self.sizes.chunk)
            small = self.sources_dir / "small.bin"
            six = self.sources_dir / "six-bytes.txt"
            six.write_bytes(b"small\n")
            self._sources = {"big": big, "chunk": chunk, "small": small, "six": six}
        return self._sources

    def password_hashes(self):
        """filedrop's own hash (`filedrop passwd`) and an apr1 htpasswd line for nginx."""
        if self._hashes is None:
            filedrop = subprocess.run([str(self.tools.filedrop), "passwd"], input=PASSWORD + "\n",
                                      capture_output=True, text=True, timeout=60, check=True).stdout.strip().split()[-1]
            apr1 = subprocess.run(["openssl", "passwd", "-apr1", "-stdin"], input=PASSWORD + "\n",
                                  capture_output=True, text=True, timeout=60, check=True).stdout.strip()
            self._hashes = {"filedrop": filedrop, "nginx": apr1}
        return self._hashes

    def isolation(self, server, run):
        if server.kind.key not in SERVERS:
            return None
        results = {}
        for scenario in self.scenarios:
            _progress(f"latency {scenario.key} on {server.kind.key}")
            root = self.work / server.kind.key / scenario.key
            shutil.rmtree(root, ignore_errors=True)
            try:
                kind, headers = self._configure(server.kind, scenario, root)
                prepare = getattr(self, f"_prepare_{scenario.key}", None)
                prepared = prepare(kind, root / "files") if prepare else None
                os.sync()
                running = RunningServer(kind, root, free_ports(1)[0], self.tools)
                try:
                    running.start()
                    results[scenario.key] = self._measure(running, scenario, headers, prepared)
                finally:
                    running.stop()
            except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
                results[scenario.key] = ScenarioResult({}, LoadResult(False, 0.0, f"{type(error).__name__}: {error}"))
            finally:
                shutil.rmtree(root, ignore_errors=True)
        failed = [f"{key}: {r.load.note or 'probe errors'}" for key, r in results.items()
                  if not r.load.ok or r.probe.get("errors", 1)]
        return self.outcome_type(0.0, ok=not failed, note="; ".join(failed)[:300],
                                 extra={"scenarios": {k: _as_dict(r) for k, r in results.items()}})

    # Servers

    def _configure(self, kind, scenario, root):
        """The server kind for this scenario, and the headers the probe sends."""
        files = root / "files"
        files.mkdir(parents=True)
        shutil.copyfile(self.sources()["small"], files / "small.bin")
        headers = {}
        if scenario.access == "private":
            headers["Authorization"] = _basic("bench", PASSWORD)
        if kind.key == "filedrop":
            argv = ["--on-collision", "overwrite"] if scenario.key == "overwrite" else []
            # BENCH_LATENCY_FILEDROP_FLAGS="--fsync false" tells what durability costs the probe.
            argv += os.environ.get("BENCH_LATENCY_FILEDROP_FLAGS", "").split()
            if scenario.access == "private":
                argv += ["--access", "private", "--password-hash", self.password_hashes()["filedrop"]]
            return variant(kind, extra_argv=tuple(argv), ready_headers=headers), headers
        # nginx has no page of its own at /: it serves the same index.html filedrop serves.
        shutil.copyfile(self.tools.web_root / "index.html", files / "index.html")
        if scenario.access != "private":
            return kind, headers
        htpasswd = root / "htpasswd"
        htpasswd.write_text(f"bench:{self.password_hashes()['nginx']}\n")
        return variant(kind, auth_user_file=str(htpasswd), ready_headers=headers), headers

    def _prepare_overwrite(self, kind, files):
        # A real copy, not a link: replacing it must free its blocks, as a user's old file would.
        subprocess.run(["cp", "--reflink=never", str(self.sources()["big"]), str(files / "overwrite.bin")],
                       check=True, timeout=self.sizes.load_timeout)

    def _prepare_zip(self, kind, files):
        folder = files / "folder"
        folder.mkdir()
        names = [f"part-{i}.bin" for i in range(self.sizes.zip_files)]
        for name in names:
            os.link(self.sources()["chunk"], folder / name)
        return names

    # One scenario

    def _measure(self, server, scenario, headers, prepared):
        paths = [server.kind.get_prefix + "small.bin", "/"]
        argv = [sys.executable, str(Path(__file__).resolve()), "probe", str(server.port), ",".join(paths),
                json.dumps(headers), str(self.sizes.load_timeout + 30)]
        probe = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready = probe.stdout.readline().strip()
            if ready != "ready":
                raise RuntimeError(f"probe did not start: {ready or probe.stderr.read()[:200]}")
            time.sleep(LEAD_SECONDS)
            load = getattr(self, f"_load_{scenario.key}")(server, headers, prepared)
            time.sleep(TAIL_SECONDS)
            out, err = probe.communicate(input="", timeout=60)
        finally:
            if probe.poll() is None:
                probe.kill()
                probe.wait()
        lines = out.strip().splitlines()
        if probe.returncode != 0 or not lines:
            raise RuntimeError(f"probe failed ({probe.returncode}): {err.strip()[:200]}")
        return ScenarioResult(json.loads(lines[-1]), load)

    # Loads: each returns a LoadResult and leaves nothing big behind but what the cleanup removes.

    def _load_idle(self, server, headers, prepared):
        time.sleep(2.0)
        return LoadResult(True, 2.0)

    def _load_upload(self, server, headers, prepared):
        return self._uploads(server, ["upload.bin"], self.sources()["big"], self.sizes.big)

    def _load_uploads(self, server, headers, prepared):
        names = [f"upload-{i}.bin" for i in range(self.sizes.chunk_count)]
        return self._uploads(server, names, self.sources()["chunk"], self.sizes.chunk)

    def _load_overwrite(self, server, headers, prepared):
        result = self._uploads(server, ["overwrite.bin"], self.sources()["six"], 6)
        result.detail = f"PUT answered in {result.seconds * 1000:.0f} ms"
        return result

    def _uploads(self, server, names, source, size):
        commands = [["curl", "-sS", "-o", "/dev/null", "-w", CURL_FORMAT, "-T", str(source),
                     server.url(server.kind.put_path(name))] for name in names]
        started = time.monotonic()
        outputs = _run_all(commands, self.sizes.load_timeout)
        seconds = time.monotonic() - started
        problems = []
        for name, (status, error) in zip(names, outputs):
            stored = server.files / name
            if error or not 200 <= status < 300:
                problems.append(f"{name}: {error or f'HTTP {status}'}")
            elif not stored.exists() or stored.stat().st_size != size:
                problems.append(f"{name}: HTTP {status} but not stored whole")
            if stored.exists():
                stored.unlink()
        rate = len(names) * size / MIB / seconds if seconds > 0 else 0.0
        return LoadResult(not problems, seconds, "; ".join(problems)[:200], f"{rate:,.0f} MiB/s aggregate")

    def _load_flood(self, server, headers, prepared):
        started = time.monotonic()
        statuses = _flood(server.port, server.kind.get_prefix + "small.bin", FLOOD_ADDRESSES, FLOOD_SECONDS)
        seconds = time.monotonic() - started
        refused = sum(1 for s in statuses if s == 401)
        ok = refused == len(statuses) == FLOOD_ADDRESSES
        other = sorted({s for s in statuses if s != 401})
        note = "" if ok else f"{refused} of {FLOOD_ADDRESSES} answered 401; other answers: {other}"
        return LoadResult(ok, seconds, note, f"{refused} × 401 in {seconds:.1f} s")

    def _load_zip(self, server, headers, prepared):
        total = self.sizes.chunk * self.sizes.zip_files
        if server.kind.key == "filedrop":
            urls = [server.url("/files/folder/?zip")]
        else:
            urls = [server.url(f"/folder/{name}") for name in prepared]
        command = ["curl", "-sS", "-w", CURL_FORMAT]
        for url in urls:
            command += ["-o", "/dev/null", url]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=self.sizes.load_timeout)
        seconds = time.monotonic() - started
        answers = [line.split() for line in done.stdout.strip().splitlines()]
        received = sum(int(float(a[2])) for a in answers if len(a) == 3)
        ok = done.returncode == 0 and len(answers) == len(urls) and all(a[0] == "200" for a in answers if a) \
            and received >= total
        note = "" if ok else (done.stderr.strip()[:200] or f"received {received} of {total} bytes")
        return LoadResult(ok, seconds, note, f"{received / MIB / seconds:,.0f} MiB/s" if seconds > 0 else "")


class LatencyTables:
    """The report's latency tables: per scenario filedrop and nginx side by side, against the targets.
    Over several rounds p50 and p99 are medians of the rounds' figures and max is the worst round."""

    def __init__(self, quick, results):
        self.sizes = LatencySizes.for_run(quick)
        self.results = results

    def _rounds(self, server, scenario):
        rounds = []
        for outcome in self.results.get(("latency", server), []):
            entry = outcome.extra.get("scenarios", {}).get(scenario) if outcome is not None else None
            if entry and entry["probe"] and entry["load"]["ok"]:
                rounds.append(entry)
        return rounds

    def _figures(self, server, scenario):
        rounds = self._rounds(server, scenario)
        if not rounds:
            return None
        probes = [r["probe"] for r in rounds]
        return {"p50": statistics.median(p["p50"] for p in probes), "p99": statistics.median(p["p99"] for p in probes),
                "max": max(p["max"] for p in probes), "count": sum(p["count"] for p in probes),
                "errors": sum(p["errors"] for p in probes), "reconnects": sum(p["reconnects"] for p in probes),
                "oversleep": max(p.get("oversleep", 0.0) for p in probes),
                "by_path": {path: max(p["max_by_path"][path] for p in probes) for path in probes[0]["max_by_path"]},
                "load_seconds": statistics.median(r["load"]["seconds"] for r in rounds),
                "load": rounds[-1]["load"]["detail"], "rounds": len(rounds)}

    def lines(self, title):
        if not any(self.results.get(("latency", s)) for s in SERVERS):
            return []
        out = [f"## {title}", "",
               f"A separate probe process on its own keep-alive connection alternates `GET` of a 4 KiB file and "
               f"`GET /`, one request every {PROBE_INTERVAL * 1000:.0f} ms, from {LEAD_SECONDS} s before the load "
               f"until {TAIL_SECONDS} s after it; a fresh server for every scenario. Targets: filedrop's max "
               f"under {MAX_STALL_TARGET_MS:.0f} ms, and its p99 no worse than nginx's under the same load. "
               "Ratios are nginx ÷ filedrop: above 1 means filedrop's probe waited less.", "",
               "| scenario | filedrop p50 / p99 / max ms | nginx p50 / p99 / max ms | probe requests filedrop / nginx "
               f"| p99 nginx ÷ filedrop | max nginx ÷ filedrop | max < {MAX_STALL_TARGET_MS:.0f} ms "
               "| p99 ≤ nginx's |", "|---|---|---|---|---|---|---|---|"]
        for scenario in scenarios(self.sizes):
            mine, theirs = self._figures("filedrop", scenario.key), self._figures("nginx", scenario.key)
            out.append("| " + " | ".join([
                scenario.title, _triple(mine), _triple(theirs),
                f"{mine['count'] if mine else '-'} / {theirs['count'] if theirs else '-'}",
                _ratio(mine, theirs, "p99"), _ratio(mine, theirs, "max"),
                "-" if mine is None else ("met" if mine["max"] < MAX_STALL_TARGET_MS else "not met"),
                "-" if mine is None or theirs is None else ("met" if mine["p99"] <= theirs["p99"] else "not met"),
            ]) + " |")
        out += ["", "Each server's probe in detail (worst round), and what the load itself did. The wake-up lag is how "
                "late the probe's own 2 ms sleep ended: a stall the machine (CPU contention with the load) put on "
                "the client, not the server.", "",
                "| scenario | server | max 4 KiB GET ms | max GET / ms | probe's own max wake-up lag ms | probe errors "
                "| reconnects | load s | load |",
                "|---|---|---|---|---|---|---|---|---|"]
        for scenario in scenarios(self.sizes):
            for server in SERVERS:
                figures = self._figures(server, scenario.key)
                if figures is None:
                    out.append(f"| {scenario.key} | {server} | not run or failed | | | | | | |")
                    continue
                root_max = figures["by_path"].get("/")
                file_max = next((v for path, v in figures["by_path"].items() if path != "/"), None)
                out.append(f"| {scenario.key} | {server} | {_ms(file_max)} | {_ms(root_max)} | {_ms(figures['oversleep'])} "
                           f"| {figures['errors']} "
                           f"| {figures['reconnects']} | {figures['load_seconds']:.1f} | {figures['load'] or '-'} |")
        return out + [""]


NOTES = [
    "Latency: nginx does not fsync its PUTs (WebDAV `dav_methods PUT`); filedrop fsyncs each upload before it "
    "becomes visible. The overwrite scenario runs filedrop with `--on-collision overwrite`; nginx's PUT replaces "
    "the file by rename.",
    "Latency, wrong-password flood: filedrop runs `--access private` with a `filedrop passwd` hash (yescrypt, "
    "`$y$`); nginx runs `auth_basic` with an `openssl passwd -apr1` htpasswd line (apr1: 1,000 MD5 rounds per "
    "request, the probe's too). Each of the 200 requests comes from its own address (127.0.0.2 to 127.0.0.201).",
    "Latency, ZIP: nginx has no ZIP download, so it serves the same files of the folder one after another on "
    "one keep-alive connection (the same bytes read from the same page cache); filedrop stores random data "
    "in the ZIP without deflate (it tests the first 64 KiB), computing CRC-32.",
]


def _as_dict(result):
    return {"probe": result.probe, "load": result.load.__dict__}


def _progress(text):
    print(f"        {text}", file=sys.stderr, flush=True)


def _ms(value):
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else (f"{value:.1f}" if value >= 10 else f"{value:.2f}")


def _triple(figures):
    return "-" if figures is None else " / ".join(_ms(figures[k]) for k in ("p50", "p99", "max"))


def _ratio(mine, theirs, key):
    if mine is None or theirs is None or not mine[key]:
        return "-"
    return f"{theirs[key] / mine[key]:.2f}"


def _basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _random_file(path, size):
    if path.exists() and path.stat().st_size == size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as output:
        for offset in range(0, size, 16 * MIB):
            output.write(os.urandom(min(16 * MIB, size - offset)))
    return path


def _run_all(commands, timeout):
    """Runs the curl commands at once; [(HTTP status, error)] in order, bounded by timeout."""
    results = []
    for returncode, out, err in run_at_once(commands, timeout):
        fields = out.split()
        status = int(fields[0]) if returncode == 0 and fields else 0
        results.append((status, err.strip()[:200]))
    return results


def _flood(port, path, count, seconds):
    """`count` requests with a wrong password, each from its own address 127.0.0.2..., started
    evenly over `seconds`; returns their HTTP statuses (0 for a failure). Bounded in time."""
    statuses = [0] * count
    start = time.monotonic() + 0.05

    def one(index):
        time.sleep(max(0.0, start + index * seconds / count - time.monotonic()))
        address = f"127.0.{(index + 2) // 256}.{(index + 2) % 256}"
        request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   f"Authorization: {_basic('bench', f'wrong-{index}')}\r\nConnection: close\r\n\r\n").encode()
        try:
            with socket.socket() as s:
                s.settimeout(30)
                s.bind((address, 0))
                s.connect(("127.0.0.1", port))
                s.sendall(request)
                head = b""
                while b"\r\n" not in head and len(head) < 65536:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                statuses[index] = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        except (OSError, ValueError, IndexError):
            statuses[index] = 0

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.1, start + seconds + 60 - time.monotonic()))
    return statuses


# The probe: its own process and connection.

class ProbeConnection:
    """One keep-alive HTTP/1.1 connection; reconnects when the server closes it."""

    def __init__(self, port, headers):
        self.port = port
        self.extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.sock = None
        self.buffer = b""
        self.reconnects = -1

    def drop(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = None

    def _connect(self):
        self.drop()
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=PROBE_REQUEST_TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.reconnects += 1

    def get(self, path):
        """The status of one GET; the body is read and dropped."""
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{self.extra}\r\n".encode()
        for attempt in range(2):
            if self.sock is None:
                self._connect()
            try:
                self.sock.sendall(request)
                status, close = self._response()
            except ConnectionError:
                # An idle keep-alive connection the server closed: once more on a new one.
                self.drop()
                if attempt:
                    raise
                continue
            if close:
                self.drop()
            return status
        raise ConnectionError("unreachable")

    def _fill(self):
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionError("closed by the server")
        self.buffer += chunk

    def _response(self):
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        end = self.buffer.index(b"\r\n\r\n")
        head = self.buffer[:end].decode("latin-1").split("\r\n")
        self.buffer = self.buffer[end + 4:]
        status = int(head[0].split(" ", 2)[1])
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            length = int(fields["content-length"])
            while len(self.buffer) < length:
                self._fill()
            self.buffer = self.buffer[length:]
        elif "chunked" in fields.get("transfer-encoding", "").lower():
            while not self.buffer.endswith(b"0\r\n\r\n"):
                self._fill()
            self.buffer = b""
        return status, fields.get("connection", "").lower() == "close"


def _percentile(sorted_values, fraction):
    """Nearest rank."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def probe_main(port, paths, headers, max_seconds):
    """Alternates GETs of `paths` every PROBE_INTERVAL until stdin closes (or max_seconds), then
    prints one JSON line: count, p50/p99/max ms over all, the worst per path, errors, and the
    worst lateness of its own wake-ups (ms)."""
    connection = ProbeConnection(port, headers)
    for index in range(PROBE_WARMUP_REQUESTS):
        connection.get(paths[index % len(paths)])
    print("ready", flush=True)
    latencies = {path: [] for path in paths}
    errors, index, oversleep = 0, 0, 0.0
    deadline = time.monotonic() + max_seconds
    next_start = time.monotonic()
    while time.monotonic() < deadline:
        wait = max(0.0, next_start - time.monotonic())
        if select.select([sys.stdin], [], [], wait)[0] and not sys.stdin.read(1):
            break
        if wait > 0:
            # How late the probe itself woke: a stall the machine caused, not the server.
            oversleep = max(oversleep, time.monotonic() - next_start)
        path = paths[index % len(paths)]
        index += 1
        started = time.perf_counter()
        next_start = time.monotonic() + PROBE_INTERVAL
        try:
            status = connection.get(path)
        except (OSError, ValueError, IndexError):
            status = 0
            connection.drop()
        latencies[path].append((time.perf_counter() - started) * 1000)
        if status != 200:
            errors += 1
    every = sorted(v for values in latencies.values() for v in values)
    print(json.dumps({
        "count": len(every), "errors": errors, "reconnects": max(0, connection.reconnects),
        "oversleep": oversleep * 1000,
        "p50": _percentile(every, 0.50), "p99": _percentile(every, 0.99), "max": every[-1] if every else None,
        "max_by_path": {path: max(values) if values else None for path, values in latencies.items()},
        "p99_by_path": {path: _percentile(sorted(values), 0.99) for path, values in latencies.items()},
    }), flush=True)


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "probe":
    probe_main(int(sys.argv[2]), sys.argv[3].split(","), json.loads(sys.argv[4]), float(sys.argv[5]))
