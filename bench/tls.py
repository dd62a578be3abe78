"""HTTPS (issue 16): filedrop, nginx and lighttpd over TLS, with the same certificate and cipher.

Once per run the openssl CLI makes a CA and a leaf for 127.0.0.1 and localhost (ECDSA P-256).
For each round a fresh server of each kind is started with that leaf on an HTTPS port of its
own (besides its plain one), TLS 1.3 only with TLS_AES_128_GCM_SHA256 for the 1.3 clients
used here, server preference, no session tickets, X25519 then P-256; kernel TLS is off
everywhere (this kernel has no `tls` ULP, and none of the three is told to use it). Then:

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
import selectors
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from procstat import rss_bytes, tree_pids
from servers import RunningServer, free_ports, variant
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
READY_TIMEOUT = 30.0
HANDSHAKES_IN_FLIGHT = 64
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
            _wait_tls_ready(tls_port, ca, running)
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
                alive = sum(1 for s in held if _idle_and_open(s))
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


def make_certificates(directory):
    """A CA and a leaf for 127.0.0.1 and localhost it signed, all ECDSA P-256, with the openssl CLI."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    leaf, key, request = directory / "leaf.crt", directory / "leaf.key", directory / "leaf.csr"
    extensions = directory / "leaf.ext"
    extensions.write_text("subjectAltName = IP:127.0.0.1, DNS:localhost\nbasicConstraints = critical, CA:FALSE\n"
                          "keyUsage = critical, digitalSignature\nextendedKeyUsage = serverAuth\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for argv in (
        ["openssl", "req", "-x509", "-new", *ec, "-keyout", ca_key, "-out", ca, "-days", "7",
         "-subj", "/CN=filedrop bench CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ["openssl", "req", "-new", *ec, "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
        ["openssl", "x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-set_serial", "2",
         "-days", "7", "-extfile", extensions, "-out", leaf],
        ["openssl", "verify", "-CAfile", ca, leaf],
    ):
        subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=60)
    return ca, leaf, key


def client_context(ca):
    """A client that verifies the server against our CA, TLS 1.3 with the benchmark's cipher."""
    context = ssl.create_default_context(cafile=str(ca))
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def _wait_tls_ready(port, ca, running):
    context = client_context(ca)
    deadline = time.monotonic() + READY_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(f"{running.kind.label} exited with {running.process.returncode}; "
                               f"see {running.root}/server.log")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
                with context.wrap_socket(raw, server_hostname="127.0.0.1"):
                    return
        except (OSError, ssl.SSLError) as error:
            last = str(error)
        time.sleep(0.1)
    raise RuntimeError(f"HTTPS port {port} of {running.kind.label} not ready after {READY_TIMEOUT:.0f} s ({last})")


def negotiation(port, ca):
    """What `openssl s_client` negotiates with the server by default (TLS 1.3), and as a TLS 1.2 client."""
    found = {}
    for label, extra in (("tls13", []), ("tls12", ["-tls1_2"])):
        done = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", str(ca),
                               "-verify_ip", "127.0.0.1", "-verify_return_error", *extra],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        text = done.stdout + done.stderr
        cipher = re.search(r"^New, (\S+), Cipher is (\S+)", text, re.M)
        group = re.search(r"^Server Temp Key: ([^,\n]+)", text, re.M)
        signature = re.search(r"^Peer signature type: (\S+)", text, re.M)
        verified = re.search(r"Verify return code: (\d+) \(([^)]*)\)", text)
        found[label] = {"protocol": cipher.group(1) if cipher else "?", "cipher": cipher.group(2) if cipher else "?",
                        "group": group.group(1) if group else "?", "signature": signature.group(1) if signature else "?",
                        "verify": verified.group(2) if verified else "?"}
    return found


