"""HTTPS test support: a throwaway PKI made with the openssl CLI, clients that trust only
its CA, and deterministic streams for uploads too large to hold in memory.

Every client here verifies the chain and the host name for real: the only trust is the
test CA (`ssl.create_default_context(cafile=...)`), nothing is switched off.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

OPENSSL = "/usr/bin/openssl"
LEAF_NAMES = ("DNS:localhost", "IP:127.0.0.1", "IP:::1")


def openssl(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run([OPENSSL, *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, f"openssl {' '.join(args)} failed:\n{result.stderr}"
    return result.stdout


@dataclass
class TestPKI:
    """A CA and the leaves it issued, all ECDSA P-256, in one directory."""

    __test__ = False  # not a test class, whatever its name says to pytest

    directory: Path
    ca: Path
    ca_key: Path
    leaf: Path
    key: Path
    other_ca: Path

    @classmethod
    def create(cls, directory: Path) -> "TestPKI":
        ca, ca_key = make_ca(directory, "ca", "filedrop test CA")
        other_ca, _ = make_ca(directory, "other-ca", "filedrop test CA")  # same name, other key
        pki = cls(directory, ca, ca_key, Path(), Path(), other_ca)
        pki.leaf, pki.key = pki.issue("leaf")
        return pki

    def issue(self, name: str, serial: int | None = None, names: tuple[str, ...] = LEAF_NAMES) -> tuple[Path, Path]:
        """A leaf `<name>.pem` and its key `<name>.key` signed by the test CA; the serial is
        random (CA/Browser Forum: at least 64 bits of entropy) unless given."""
        if serial is None:
            serial = int.from_bytes(os.urandom(16), "big") >> 1
        return issue_leaf(self.directory, name, self.ca, self.ca_key, serial, names)


def make_ca(directory: Path, name: str, common_name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    openssl("req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "3", "-subj", f"/CN={common_name}",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert, key


def issue_leaf(directory: Path, name: str, ca: Path, ca_key: Path, serial: int,
               names: tuple[str, ...]) -> tuple[Path, Path]:
    cert, key, csr = directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr"
    extensions = directory / f"{name}.ext"
    extensions.write_text(f"subjectAltName={','.join(names)}\n"
                          "basicConstraints=critical,CA:FALSE\n"
                          "keyUsage=critical,digitalSignature\n"
                          "extendedKeyUsage=serverAuth\n")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", str(key), "-out", str(csr), "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-set_serial", str(serial),
            "-days", "2", "-sha256", "-extfile", str(extensions), "-out", str(cert))
    return cert, key


def pem_fingerprint(path: Path) -> str:
    """SHA-256 of a PEM certificate's DER, lowercase hex."""
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(path.read_text())).hexdigest()


# Clients


def client_context(ca: Path, minimum: ssl.TLSVersion | None = None,
                   maximum: ssl.TLSVersion | None = None) -> ssl.SSLContext:
    """The test CA as the only trust anchor, host names checked, ALPN http/1.1 offered."""
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["http/1.1"])
    if minimum is not None:
        context.minimum_version = minimum
    if maximum is not None:
        context.maximum_version = maximum
    return context


class HTTPSConnection(http.client.HTTPSConnection):
    """http.client over TLS to `address`, verifying the certificate for `host` (which is
    also the Host header): connect to 127.0.0.1 and check the name `localhost`, without
    relying on how localhost resolves. `session` resumes an earlier TLS session."""

    def __init__(self, host: str, port: int, context: ssl.SSLContext, address: tuple[str, int] | None = None,
                 session: ssl.SSLSession | None = None, timeout: float = 30.0):
        super().__init__(host, port, context=context, timeout=timeout)
        self.address = address or (host, port)
        self.session = session
        self.tls_context = context

    def connect(self):
        raw = socket.create_connection(self.address, self.timeout)
        try:
            self.sock = self.tls_context.wrap_socket(raw, server_hostname=self.host, session=self.session)
        except BaseException:
            raw.close()
            raise


def connection_to(daemon, host: str = "localhost", context: ssl.SSLContext | None = None,
                  session: ssl.SSLSession | None = None, timeout: float = 30.0) -> HTTPSConnection:
    return HTTPSConnection(host, daemon.https_port, context or client_context(daemon.ca),
                           address=("127.0.0.1", daemon.https_port), session=session, timeout=timeout)


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def https_fetch(daemon, path: str = "/", method: str = "GET", headers: dict[str, str] | None = None,
                body: bytes | None = None, host: str = "localhost", timeout: float = 30.0) -> Reply:
    """One request over its own verified TLS connection, closed before returning."""
    connection = connection_to(daemon, host=host, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def tls_handshake(daemon, context: ssl.SSLContext | None = None, host: str = "localhost",
                  timeout: float = 10.0) -> ssl.SSLSocket:
    """A finished, verified handshake with the daemon's HTTPS port (the caller closes it)."""
    raw = socket.create_connection(("127.0.0.1", daemon.https_port), timeout)
    try:
        return (context or client_context(daemon.ca)).wrap_socket(raw, server_hostname=host)
    except BaseException:
        raw.close()
        raise


def peer_fingerprint(daemon) -> str:
    """SHA-256 of the leaf a new connection is served, lowercase hex."""
    with tls_handshake(daemon) as sock:
        return hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()


# Large deterministic bodies

BLOCK = 1 << 20


def pattern_blocks(total: int, seed: bytes = b"filedrop"):
    """`total` bytes in 1 MiB blocks, the same for the same seed: a pseudo-random block with
    its index stamped in front, so a lost, repeated or reordered block changes the digest."""
    base = hashlib.shake_256(seed).digest(BLOCK)
    sent = 0
    index = 0
    while sent < total:
        block = index.to_bytes(8, "big") + base[8:]
        block = block[:min(BLOCK, total - sent)]
        yield block
        sent += len(block)
        index += 1


def pattern_sha256(total: int, seed: bytes = b"filedrop") -> str:
    digest = hashlib.sha256()
    for block in pattern_blocks(total, seed):
        digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def rss_kib(pid: int) -> int:
    """VmRSS of a process, KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def free_bytes(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize
