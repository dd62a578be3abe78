"""Raw-socket HTTP/1.1 for tests that must control every byte: build a request, send it,
read responses back with a small parser (status, headers, body by Content-Length, chunked
or close), and tell whether the server closed the connection.

Every read is bounded by a deadline; nothing here waits forever.
"""

from __future__ import annotations

import http.client
import socket
import struct
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


class ConnectionClosed(Exception):
    """The server closed the connection before a complete response arrived."""


class ResponseTimeout(Exception):
    """No complete response arrived before the deadline."""


@dataclass
class Response:
    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    trailers: list[tuple[str, str]] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        """The first value of a header (case-insensitive), or None."""
        values = self.headers_named(name)
        return values[0] if values else None

    def headers_named(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def connection_tokens(self) -> set[str]:
        return {token.strip().lower() for value in self.headers_named("Connection")
                for token in value.split(",") if token.strip()}

    @property
    def says_close(self) -> bool:
        return "close" in self.connection_tokens()

    def __repr__(self):
        preview = self.body[:200]
        return f"<Response {self.status} {self.reason} {self.headers} body={preview!r}>"


def fetch(url: str, method: str = "GET", headers: dict[str, str] | None = None,
          body: bytes | None = None, timeout: float = 10.0) -> Response:
    """One request on its own connection with http.client, closed before returning, so no
    client socket outlives the call (a daemon fd-leak check can follow right away)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, target, body=body, headers=headers or {})
        reply = connection.getresponse()
        version = {10: "HTTP/1.0", 11: "HTTP/1.1"}.get(reply.version, str(reply.version))
        return Response(version, reply.status, reply.reason, list(reply.getheaders()), reply.read())
    finally:
        connection.close()


def build_request(method: str = "GET", target: str = "/", headers: list[tuple[str, str]] | None = None,
                  body: bytes = b"", version: str = "HTTP/1.1", host: str | None = "localhost",
                  content_length: bool | None = None) -> bytes:
    """Bytes of one request. Host is added unless `host` is None; Content-Length is added
    when there is a body (or `content_length=True`) unless the headers already frame it."""
    lines = [f"{method} {target} {version}"]
    given = {name.lower() for name, _ in headers or []}
    if host is not None and "host" not in given:
        lines.append(f"Host: {host}")
    for name, value in headers or []:
        lines.append(f"{name}: {value}")
    framed = "content-length" in given or "transfer-encoding" in given
    if (content_length or (content_length is None and body)) and not framed:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body


def chunked(*pieces: bytes, trailers: list[tuple[str, str]] | None = None) -> bytes:
    """A chunked message body (RFC 9112 §7.1) with one chunk per non-empty piece."""
    out = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces if piece)
    out += b"0\r\n"
    for name, value in trailers or []:
        out += f"{name}: {value}\r\n".encode()
    return out + b"\r\n"


class RawConnection:
    """A TCP connection with a receive buffer, for reading responses one by one."""

    def __init__(self, sock: socket.socket, timeout: float):
        self.sock = sock
        self.timeout = timeout
        self.buffer = b""
        self.eof = False
        self.closed = False

    @classmethod
    def open(cls, address: tuple[str, int], timeout: float = 5.0) -> "RawConnection":
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(address)
        return cls(sock, timeout)

    def send(self, data: bytes | str):
        self.sock.sendall(data.encode("utf-8") if isinstance(data, str) else data)

    def request(self, *args, **kwargs):
        """Send `build_request(*args, **kwargs)` and read the final response."""
        self.send(build_request(*args, **kwargs))
        return self.read_response(head=(args[0] if args else kwargs.get("method")) == "HEAD")

    def close(self):
        if not self.closed:
            self.closed = True
            self.sock.close()

    # Reading

    def _fill(self, deadline: float) -> bool:
        """Read more bytes into the buffer; False on EOF. Raises ResponseTimeout at the deadline."""
        if self.eof:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ResponseTimeout(f"timed out; have {self.buffer[:300]!r}")
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            raise ResponseTimeout(f"timed out; have {self.buffer[:300]!r}") from None
        except ConnectionResetError:
            data = b""
        if not data:
            self.eof = True
            return False
        self.buffer += data
        return True

    def _read_line(self, deadline: float) -> bytes:
        while b"\r\n" not in self.buffer:
            if not self._fill(deadline):
                raise ConnectionClosed(f"closed mid-line; have {self.buffer[:300]!r}")
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def _read_exact(self, count: int, deadline: float) -> bytes:
        while len(self.buffer) < count:
            if not self._fill(deadline):
                raise ConnectionClosed(f"closed after {len(self.buffer)} of {count} body bytes")
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _read_fields(self, deadline: float) -> list[tuple[str, str]]:
        fields = []
        while True:
            line = self._read_line(deadline)
            if not line:
                return fields
            name, sep, value = line.decode("latin-1").partition(":")
            assert sep and name == name.strip(), f"malformed response header line {line!r}"
            fields.append((name, value.strip(" \t")))

    def read_response(self, head: bool = False, timeout: float | None = None) -> Response:
        """The next response, interim (1xx) ones included. `head`: it answers a HEAD request."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        if not self.buffer and not self._fill(deadline):
            raise ConnectionClosed("closed before a response")
        status_line = self._read_line(deadline).decode("latin-1")
        version, _, rest = status_line.partition(" ")
        code, _, reason = rest.partition(" ")
        assert version.startswith("HTTP/1.") and code.isdigit() and len(code) == 3, \
            f"malformed status line {status_line!r}"
        response = Response(version, int(code), reason, self._read_fields(deadline))
        if head or response.status < 200 or response.status in (204, 304):
            return response
        encoding = response.header("Transfer-Encoding")
        if encoding is not None:
            assert encoding.lower() == "chunked", f"unexpected Transfer-Encoding {encoding!r}"
            response.body, response.trailers = self._read_chunked(deadline)
        elif response.header("Content-Length") is not None:
            lengths = set(response.headers_named("Content-Length"))
            assert len(lengths) == 1, f"conflicting Content-Length in response: {lengths}"
            response.body = self._read_exact(int(lengths.pop()), deadline)
        else:
            while self._fill(deadline):
                pass
            response.body, self.buffer = self.buffer, b""
        return response

    def read_final_response(self, head: bool = False, timeout: float | None = None) -> tuple[list[Response], Response]:
        """Interim responses, then the final one."""
        interim = []
        while True:
            response = self.read_response(head=head, timeout=timeout)
            if response.status >= 200:
                return interim, response
            interim.append(response)

    def _read_chunked(self, deadline: float) -> tuple[bytes, list[tuple[str, str]]]:
        body = b""
        while True:
            size_line = self._read_line(deadline).split(b";")[0].strip()
            size = int(size_line, 16)
            if size == 0:
                return body, self._read_fields(deadline)
            body += self._read_exact(size, deadline)
            assert self._read_exact(2, deadline) == b"\r\n", "chunk data not followed by CRLF"

    def wait_closed(self, timeout: float = 3.0) -> bool:
        """True once the server has closed (EOF or reset) within `timeout`. Bytes that arrive
        meanwhile are kept in `buffer`."""
        deadline = time.monotonic() + timeout
        try:
            while self._fill(deadline):
                pass
        except ResponseTimeout:
            return False
        return True

    def is_open_after(self, seconds: float) -> bool:
        """True if the server has neither closed nor sent anything for `seconds`."""
        before = len(self.buffer)
        return not self.wait_closed(seconds) and len(self.buffer) == before


def put_chunked(connection: http.client.HTTPConnection, target: str, pieces: list[bytes]) -> int:
    """PUTs `pieces` as one chunk each on `connection` (plain or TLS), closes it, and returns
    the response's status."""
    try:
        connection.request("PUT", target, body=iter(pieces), encode_chunked=True,
                           headers={"Transfer-Encoding": "chunked"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def small_window_socket(port: int) -> socket.socket:
    """A socket connected to 127.0.0.1:`port` with a 16 KiB receive buffer: a client that reads
    slowly, so the server's writes soon wait for it."""
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    client.settimeout(10)
    client.connect(("127.0.0.1", port))
    return client


def get_then_reset(client: socket.socket, target: str, host: str, at_least: int = 1 << 20) -> int:
    """GETs `target`, reads at least `at_least` bytes of the body, then resets the connection
    as a client that gives up does (the server's next write fails). The body bytes received,
    headers left out, so the figure compares with the body bytes the server logs as sent."""
    client.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(65536)
        assert chunk, "the connection closed before the response head"
        head += chunk
    received = len(head) - head.index(b"\r\n\r\n") - 4
    while received < at_least:
        received += len(client.recv(65536))
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()
    return received