def hold_tls(address, context, request, count, deadline):
    """Bounded in count and time: (TLS sockets that finished a handshake and got a 200 for `request`,
    how many failed, how many sessions were resumed)."""
    selector = selectors.DefaultSelector()
    states, held, failures, opened, resumed = {}, [], 0, 0, 0
    stop_at = time.monotonic() + deadline

    def fail(s):
        nonlocal failures
        failures += 1
        selector.unregister(s)
        states.pop(s)
        s.close()

    try:
        while (opened < count or states) and time.monotonic() < stop_at:
            while opened < count and len(states) < HANDSHAKES_IN_FLIGHT:
                raw = socket.socket()
                raw.setblocking(False)
                raw.connect_ex(address)
                selector.register(raw, selectors.EVENT_WRITE)
                states[raw] = ["connecting", bytearray()]
                opened += 1
            for key, _ in selector.select(timeout=0.5):
                s = key.fileobj
                state = states[s]
                if state[0] == "connecting":
                    if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        fail(s)
                        continue
                    selector.unregister(s)
                    states.pop(s)
                    s = context.wrap_socket(s, server_hostname="127.0.0.1", do_handshake_on_connect=False)
                    selector.register(s, selectors.EVENT_WRITE)
                    states[s] = state = ["handshake", bytearray()]
                try:
                    if state[0] == "handshake":
                        s.do_handshake()
                        resumed += s.session_reused
                        state[0] = "sending"
                    if state[0] == "sending":
                        s.send(request)
                        state[0] = "reading"
                        selector.modify(s, selectors.EVENT_READ)
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            fail(s)
                            break
                        state[1] += chunk
                        complete, status = _response_complete(state[1])
                        if complete:
                            selector.unregister(s)
                            states.pop(s)
                            if status == 200:
                                held.append(s)
                            else:
                                failures += 1
                                s.close()
                            break
                except ssl.SSLWantReadError:
                    selector.modify(s, selectors.EVENT_READ)
                except ssl.SSLWantWriteError:
                    selector.modify(s, selectors.EVENT_WRITE)
                except (OSError, ssl.SSLError):
                    fail(s)
    finally:
        for s in list(states):
            fail(s)
        selector.close()
    return held, failures + (count - opened), resumed


def _response_complete(buffer):
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return False, 0
    head = bytes(buffer[:end]).decode("latin-1")
    status = int(head.split(" ", 2)[1])
    length = re.search(r"(?im)^content-length:\s*(\d+)", head)
    return (length is not None and len(buffer) >= end + 4 + int(length.group(1))), status


def _idle_and_open(tls_socket):
    """Nothing more came (no data, no close_notify, no FIN): peeked on a duplicate of the descriptor."""
    raw = socket.socket(fileno=os.dup(tls_socket.fileno()))
    try:
        raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        raw.close()


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


class TlsTables:
    """The report's HTTPS tables: every row with filedrop's figure, the peers', the ratios and the
    target met or not; then each server's figures in detail and what each one negotiated."""

    def __init__(self, sizes, results):
        self.rows = rows(sizes, 2 * (os.cpu_count() or 1))
        self.sizes = sizes
        self.results = results

    def _passed(self, server, row):
        found = []
        for outcome in self.results.get(("tls", server), []):
            entry = outcome.extra.get("rows", {}).get(row) if outcome is not None else None
            if entry and entry["ok"]:
                found.append(entry)
        return found

    def _ran(self, server, row):
        return any(outcome is not None and row in outcome.extra.get("rows", {})
                   for outcome in self.results.get(("tls", server), []))

    def median(self, server, row):
        passed = self._passed(server, row)
        return statistics.median(e["value"] for e in passed) if passed else None

    def lines(self, title):
        if not any(self.results.get(("tls", s)) for s in SERVERS):
            return []
        peers = ("nginx", "lighttpd")
        out = [f"## {title}", "",
               "The same ECDSA P-256 leaf (signed by a CA made for the run) on every server; TLS 1.2 and 1.3 with "
               f"{CIPHERSUITE} as the only TLS 1.3 cipher, server preference, session tickets off, X25519 then P-256, "
               f"kernel TLS {'available but not enabled' if kernel_tls_available() else 'not available on this kernel (no tls ULP)'}. "
               "Ratios are filedrop ÷ peer (for RSS, peer ÷ filedrop): above 1 means filedrop is better. "
               "Uploads are shown for both filedrop modes: the peers do not fsync.", "",
               "| workload | unit | filedrop | nginx | lighttpd | filedrop ÷ nginx | filedrop ÷ lighttpd | target | |",
               "|---|---|---|---|---|---|---|---|---|"]
        for row in self.rows:
            modes = ("filedrop", "filedrop-nofsync") if row.upload else ("filedrop",)
            for mode in modes:
                if not self._ran(mode, row.key):
                    continue
                mine = self.median(mode, row.key)
                theirs = {p: self.median(p, row.against_row or row.key) for p in peers}
                ratios = {p: _ratio(mine, theirs[p], row.lower_is_better) for p in peers}
                label = row.title + ("" if not row.upload else
                                     (", filedrop fsyncs" if mode == "filedrop" else ", filedrop --fsync false"))
                out.append("| " + " | ".join([
                    label, row.unit, _shown(mine, self._ran(mode, row.key)),
                    *[_shown(theirs[p], self._ran(p, row.against_row or row.key)) for p in peers],
                    *[_number(ratios[p]) for p in peers], _target_text(row),
                    _verdict(row, {p: ratios[p] for p in row.against if self._ran(p, row.against_row or row.key)}),
                ]) + " |")
        out += ["", "Each server in detail: median and min–max over the rounds that passed; CPU s is the server's "
                "(utime + stime of its tree) during the workload, peak RSS the largest sum of its tree's VmRSS.", "",
                "| workload | server | median | min–max | ok runs | server CPU s | peak RSS MiB | detail |",
                "|---|---|---|---|---|---|---|---|"]
        for row in self.rows:
            for server in row.servers:
                if not self._ran(server, row.key):
                    continue
                passed = self._passed(server, row.key)
                values = [e["value"] for e in passed]
                runs = sum(1 for o in self.results.get(("tls", server), [])
                           if o is not None and row.key in o.extra.get("rows", {}))
                span = f"{_number(min(values))}–{_number(max(values))}" if values else "-"
                cpu = statistics.median(e["cpu"] for e in passed) if passed else None
                peak = max(e["peak_rss"] for e in passed) / MIB if passed else None
                out.append(f"| {row.key} | {_label(server)} | {_shown(self.median(server, row.key), True)} | {span} "
                           f"| {len(passed)}/{runs} | {_number(cpu)} | {_number(peak)} | {_detail(row, passed)} |")
        out += ["", "What `openssl s_client` negotiated with each server (certificate verified against the CA, "
                "`-verify_return_error`), as a default client and as a TLS 1.2 client:", ""]
        for server in SERVERS:
            negotiated = next((o.extra.get("negotiated") for o in reversed(self.results.get(("tls", server), []))
                               if o is not None and o.extra.get("negotiated")), None)
            if negotiated:
                out.append(f"- {_label(server)}: " + "; ".join(
                    f"{n['protocol']} {n['cipher']}, {n['group']}, {n['signature']} signature, verify {n['verify']}"
                    for n in negotiated.values()))
        return out + [""]


