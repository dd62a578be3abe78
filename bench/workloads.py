"""The workloads run on every server, each timed and checked: a result counts only when the
copy the server stored (or the client received) compares equal to the source with cmp.

Every workload returns an Outcome, or None when the server has no such feature (shown n/a).
The server's process tree is sampled while it runs (peak RSS, CPU seconds).
"""

import os
import re
import selectors
import socket
import subprocess
import time
from dataclasses import dataclass, field

from procstat import TreeSampler

MIB = 1024 * 1024
CURL_FORMAT = "%{http_code} %{time_total}"


@dataclass
class Outcome:
    value: float
    ok: bool = True
    note: str = ""
    peak_rss: int = 0
    start_rss: int = 0
    cpu: float = 0.0
    extra: dict = field(default_factory=dict)


def run_at_once(commands, timeout):
    """Starts every command at once; [(exit code, stdout, stderr)] in order, each waited for
    at most `timeout` seconds from the start (a command past it is killed, exit code -9)."""
    processes = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    results = []
    deadline = time.monotonic() + timeout
    try:
        for process in processes:
            out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
            results.append((process.returncode, out, err))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return results


def measured(server, body):
    """Runs body() with the page cache flushed first and the server's tree sampled meanwhile."""
    os.sync()
    sampler = TreeSampler(server.pid).start()
    try:
        outcome = body(sampler)
    finally:
        sampler.stop()
    if outcome is not None:
        outcome.peak_rss, outcome.start_rss, outcome.cpu = sampler.peak_rss, sampler.start_rss, sampler.cpu
    return outcome


def same_file(a, b):
    try:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
    except OSError:
        return False
    return subprocess.run(["cmp", "-s", str(a), str(b)], timeout=300).returncode == 0


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _curl(args, timeout):
    """Runs curl; returns (HTTP status, seconds) as curl measured them, or (0, 0) on failure."""
    done = subprocess.run(["curl", "-sS", "-w", CURL_FORMAT, *args], capture_output=True, text=True, timeout=timeout)
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) < 2:
        return 0, 0.0, done.stderr.strip()[:200]
    return int(fields[-2]), float(fields[-1]), ""


def _throughput(size, seconds):
    return size / MIB / seconds if seconds > 0 else 0.0


def _stored_check(server, name, source, status, error):
    """(ok, note) for an upload: a 2xx answer and a stored copy equal to the source."""
    stored = server.files / name
    try:
        if error or not 200 <= status < 300:
            return False, error or f"HTTP {status}"
        if not stored.exists():
            return False, f"HTTP {status} but {name} was not stored"
        if not same_file(stored, source):
            return False, f"stored {name} differs from the source"
        return True, ""
    finally:
        _remove(stored)


class Workloads:
    """The workloads, with the sizes and files of one benchmark run."""

    def __init__(self, sizes, sources, client_dir, curl_options=()):
        self.sizes = sizes
        self.sources = sources
        self.client_dir = client_dir
        # Given to every curl before its own arguments (tls.py: --cacert, to verify the server).
        self.curl_options = tuple(curl_options)

    def _curl(self, args, timeout):
        return _curl([*self.curl_options, *args], timeout)

    # 1 GiB transfers

    def get_big(self, server, run):
        received = self.client_dir / f"received-{server.kind.key}.bin"
        args = ["-o", str(received), server.url(server.kind.get_prefix + "get.bin")]
        outcome = measured(server, lambda _: Outcome(0.0, extra={"curl": self._curl(args, self.sizes.transfer_timeout)}))
        status, seconds, error = outcome.extra.pop("curl")
        ok = not error and status == 200 and same_file(received, self.sources.big)
        _remove(received)
        outcome.value, outcome.ok = _throughput(self.sizes.big, seconds), ok
        outcome.note = "" if ok else (error or f"HTTP {status}, received copy differs")
        return outcome

    def post_big(self, server, run):
        name = f"multipart-{run}.bin"
        form = server.kind.multipart(name, self.sources.big)
        if form is None:
            return None
        path, fields = form
        args = ["-o", "/dev/null", *[item for f in fields for item in ("-F", f)], server.url(path)]
        return self._upload(server, name, self.sources.big, self.sizes.big, args)

    def put_big(self, server, run):
        name = f"put-{run}.bin"
        path = server.kind.put_path(name)
        if path is None:
            return None
        args = ["-o", "/dev/null", "-T", str(self.sources.big), server.url(path)]
        return self._upload(server, name, self.sources.big, self.sizes.big, args)

    def _upload(self, server, name, source, size, curl_args):
        outcome = measured(server, lambda _: Outcome(0.0, extra={"curl": self._curl(curl_args, self.sizes.transfer_timeout)}))
        status, seconds, error = outcome.extra.pop("curl")
        outcome.ok, outcome.note = _stored_check(server, name, source, status, error)
        outcome.value = _throughput(size, seconds)
        return outcome

    # 16 concurrent uploads

    def concurrent_uploads(self, server, run):
        """PUT where the server has it, else multipart; aggregate MiB/s over the wall time of all."""
        count, source = self.sizes.concurrent_count, self.sources.chunk
        names = [f"concurrent-{run}-{i:02d}.bin" for i in range(count)]
        commands = []
        for name in names:
            path = server.kind.put_path(name)
            if path is not None:
                commands.append(["-o", "/dev/null", "-T", str(source), server.url(path)])
            else:
                form_path, fields = server.kind.multipart(name, source)
                commands.append(["-o", "/dev/null", *[i for f in fields for i in ("-F", f)], server.url(form_path)])

        def body(_):
            started = time.monotonic()
            results = []
            for returncode, out, err in run_at_once([["curl", "-sS", "-w", CURL_FORMAT, *args] for args in commands],
                                                    self.sizes.transfer_timeout):
                fields = out.split()
                status = int(fields[-2]) if returncode == 0 and len(fields) >= 2 else 0
                results.append((status, err.strip()[:200]))
            return Outcome(_throughput(count * self.sizes.chunk, time.monotonic() - started), extra={"results": results})

        outcome = measured(server, body)
        notes = []
        for name, (status, error) in zip(names, outcome.extra.pop("results")):
            ok, note = _stored_check(server, name, source, status, error)
            if not ok:
                notes.append(note)
        outcome.ok = not notes
        outcome.note = f"{len(notes)} of {count} failed: {notes[0]}" if notes else ""
        outcome.extra["method"] = "PUT" if server.kind.put_prefix is not None else "multipart"
        return outcome

    # Small requests

    def wrk_small(self, server, run, headers=()):
        url = server.url(server.kind.get_prefix + "small.bin")
        received = self.client_dir / f"small-{server.kind.key}.bin"
        status, _, error = self._curl(["-o", str(received), url], 30)
        intact = status == 200 and same_file(received, self.sources.small)
        _remove(received)
        argv = ["wrk", "-t2", "-c64", f"-d{self.sizes.wrk_seconds}s", "--latency", *headers, url]

        def body(_):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=self.sizes.wrk_seconds + 60)
            return Outcome(0.0, extra={"output": done.stdout + done.stderr})

        outcome = measured(server, body)
        output = outcome.extra.pop("output")
        rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
        p99 = re.search(r"\s99%\s+([\d.]+)(us|ms|s)\b", output)
        non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
        errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
        outcome.value = float(rate.group(1)) if rate else 0.0
        if p99:
            outcome.extra["p99_ms"] = float(p99.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
        if errors:
            outcome.extra["socket_errors"] = sum(int(n) for n in errors.groups())
        problems = []
        if not intact:
            problems.append(error or f"GET small.bin: HTTP {status} or content differs")
        if non2xx:
            problems.append(f"{non2xx.group(1)} non-2xx responses")
        if not rate:
            problems.append("wrk printed no rate")
        outcome.ok, outcome.note = not problems, "; ".join(problems)
        return outcome

    def wrk_small_close(self, server, run):
        """The wrk row with one request per connection (wrk reconnects after each answer)."""
        return self.wrk_small(server, run, headers=("-H", "Connection: close"))

    def hold_connections(self, server, run):
        """Opens N keep-alive connections (64 handshakes in flight at a time), each fetching the
        4 KiB file once, then holds them all; the value is the server's RSS while they are held.
        A server that closes a connection after its answer (HTTP/1.0) cannot take part: n/a."""
        count = self.sizes.held_connections
        request = (f"GET {server.kind.get_prefix}small.bin HTTP/1.1\r\n"
                   f"Host: 127.0.0.1:{server.port}\r\n\r\n").encode()
        if not _keeps_alive(("127.0.0.1", server.port), request):
            return None

        def body(sampler):
            answered, failures = _open_and_fetch(("127.0.0.1", server.port), request, count, deadline=60.0)
            try:
                time.sleep(0.5)
                alive = sum(1 for s in answered if _still_open(s))
                rss = sampler.current_rss()
            finally:
                for s in answered:
                    s.close()
            return Outcome(rss / MIB, ok=failures == 0, note=f"{failures} of {count} requests failed" if failures else "",
                           extra={"held": alive})

        return measured(server, body)


def response_complete(buffer):
    """(complete, status) for a buffered HTTP/1.1 response with a Content-Length body."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return False, 0
    head = bytes(buffer[:end]).decode("latin-1")
    status = int(head.split(" ", 2)[1])
    length = re.search(r"(?im)^content-length:\s*(\d+)", head)
    return (length is not None and len(buffer) >= end + 4 + int(length.group(1))), status


def _open_and_fetch(address, request, count, deadline):
    """Bounded in count and time: returns (sockets with a 200 answer, number that failed)."""
    selector = selectors.DefaultSelector()
    buffers, answered, failures, opened = {}, [], 0, 0
    stop_at = time.monotonic() + deadline

    def fail(s):
        nonlocal failures
        failures += 1
        selector.unregister(s)
        buffers.pop(s)
        s.close()

    try:
        while (opened < count or buffers) and time.monotonic() < stop_at:
            while opened < count and len(buffers) < 64:
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(address)
                selector.register(s, selectors.EVENT_WRITE, "connecting")
                buffers[s] = bytearray()
                opened += 1
            for key, _ in selector.select(timeout=0.5):
                s = key.fileobj
                if key.data == "connecting":
                    if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        fail(s)
                        continue
                    s.send(request)
                    selector.modify(s, selectors.EVENT_READ, "reading")
                    continue
                try:
                    chunk = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    fail(s)
                    continue
                buffers[s] += chunk
                complete, status = response_complete(buffers[s])
                if complete and status == 200:
                    selector.unregister(s)
                    buffers.pop(s)
                    answered.append(s)
                elif complete or not chunk:
                    fail(s)
    finally:
        for s in list(buffers):
            fail(s)
        selector.close()
    return answered, failures + (count - opened)


def _keeps_alive(address, request):
    answered, _ = _open_and_fetch(address, request, 1, deadline=10.0)
    time.sleep(0.2)
    alive = bool(answered) and _still_open(answered[0])
    for s in answered:
        s.close()
    return alive


def _still_open(s):
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
