"""HTTPS (issue 16): filedrop, nginx and lighttpd over TLS, with the same certificate and cipher.

Once per run the openssl CLI makes a CA and a leaf for 127.0.0.1 and localhost (ECDSA P-256).
For each round a fresh server of each kind is started with that leaf on an HTTPS port of its
own (besides its plain one): TLS 1.2 and 1.3 with TLS_AES_128_GCM_SHA256 the only TLS 1.3
cipher (every client here speaks 1.3), server preference, no session tickets, X25519 then
P-256; kernel TLS is off everywhere (this kernel has no `tls` ULP, and none of the three is
told to use it). Then:

- 1 GiB GET (curl to /dev/null, verifying the certificate against the CA);
- 1 GiB PUT (curl -T) and, filedrop only, 1 GiB multipart POST (curl -F), both against the
  peers' WebDAV PUT; the stored copy compared with cmp;
- wrk on a 4 KiB file over keep-alive HTTPS;
- full handshakes per second: `openssl s_time -new` (a new connection and a full handshake
  for each GET, never a resumed session: s_time prints one character per connection and 'r'
  for a resumed one, which we count), several processes at once to load every core;
- 1,000 idle TLS connections: each finishes its handshake (certificate verified) and one GET
  of the 4 KiB file, then all are held; the value is the RSS of the serving processes.

Every loop is bounded in count and time; uploads are deleted after their comparison.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from procstat import rss_bytes, tree_pids
from servers import RunningServer, free_ports, variant
from tls_clients import client_context, hold_tls, idle_and_open, make_certificates, negotiation, wait_tls_ready
from workloads import MIB, Outcome, Workloads, measured

GIB = 1024 * MIB
SERVERS = ("filedrop", "filedrop-nofsync", "nginx", "lighttpd")
# One filedrop's figures stand for both where fsync does not matter (everything but uploads).
UPLOAD_ONLY = ("filedrop-nofsync",)
CIPHERSUITE = "TLS_AES_128_GCM_SHA256"
# Mozilla's "intermediate" TLS 1.2 list (only the ECDSA ones apply to this certificate).
TLS12_CIPHERS = ("ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
                 "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
                 "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305")
CURL_FORMAT = "%{http_code} %{time_total} %{size_download}"


@dataclass
class TlsSetup:
    """What every server is given: the same leaf and key, and the same protocol settings."""
    cert: Path
    key: Path
    ca: Path
    port: int
    ciphersuite: str = CIPHERSUITE
    tls12_ciphers: str = TLS12_CIPHERS
    nginx_curves: str = "X25519:prime256v1"
    openssl_groups: str = "X25519:P-256"


@dataclass
class Row:
    key: str
    title: str
    unit: str
    servers: tuple
    # The target: filedrop ÷ each of `against` at least `target` (for lower_is_better, the
    # peer's figure ÷ filedrop's). `against_row` is the row whose peer figures are compared.
    target: float
    against: tuple = ("nginx",)
    against_row: str = ""
    lower_is_better: bool = False
    upload: bool = False


def rows(sizes, handshake_processes):
    big = f"{sizes.big // GIB} GiB" if sizes.big >= GIB else f"{sizes.big // MIB} MiB"
    peers = ("nginx", "lighttpd")
    return [
        Row("get", f"{big} GET over HTTPS (curl, certificate verified, to /dev/null)", "MiB/s",
            ("filedrop", "nginx", "lighttpd"), 1.0),
        Row("put", f"{big} upload over HTTPS: PUT (curl -T)", "MiB/s", SERVERS, 1.0, against=peers, upload=True),
        Row("post", f"{big} upload over HTTPS: filedrop multipart POST (curl -F) against the peers' PUT", "MiB/s",
            ("filedrop", "filedrop-nofsync"), 1.0, against=peers, against_row="put", upload=True),
        Row("wrk", f"wrk -t2 -c64 -d{sizes.wrk_seconds}s over keep-alive HTTPS, 4 KiB file", "req/s",
            ("filedrop", "nginx", "lighttpd"), 1.0),
        Row("handshakes", f"full handshakes (openssl s_time -new, {handshake_processes} processes, "
                          f"{sizes.wrk_seconds} s; one GET of the 4 KiB file each)", "handshakes/s",
            ("filedrop", "nginx", "lighttpd"), 0.9),
        Row("idle", f"{sizes.held_connections:,} idle TLS connections held (handshake + one GET each)",
            "RSS MiB", ("filedrop", "nginx", "lighttpd"), 1.0, lower_is_better=True),
    ]


def kernel_tls_available():
    try:
        return "tls" in Path("/proc/sys/net/ipv4/tcp_available_ulp").read_text().split()
    except OSError:
        return False


class TlsWorkload:
    """The `tls` workload: for one server kind, a fresh TLS-enabled server and every row on it."""

    def __init__(self, sizes, sources, work, tools):
        self.sizes = sizes
        self.sources = sources
        self.work = work / "tls"
        self.tools = tools
        self.handshake_processes = 2 * (os.cpu_count() or 1)
        # BENCH_TLS_ROWS=get,handshakes runs only those rows (keys: see `rows`).
        wanted = os.environ.get("BENCH_TLS_ROWS")
        self.rows = [r for r in rows(sizes, self.handshake_processes) if not wanted or r.key in wanted.split(",")]
        self._certificates = None

    def certificates(self):
        """(ca, leaf, key), made once per run."""
        if self._certificates is None:
            self._certificates = make_certificates(self.work / "certificates")
        return self._certificates

    def tls(self, server, run):
        if server.kind.key not in SERVERS:
            return None
        wanted = [r for r in self.rows if server.kind.key in r.servers]
        if not wanted:
            return None
        ca, leaf, key = self.certificates()
        root = self.work / server.kind.key
        shutil.rmtree(root, ignore_errors=True)
        (root / "files").mkdir(parents=True)
        os.link(self.sources.big, root / "files" / "get.bin")
        shutil.copyfile(self.sources.small, root / "files" / "small.bin")
        plain_port, tls_port = free_ports(2)
        kind = variant(server.kind, tls=TlsSetup(cert=leaf, key=key, ca=ca, port=tls_port))
        running = RunningServer(kind, root, plain_port, self.tools)
        results, negotiated = {}, {}
        try:
            running.start()
            wait_tls_ready(tls_port, ca, running)
            negotiated = negotiation(tls_port, ca)
            transfers = Workloads(self.sizes, self.sources, self.work / "client", curl_options=("--cacert", str(ca)))
            (self.work / "client").mkdir(parents=True, exist_ok=True)
            for row in wanted:
                _progress(f"tls {row.key} on {server.kind.key}")
                results[row.key] = self._row(row, running, transfers, ca, run)
        except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
            note = f"{type(error).__name__}: {error}"[:300]
            for row in wanted:
                results.setdefault(row.key, _as_dict(Outcome(0.0, ok=False, note=note)))
        finally:
            running.stop()
            shutil.rmtree(root, ignore_errors=True)
        failed = {key: r["note"] for key, r in results.items() if not r["ok"]}
        if len(set(failed.values())) == 1 and len(failed) > 1:
            note = f"{', '.join(failed)}: {next(iter(failed.values()))}"
        else:
            note = "; ".join(f"{key}: {text}" for key, text in failed.items())
        return Outcome(0.0, ok=not failed, note=note[:300],
                       extra={"rows": results, "negotiated": negotiated})

    def _row(self, row, running, transfers, ca, run):
        https = OverHttps(running)
        try:
            if row.key == "get":
                outcome = self._get(https)
            elif row.key == "put":
                outcome = transfers.put_big(https, f"tls-{run}")
            elif row.key == "post":
                outcome = transfers.post_big(https, f"tls-{run}")
            elif row.key == "wrk":
                outcome = transfers.wrk_small(https, run)
            elif row.key == "handshakes":
                outcome = self._handshakes(https)
            else:
                outcome = self._idle(https, ca)
        except subprocess.TimeoutExpired as error:
            outcome = Outcome(0.0, ok=False, note=f"timed out: {' '.join(map(str, error.cmd))[:120]}")
        except (OSError, ValueError) as error:
            outcome = Outcome(0.0, ok=False, note=f"{type(error).__name__}: {error}"[:300])
        return _as_dict(outcome)

    def _get(self, server):
        """The big file to /dev/null: TLS authenticates every record, so a whole 200 of the right
        length is the file the server read; the plain GET workload compares contents."""
        argv = ["curl", "-sS", "--cacert", str(server.kind.tls.ca), "-o", "/dev/null", "-w", CURL_FORMAT,
                server.url(server.kind.get_prefix + "get.bin")]

        def body(_):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=self.sizes.transfer_timeout)
            return Outcome(0.0, extra={"done": (done.returncode, done.stdout.split(), done.stderr.strip()[:200])})

        outcome = measured(server, body)
        returncode, fields, error = outcome.extra.pop("done")
        if returncode != 0 or len(fields) < 3:
            outcome.ok, outcome.note = False, error or f"curl exited with {returncode}"
            return outcome
        status, seconds, received = int(fields[0]), float(fields[1]), int(float(fields[2]))
        outcome.value = self.sizes.big / MIB / seconds if seconds > 0 else 0.0
        outcome.ok = status == 200 and received == self.sizes.big
        outcome.note = "" if outcome.ok else f"HTTP {status}, {received} of {self.sizes.big} bytes"
        return outcome

    def _handshakes(self, server):
        """`openssl s_time -new` in several processes for the same seconds: handshakes per second
        over the wall time of all, the server's CPU per handshake, and how many were resumed."""
        seconds = self.sizes.wrk_seconds
        argv = ["openssl", "s_time", "-connect", f"127.0.0.1:{server.kind.tls.port}", "-new", "-time", str(seconds),
                "-www", server.kind.get_prefix + "small.bin"]

        def body(_):
            started = time.monotonic()
            processes = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                         for _ in range(self.handshake_processes)]
            outputs = []
            try:
                for process in processes:
                    out, err = process.communicate(timeout=seconds + 60)
                    outputs.append((process.returncode, out, err))
            finally:
                for process in processes:
                    if process.poll() is None:
                        process.kill()
                        process.wait()
            return Outcome(0.0, extra={"outputs": outputs, "wall": time.monotonic() - started})

        outcome = measured(server, body)
        outputs, wall = outcome.extra.pop("outputs"), outcome.extra.pop("wall")
        connections, read, resumed, problems = 0, 0, 0, []
        for returncode, out, err in outputs:
            summary = re.search(r"(\d+) connections in [\d.]+s; [\d.]+ connections/user sec, bytes read (\d+)", out)
            if returncode != 0 or not summary:
                problems.append(f"s_time exited with {returncode}: {(err or out).strip()[-160:]}")
                continue
            connections += int(summary.group(1))
            read += int(summary.group(2))
            # One character per connection: '*' new (TLS 1.3), 't' new (TLS 1.0), 'r' resumed.
            resumed += sum(line.count("r") for line in out.splitlines() if line and set(line) <= set("*rt3"))
        per_connection = read / connections if connections else 0
        if connections and per_connection < 4096:
            problems.append(f"{per_connection:.0f} bytes read per connection: the 4 KiB file was not served")
        if resumed:
            problems.append(f"{resumed} of {connections} sessions were resumed")
        outcome.value = connections / wall if wall > 0 else 0.0
        outcome.ok, outcome.note = not problems and connections > 0, "; ".join(problems)[:300]
        outcome.extra.update({"connections": connections, "resumed": resumed,
                              "cpu_us_per_handshake": outcome.cpu / connections * 1e6 if connections else None})
        return outcome

    def _idle(self, server, ca):
        """N connections finish their handshake and one GET of the 4 KiB file (64 in flight at a time),
        then are all held: the RSS of the serving processes (nginx's and lighttpd's workers, filedrop's
        one process) while they are, and its growth over the idle server, per connection."""
        count = self.sizes.held_connections
        context = client_context(ca)
        request = (f"GET {server.kind.get_prefix}small.bin HTTP/1.1\r\n"
                   f"Host: 127.0.0.1:{server.kind.tls.port}\r\n\r\n").encode()
        serving = _serving_pids(server.pid)
        before = rss_bytes(serving)

        def body(sampler):
            held, failures, resumed = hold_tls(("127.0.0.1", server.kind.tls.port), context, request, count, 60.0)
            try:
                time.sleep(0.5)
                alive = sum(1 for s in held if idle_and_open(s))
                rss, tree_rss = rss_bytes(serving), sampler.current_rss()
            finally:
                for s in held:
                    s.close()
            problems = [f"{failures} of {count} connections failed"] if failures else []
            if resumed:
                problems.append(f"{resumed} sessions were resumed")
            return Outcome(rss / MIB, ok=not problems, note="; ".join(problems),
                           extra={"held": alive, "tree_rss_mib": tree_rss / MIB,
                                  "kib_per_connection": (rss - before) / 1024 / max(1, alive)})

        return measured(server, body)


class OverHttps:
    """A running server seen through its HTTPS port: url() gives https:// URLs, all else is the server's."""

    def __init__(self, server):
        self._server = server

    def __getattr__(self, name):
        return getattr(self._server, name)

    def url(self, path):
        return self._server.https_url(path)









def _serving_pids(root):
    """The processes that hold the connections: the workers where a master forks them (nginx,
    lighttpd with server.max-worker), else the one process (filedrop)."""
    pids = tree_pids(root)
    return pids[1:] or pids


def _as_dict(outcome):
    return {"value": outcome.value, "ok": outcome.ok, "note": outcome.note, "cpu": outcome.cpu,
            "peak_rss": outcome.peak_rss, "extra": outcome.extra}


def _progress(text):
    print(f"        {text}", file=sys.stderr, flush=True)

