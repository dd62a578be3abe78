"""Bad input on the HTTPS port: plain HTTP (a 400 naming the HTTPS URL, then close), garbage
and truncated handshakes (closed, the daemon serves on), handshakes that never finish (closed
by --head-timeout), a handshake flood from one address (bounded by
--max-connections-per-client, other addresses served), a TLS 1.2 renegotiation attempt
(refused), an SNI name we don't serve (the default certificate, then the Host check's 421),
and certificates and keys the daemon cannot use (exit 2 at start, naming the file).

Clients that finish a handshake verify the certificate against the test CA; the raw-socket
clients never get that far, which is the point.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import FILEDROP_BIN, WEB_ROOT
from tls_support import client_context, https_fetch, pem_fingerprint, tls_handshake, wait_until

PLAIN = b"hello, filedrop\n"


def still_serves(daemon):
    assert daemon.process.poll() is None, daemon.stderr_tail()
    assert https_fetch(daemon, "/files/plain.txt").body == PLAIN


def raw_connection(daemon, source: str = "127.0.0.1", timeout: float = 5.0) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", daemon.https_port), timeout=timeout, source_address=(source, 0))
    return sock


def read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """Everything the server sends until it closes (True) or `timeout` passes (False)."""
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return data, False
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data, True
        except socket.timeout:
            return data, False
        if not chunk:
            return data, True
        data += chunk


def client_hello(daemon) -> bytes:
    """The first flight of a real, verifying client (Python's ssl), as bytes on the wire."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = client_context(daemon.ca).wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    hello = outgoing.read()
    assert hello[0] == 0x16 and len(hello) > 100, hello[:16]
    return hello


# Plain HTTP on the HTTPS port


@pytest.mark.parametrize("host, target", [
    ("127.0.0.1:{port}", "/files/a%20b.txt?x=1"),
    ("localhost:{port}", "/"),
    (None, "/upload.html"),
], ids=["address", "name", "no-host"])
def test_plain_http_gets_400_naming_the_https_url_and_is_closed(https_daemon, host, target):
    daemon = https_daemon()
    port = daemon.https_port
    with raw_connection(daemon) as sock:
        # Without Host only HTTP/1.0 is well-formed (RFC 9112 §3.2).
        head = (f"GET {target} HTTP/1.1\r\nHost: {host.format(port=port)}\r\n\r\n" if host
                else f"GET {target} HTTP/1.0\r\n\r\n")
        sock.sendall(head.encode())
        data, closed = read_until_closed(sock, timeout=5)
    assert closed, f"the HTTPS port kept a plain-HTTP connection open: {data!r}"
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), data
    # RFC 9112 §9.6: the server says it closes.
    assert b"\r\nConnection: close" in head, head
    text = body.decode()
    assert "This port speaks HTTPS" in text
    # The request's own Host when it has one; a stand-in name when it has none.
    expected = f"https://{host.format(port=port)}{target}" if host else f":{port}{target}"
    assert expected in text, text
    still_serves(daemon)


def test_a_browser_sending_plain_http_to_the_https_port_reads_why_in_its_language(https_daemon):
    daemon = https_daemon()
    with raw_connection(daemon) as sock:
        sock.sendall(f"GET /files/ HTTP/1.1\r\nHost: 127.0.0.1:{daemon.https_port}\r\nAccept: text/html\r\n"
                     "Accept-Language: fr-FR,fr;q=0.9\r\n\r\n".encode())
        data, closed = read_until_closed(sock, timeout=5)
    assert closed and data.startswith(b"HTTP/1.1 400 "), data
    page = data.partition(b"\r\n\r\n")[2].decode()
    assert '<html lang="fr"' in page
    assert f"Ce port parle HTTPS\u00a0: https://127.0.0.1:{daemon.https_port}/files/" in page, page
    assert "This port speaks HTTPS" not in page
    still_serves(daemon)


