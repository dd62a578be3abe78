"""User-space instructions per keep-alive small GET (issue 23), counted by valgrind's callgrind.

Each round starts a second copy of the server under `valgrind --tool=callgrind` (same root,
same configuration, its own port), warms it with the requests below, zeroes the counters
(`callgrind_control -z`), sends `REQUESTS` GETs of the 4 KiB file over keep-alive connections,
then dumps the counters (`callgrind_control -d`): the dump's total divided by the requests is
the value. The request is wrk's, byte for byte (`GET <path> HTTP/1.1`, `Host`, nothing else),
so the figure is the work behind one request of the `wrk` row. A server that closes a
connection (lighttpd after 1,000 requests: `server.max-keep-alive-requests`) is reconnected, as
wrk does, and the reconnection counts. Instructions, not time: the figure does not move with
the machine's load. Only filedrop and lighttpd (single process) take part; the others are n/a.

`python3 bench/callgrind.py DUMP [REQUESTS]` prints a dump's functions by self cost per
request (Swift names demangled when `swift demangle` is on PATH): where the instructions go.
The dumps of the last run stay in `.build/bench-work/callgrind/<server>/`.
"""

import collections
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from servers import RunningServer, free_ports

REQUESTS = 2000
WARM_UP = 200
TIMEOUT = 120.0
# The `callgrind-browser` row: what Chromium 120 sends for a file it navigates to, after Host
# (its Referer names the same host). Sixteen fields where wrk sends one: the cost of reading
# a real client's head.
BROWSER_FIELDS = (
    "Connection: keep-alive\r\nUpgrade-Insecure-Requests: 1\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\r\n"
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
    "application/signed-exchange;v=b3;q=0.7\r\n"
    "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-User: ?1\r\nSec-Fetch-Dest: document\r\n"
    "Referer: http://{host}/\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9,de;q=0.8\r\n"
    'sec-ch-ua: "Chromium";v="120", "Not?A_Brand";v="8"\r\nsec-ch-ua-mobile: ?0\r\nsec-ch-ua-platform: "Linux"\r\n'
)


class UnderCallgrind:
    """`kind`, started under callgrind; everything else (URLs, readiness) as `kind` has it."""

    def __init__(self, kind, output: Path):
        self._kind = kind
        self._output = output

    def __getattr__(self, name):
        return getattr(self._kind, name)

    def argv(self, root, port, tools):
        return ["valgrind", "--tool=callgrind", "--compress-strings=no", f"--callgrind-out-file={self._output}",
                *self._kind.argv(root, port, tools)]


class CallgrindWorkload:
    def __init__(self, work: Path, outcome):
        self.work = work
        self.Outcome = outcome

    def instructions(self, server, run):
        return self._instructions(server, browser=False)

    def browser_instructions(self, server, run):
        return self._instructions(server, browser=True)

    def _instructions(self, server, browser: bool):
        if not (server.kind.key.startswith("filedrop") or server.kind.key == "lighttpd"):
            return None
        directory = self.work / ("callgrind-browser" if browser else "callgrind") / server.kind.key
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob("callgrind.out*"):
            old.unlink()
        output = directory / "callgrind.out"
        port = free_ports(1)[0]
        copy = RunningServer(UnderCallgrind(server.kind, output), server.root, port, server.tools)
        copy.start()
        try:
            path = server.kind.get_prefix + "small.bin"
            deadline = time.monotonic() + TIMEOUT
            _get(port, path, WARM_UP, deadline, browser)
            _control("-z", copy.pid)
            connections = _get(port, path, REQUESTS, deadline, browser)
            _control("-d", copy.pid)
        finally:
            copy.stop()
        dumps = sorted(directory.glob("callgrind.out.*"))
        total = _summary(dumps[0]) if dumps else None
        if total is None:
            return self.Outcome(0.0, ok=False, note="callgrind wrote no dump")
        return self.Outcome(total / REQUESTS, extra={"connections": connections})


def _control(option, pid):
    subprocess.run(["callgrind_control", option, str(pid)], check=True, capture_output=True, timeout=60)


def _summary(dump: Path):
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    return None


def _get(port, path, count, deadline, browser=False):
    """`count` GETs one after another, on as few connections as the server allows; returns
    how many connections it took. Bounded by `deadline`. `browser`: with Chromium's fields."""
    host = f"127.0.0.1:{port}"
    fields = BROWSER_FIELDS.format(host=host) if browser else ""
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{fields}\r\n".encode()
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connections, buffer = 1, b""
    try:
        for _ in range(count):
            if time.monotonic() > deadline:
                raise TimeoutError(f"callgrind: {count} requests took over {TIMEOUT:.0f} s")
            connection.sendall(request)
            while True:
                end = buffer.find(b"\r\n\r\n")
                if end >= 0:
                    head = buffer[:end]
                    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
                    if not head.startswith(b"HTTP/1.1 200") or length is None:
                        raise ValueError(f"callgrind: unexpected answer {head[:60]!r}")
                    total = end + 4 + int(length.group(1))
                    if len(buffer) >= total:
                        buffer = buffer[total:]
                        if re.search(rb"(?im)^connection:\s*close", head):
                            connection.close()
                            connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                            connections += 1
                        break
                chunk = connection.recv(65536)
                if not chunk:
                    raise ValueError("callgrind: the server closed the connection mid-answer")
                buffer += chunk
    finally:
        connection.close()
    return connections


def self_costs(dump: Path):
    """{function: instructions spent in it, not in what it calls} over a dump (callgrind's
    format: a cost line after `calls=` is the callee's inclusive cost, not the caller's own)."""
    costs, function, after_call = collections.Counter(), None, False
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith("fn="):
            function = line[3:]
        elif line.startswith("calls="):
            after_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            fields = line.split()
            if after_call:
                after_call = False
            elif len(fields) >= 2:
                costs[function] += int(fields[1])
    return costs


def main(argv):
    dump, requests = Path(argv[1]), int(argv[2]) if len(argv) > 2 else REQUESTS
    costs = self_costs(dump)
    top = costs.most_common(40)
    names = [name for name, _ in top]
    if shutil.which("swift"):
        demangled = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                                   capture_output=True, text=True).stdout.splitlines()
        names = demangled if len(demangled) == len(names) else names
    total = sum(costs.values())
    print(f"{total / requests:,.0f} instructions per request ({total:,} over {requests:,})")
    for name, (_, cost) in zip(names, top):
        print(f"{cost / requests:8,.0f} {100 * cost / total:5.1f}%  {name[:150]}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