NOTES = [
    "HTTPS: every server gets the same leaf and key files; filedrop runs as in the plain rows plus `--tls files "
    "--tls-cert --tls-key --https-listen 127.0.0.1:PORT --http-mode serve` (serve: the plain port, which the "
    "readiness check uses, keeps answering); nginx with `worker_processes auto` (one per CPU, as filedrop's "
    "event loops), lighttpd with `mod_openssl` and `server.max-worker` one per CPU. A fresh server for every round.",
    "HTTPS handshakes: `openssl s_time -new -www PATH` sends one HTTP/1.0 GET per connection, which the server "
    "closes after its answer; s_time does not check the certificate, so the shared CPUs go to the server's side "
    "of the handshake (ECDHE and the ECDSA signature) and to the client's unavoidable half. A run counts only "
    "when no session was resumed and every connection read at least the 4 KiB file.",
    "HTTPS idle connections: the RSS is that of the processes that hold the connections (nginx's and lighttpd's "
    "workers, without their master; filedrop's one process); 'whole tree' adds the master. Python's ssl client "
    "verifies the certificate and never offers a session to resume.",
]


def _label(server):
    return {"filedrop-nofsync": "filedrop --fsync false"}.get(server, server)


def _number(value):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _shown(value, ran):
    return _number(value) if value is not None else ("failed" if ran else "not run")


def _ratio(mine, theirs, lower_is_better):
    if mine is None or theirs is None or mine == 0 or theirs == 0:
        return None
    return theirs / mine if lower_is_better else mine / theirs


def _target_text(row):
    against = " and ".join(f"{p}'s" for p in row.against)
    if row.lower_is_better:
        return f"≤ {against}"
    return f"≥ {row.target:.1f}x {against}"


def _verdict(row, ratios):
    """Met when filedrop reaches the target against every peer of the row that ran (BENCH_SERVERS)."""
    wanted = list(ratios.values())
    if not wanted or any(r is None for r in wanted):
        return "-"
    return "met" if all(r >= row.target - 1e-9 for r in wanted) else "not met"


def _detail(row, passed):
    if not passed:
        return "-"
    extra = [e["extra"] for e in passed]
    if row.key == "wrk":
        p99 = [x["p99_ms"] for x in extra if "p99_ms" in x]
        return f"p99 {statistics.median(p99):.2f} ms" if p99 else "-"
    if row.key == "handshakes":
        cost = [x["cpu_us_per_handshake"] for x in extra if x.get("cpu_us_per_handshake")]
        total = sum(x["connections"] for x in extra)
        return (f"{statistics.median(cost):.0f} µs server CPU per handshake; "
                f"{sum(x['resumed'] for x in extra)} of {total:,} resumed")
    if row.key == "idle":
        return (f"held {min(x['held'] for x in extra)}; "
                f"+{statistics.median(x['kib_per_connection'] for x in extra):.1f} KiB per connection; "
                f"whole tree {statistics.median(x['tree_rss_mib'] for x in extra):.1f} MiB")
    return "-"