def test_plain_http_upload_to_the_https_port_stores_nothing(https_daemon):
    daemon = https_daemon()
    body = b"sent in clear text\n" * 100
    with raw_connection(daemon) as sock:
        sock.sendall(f"PUT /files/clear.txt HTTP/1.1\r\nHost: 127.0.0.1:{daemon.https_port}\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        data, closed = read_until_closed(sock, timeout=5)
    assert closed and data.startswith(b"HTTP/1.1 400 "), data
    assert f"https://127.0.0.1:{daemon.https_port}/files/clear.txt".encode() in data
    assert not (daemon.save_dir / "clear.txt").exists()
    still_serves(daemon)


def test_plain_http_on_the_ipv6_https_port_names_the_bracketed_address(https_daemon):
    daemon = https_daemon()
    port = daemon.https_port6
    with socket.create_connection(("::1", port), timeout=5) as sock:
        sock.sendall(f"GET /x HTTP/1.1\r\nHost: [::1]:{port}\r\n\r\n".encode())
        data, closed = read_until_closed(sock, timeout=5)
    assert closed and data.startswith(b"HTTP/1.1 400 "), data
    assert f"https://[::1]:{port}/x".encode() in data


# Garbage and truncated handshakes


def garbage_inputs(hello: bytes) -> dict[str, bytes]:
    rng = random.Random(16)
    noise = bytes(rng.randrange(256) for _ in range(4096))
    return {
        "random bytes": b"\x00" + noise,
        "random bytes after a handshake record type": b"\x16" + noise,
        # A handshake record claiming 65,535 bytes: more than any record may carry (RFC 8446 §5.1).
        "absurd record length": b"\x16\x03\x01\xff\xff" + noise[:64],
        # A ClientHello whose handshake length says 16 MiB.
        "absurd handshake length": b"\x16\x03\x01\x00\x08\x01\xff\xff\xff" + noise[:4],
        "wrong record type": b"\x17\x03\x03\x00\x10" + noise[:16],
        "SSLv2-style hello": b"\x80\x2e\x01\x00\x02\x00\x15" + noise[:48],
        "truncated ClientHello, then EOF": hello[:len(hello) // 2],
        "ClientHello cut in its record header, then EOF": hello[:3],
    }


def test_garbage_and_truncated_handshakes_are_closed_and_others_served(https_daemon):
    daemon = https_daemon()
    for name, payload in garbage_inputs(client_hello(daemon)).items():
        with raw_connection(daemon) as sock:
            try:
                sock.sendall(payload)
                sock.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # closed even before we finished: fine
            data, closed = read_until_closed(sock, timeout=5)
        assert closed, f"{name}: the connection stayed open"
        # Nothing in clear text and nothing of HTTP: an alert record (type 21) at most.
        assert data == b"" or data[0] == 0x15, f"{name}: answered {data[:40]!r}"
        still_serves(daemon)
    daemon.assert_no_fd_leak()


def test_garbage_interleaved_with_good_clients(https_daemon):
    daemon = https_daemon()
    hello = client_hello(daemon)
    bad = [raw_connection(daemon) for _ in range(6)]
    try:
        for index, sock in enumerate(bad):
            sock.sendall(hello[: 20 + index * 7] if index % 2 else os.urandom(512))
        for _ in range(3):
            still_serves(daemon)
    finally:
        for sock in bad:
            sock.close()
    daemon.assert_no_fd_leak()


# Handshakes that never finish


def test_unfinished_handshakes_are_closed_by_the_head_timeout(https_daemon):
    # The handshake counts against --head-timeout; a finished one waiting for its first
    # request is an idle connection (--idle-timeout), as on the plain port.
    daemon = https_daemon("--head-timeout", "1s", "--idle-timeout", "3s")
    hello = client_hello(daemon)
    silent = raw_connection(daemon)
    half = raw_connection(daemon)
    half.sendall(hello[: len(hello) // 2])
    quiet = tls_handshake(daemon)
    started = time.monotonic()
    try:
        still_serves(daemon)  # others are served while those wait
        for name, sock, earliest, latest in (("silent", silent, 0.5, 2.5), ("half ClientHello", half, 0.5, 2.5),
                                             ("handshake done, no request", quiet, 2.5, 6.0)):
            _, closed = read_until_closed(sock, timeout=max(0.1, started + latest - time.monotonic()))
            waited = time.monotonic() - started
            assert closed, f"{name}: still open {waited:.1f} s after connecting"
            assert waited > earliest, f"{name}: closed after {waited:.2f} s, before its timeout"
        still_serves(daemon)
    finally:
        for sock in (silent, half, quiet):
            sock.close()


# Handshake floods


def test_handshake_flood_is_bounded_per_client_and_other_addresses_are_served(https_daemon):
    cap = 4
    daemon = https_daemon("--max-connections-per-client", str(cap), "--head-timeout", "30s")
    hello = client_hello(daemon)
    flood = []
    try:
        for _ in range(cap + 5):
            sock = raw_connection(daemon)
            try:
                sock.sendall(hello[: len(hello) // 2])  # a handshake begun, never finished
            except (BrokenPipeError, ConnectionResetError):
                pass
            flood.append(sock)

        def closed_ones():
            states = []
            for sock in flood:
                sock.settimeout(0.01)
                try:
                    states.append(sock.recv(1, socket.MSG_PEEK) == b"")
                except ConnectionResetError:
                    states.append(True)
                except socket.timeout:
                    states.append(False)
            return states

        assert wait_until(lambda: sum(closed_ones()) >= 5, timeout=5), closed_ones()
        time.sleep(0.3)
        states = closed_ones()
        assert sum(states) == 5, f"{cap + 5} handshakes from one address, {cap} allowed: closed {states}"

        # Another address is served meanwhile, and so is nobody more from this one.
        with socket.create_connection(("127.0.0.1", daemon.https_port), timeout=5,
                                      source_address=("127.0.0.2", 0)) as raw:
            with client_context(daemon.ca).wrap_socket(raw, server_hostname="localhost") as tls:
                tls.sendall(b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                reply, closed = read_until_closed(tls, timeout=5)
        assert reply.startswith(b"HTTP/1.1 200 ") and reply.endswith(PLAIN), reply
        with raw_connection(daemon) as extra:
            _, closed = read_until_closed(extra, timeout=3)
            assert closed, "a connection over the cap stayed open"
    finally:
        for sock in flood:
            sock.close()
    # The slots come back once the flood is gone.
    assert wait_until(lambda: _served(daemon), timeout=5)


def _served(daemon) -> bool:
    try:
        return https_fetch(daemon, "/files/plain.txt", timeout=2).body == PLAIN
    except (OSError, ssl.SSLError):
        return False


# Renegotiation and SNI, with openssl s_client (Python's ssl cannot renegotiate)


def s_client(daemon, *args: str) -> list[str]:
    return ["openssl", "s_client", "-connect", f"127.0.0.1:{daemon.https_port}", "-CAfile", str(daemon.ca),
            "-verify_return_error", *args]


def test_tls12_client_renegotiation_is_refused_and_the_daemon_serves_on(https_daemon):
    daemon = https_daemon()
    client = subprocess.Popen(s_client(daemon, "-tls1_2", "-servername", "localhost"),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)  # s_client reads its commands only once connected
        client.stdin.write(b"R\n")  # s_client's command: SSL_renegotiate()
        client.stdin.flush()
        code = client.wait(timeout=10)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(timeout=5)
    out, err = client.stdout.read().decode(), client.stderr.read().decode()
    assert "Verify return code: 0 (ok)" in out and "Protocol  : TLSv1.2" in out, out
    # RFC 5746 is spoken (so no insecure renegotiation), and a renegotiation is refused.
    assert "Secure Renegotiation IS supported" in out, out
    assert "RENEGOTIATING" in err, err
    assert "no renegotiation" in err, err
    assert code == 1
    still_serves(daemon)


def test_sni_name_we_dont_serve_gets_the_default_certificate_and_host_checks_apply(https_daemon, tls_pki):
    daemon = https_daemon()
    for host, status in (("other.example", b"421"), ("localhost", b"200")):
        request = f"GET /files/plain.txt HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        # -verify_return_error without -verify_hostname: the chain is verified for real; the
        # name is deliberately not, since the point is which certificate answers other.example.
        result = subprocess.run(s_client(daemon, "-servername", "other.example", "-ign_eof"),
                                input=request, capture_output=True, timeout=15)
        out = result.stdout.decode()
        assert result.returncode == 0, result.stderr.decode()
        assert "Verify return code: 0 (ok)" in out
        served = out.split("-----BEGIN CERTIFICATE-----", 1)[1].split("-----END CERTIFICATE-----", 1)[0]
        served_path = daemon.workdir / "served.pem"
        served_path.write_text(f"-----BEGIN CERTIFICATE-----{served}-----END CERTIFICATE-----\n")
        assert pem_fingerprint(served_path) == pem_fingerprint(tls_pki.leaf)
        assert f"HTTP/1.1 {status.decode()} " in out, out
        if status == b"421":
            assert "other.example" in out.split("HTTP/1.1 421", 1)[1]
        else:
            assert PLAIN.decode() in out
    still_serves(daemon)


# Certificates and keys the daemon cannot use


def start_expecting_failure(tmp_path: Path, cert: Path, key: Path, prefix: list[str] | None = None,
                            save_dir: Path | None = None) -> subprocess.CompletedProcess:
    save_dir = save_dir or tmp_path / "files"
    save_dir.mkdir(exist_ok=True)
    command = (prefix or []) + [str(FILEDROP_BIN), "--tls", "files", "--tls-cert", str(cert), "--tls-key", str(key),
                                "--https-listen", "127.0.0.1:0", "--listen", "127.0.0.1:0",
                                "--save-dir", str(save_dir), "--web-root", str(WEB_ROOT)]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEDROP_", "LISTEN_", "NOTIFY_"))}
    return subprocess.run(command, capture_output=True, text=True, timeout=15, env=env, stdin=subprocess.DEVNULL)


def broken_credentials(pki, tmp_path: Path) -> dict[str, tuple[Path, Path, Path]]:
    """name -> (cert, key, the file the sentence must name)."""
    other_cert, other_key = pki.issue("mismatch")
    garbage = tmp_path / "garbage.pem"
    garbage.write_bytes(os.urandom(700))
    truncated = tmp_path / "truncated.pem"
    truncated.write_text(pki.leaf.read_text()[:300])
    key_as_cert = pki.key
    directory = tmp_path / "a-directory.pem"
    directory.mkdir()
    missing = tmp_path / "missing.pem"
    return {
        "missing certificate": (missing, pki.key, missing),
        "missing key": (pki.leaf, missing, missing),
        "certificate is a directory": (directory, pki.key, directory),
        "key is a directory": (pki.leaf, directory, directory),
        "garbage certificate": (garbage, pki.key, garbage),
        "truncated certificate": (truncated, pki.key, truncated),
        "a key where the certificate goes": (key_as_cert, pki.key, key_as_cert),
        "garbage key": (pki.leaf, garbage, garbage),
        "certificate where the key goes": (pki.leaf, pki.leaf, pki.leaf),
        "key of another certificate": (pki.leaf, other_key, other_key),
        "certificate of another key": (other_cert, pki.key, other_cert),
    }


def test_unusable_certificate_or_key_stops_the_daemon_with_exit_2_naming_the_file(tls_pki, tmp_path):
    failures = []
    for name, (cert, key, culprit) in broken_credentials(tls_pki, tmp_path).items():
        result = start_expecting_failure(tmp_path, cert, key)
        if result.returncode != 2 or str(culprit) not in result.stderr:
            failures.append(f"{name}: exit {result.returncode}, stderr {result.stderr.strip()!r}")
        elif "Traceback" in result.stderr or "Fatal error" in result.stderr:
            failures.append(f"{name}: crashed: {result.stderr.strip()!r}")
    assert not failures, "\n".join(failures)


def test_unreadable_key_stops_the_daemon_with_exit_2_naming_the_file(tls_pki):
    # Root reads anything: run the daemon as nobody, in a directory nobody can enter (pytest's
    # tmp_path is private to root), with the key mode 000 and the rest readable.
    shared = Path(tempfile.mkdtemp(prefix="filedrop-unreadable-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        cert, key = shared / "leaf.pem", shared / "leaf.key"
        cert.write_bytes(tls_pki.leaf.read_bytes())
        key.write_bytes(tls_pki.key.read_bytes())
        cert.chmod(0o644)
        key.chmod(0o000)
        save_dir = shared / "files"
        save_dir.mkdir()
        prefix = []
        if os.geteuid() == 0:
            os.chown(save_dir, 65534, 65534)
            prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        result = start_expecting_failure(shared, cert, key, prefix=prefix, save_dir=save_dir)
        assert result.returncode == 2, (result.returncode, result.stderr)
        assert str(key) in result.stderr and "Permission denied" in result.stderr, result.stderr
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_socket_activation_without_an_https_socket_stops_rather_than_serve_uploads_in_clear(tls_pki, tmp_path):
    # sd_listen_fds(3): one plain socket at descriptor 3 named "http", none named "https".
    # Serving it would take files and passwords in clear text while the operator asked for TLS.
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        wrapper = ["bash", "-c", f'exec 3<&{listener.fileno()}; LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=http exec "$@"', "bash"]
        save_dir = tmp_path / "files"
        save_dir.mkdir()
        env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEDROP_", "LISTEN_", "NOTIFY_"))}
        result = subprocess.run(wrapper + [str(FILEDROP_BIN), "--tls", "files", "--tls-cert", str(tls_pki.leaf),
                                           "--tls-key", str(tls_pki.key), "--save-dir", str(save_dir),
                                           "--web-root", str(WEB_ROOT)],
                                capture_output=True, text=True, timeout=15, env=env, stdin=subprocess.DEVNULL,
                                pass_fds=(listener.fileno(),))
    finally:
        listener.close()
    assert result.returncode == 2, result.stderr
    assert "no socket named https" in result.stderr and "filedrop-https.socket" in result.stderr, result.stderr
