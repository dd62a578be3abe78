"""HTTPS with real clients that verify the certificate for real: Python's `ssl` and
`http.client` (the test CA as the only trust anchor), requests, and curl with `--cacert`.
The page, PUT and multipart uploads and their downloads byte-identical, Range and keep-alive
on one TLS connection, what is negotiated (TLS 1.3 with TLS_AES_128_GCM_SHA256, ALPN
http/1.1; TLS 1.2 when the client asks; TLS 1.0 and 1.1 refused by the server), session
resumption on 1.2 and 1.3, names outside the certificate refused by the client, and a 1 GiB
upload and download streamed through TLS while the daemon's memory stays flat.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import ssl
import subprocess
import threading
import time
import warnings

import pytest
import requests

from http_raw import get_then_reset, put_chunked, small_window_socket
from tls_support import (BLOCK, client_context, connection_to, file_sha256, free_bytes, https_fetch,
                         pattern_blocks, pattern_sha256, rss_kib, tls_handshake)

GIB = 1 << 30
# The daemon encrypts and decrypts in a reused loop buffer: a 1 GiB transfer must not grow it.
RSS_LIMIT_KIB = 64 * 1024


def random_bytes(count: int) -> bytes:
    return os.urandom(count)


def local_port(connection) -> int:
    return connection.sock.getsockname()[1]


# What is negotiated


def test_page_over_tls13_aes128gcm_and_alpn_http11(https_daemon):
    daemon = https_daemon()
    connection = connection_to(daemon)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        body = response.read()
        tls = connection.sock
        assert tls.version() == "TLSv1.3"
        assert tls.cipher()[0] == "TLS_AES_128_GCM_SHA256"
        assert tls.selected_alpn_protocol() == "http/1.1"
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/html; charset=utf-8"
        assert len(body) == int(response.getheader("Content-Length")) > 0
        assert b"<html" in body.lower()
    finally:
        connection.close()


def test_ipv6_loopback_is_served_and_named_in_the_certificate(https_daemon, tls_pki):
    daemon = https_daemon()
    context = client_context(tls_pki.ca)
    connection = http.client.HTTPSConnection("::1", daemon.https_port6, context=context, timeout=10)
    try:
        connection.request("GET", "/files/plain.txt")
        response = connection.getresponse()
        assert response.status == 200
        assert response.read() == b"hello, filedrop\n"
    finally:
        connection.close()


def test_tls12_when_the_client_asks_for_it(https_daemon, tls_pki):
    daemon = https_daemon()
    connection = connection_to(daemon, context=client_context(tls_pki.ca, maximum=ssl.TLSVersion.TLSv1_2))
    try:
        connection.request("GET", "/files/plain.txt")
        response = connection.getresponse()
        assert response.read() == b"hello, filedrop\n"
        tls = connection.sock
        assert tls.version() == "TLSv1.2"
        # The server's order: ECDHE with ECDSA (our key) and AES-128-GCM first.
        assert tls.cipher()[0] == "ECDHE-ECDSA-AES128-GCM-SHA256"
        assert tls.selected_alpn_protocol() == "http/1.1"
    finally:
        connection.close()


@pytest.mark.parametrize("version", ["TLSv1", "TLSv1_1"])
def test_tls10_and_tls11_are_refused_by_the_server(https_daemon, tls_pki, version):
    daemon = https_daemon()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = getattr(ssl.TLSVersion, version)
        context = client_context(tls_pki.ca, minimum=old, maximum=old)
    # Security level 0 lets this client really offer the old protocol (with its SHA-1 MACs),
    # so what refuses it is the server: the error is the alert it sent back.
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    with pytest.raises(ssl.SSLError) as refused:
        tls_handshake(daemon, context).close()
    assert refused.value.reason == "TLSV1_ALERT_PROTOCOL_VERSION", refused.value
    # And the daemon goes on serving.
    assert https_fetch(daemon, "/files/plain.txt").body == b"hello, filedrop\n"


@pytest.mark.parametrize("version", ["TLSv1_2", "TLSv1_3"])
def test_session_is_resumed(https_daemon, tls_pki, version):
    daemon = https_daemon()
    wanted = getattr(ssl.TLSVersion, version)
    context = client_context(tls_pki.ca, minimum=wanted, maximum=wanted)

    def get(session):
        connection = connection_to(daemon, context=context, session=session)
        try:
            connection.request("GET", "/files/plain.txt")
            response = connection.getresponse()
            # TLS 1.3 sends the session after the handshake: reading the response takes it in.
            assert response.read() == b"hello, filedrop\n"
            return connection.sock.version(), connection.sock.session, connection.sock.session_reused
        finally:
            connection.close()

    first_version, session, first_reused = get(None)
    assert first_version == version.replace("_", ".")
    assert not first_reused
    assert session is not None
    resumed_version, _, resumed = get(session)
    assert resumed_version == first_version
    assert resumed, "the daemon did a full handshake for a session it issued"
    # A client without the session gets a full handshake (so `resumed` above meant something).
    assert get(None)[2] is False


# Names and trust


def test_a_name_outside_the_certificate_fails_verification(https_daemon):
    daemon = https_daemon()
    # X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH: the chain is fine, the name is not.
    for name, code in (("not-in-cert.example", 62), ("127.0.0.2", 64)):
        with pytest.raises(ssl.SSLCertVerificationError) as refused:
            tls_handshake(daemon, host=name).close()
        assert refused.value.verify_code == code, refused.value
        assert "mismatch" in refused.value.verify_message.lower()
    tls_handshake(daemon, host="localhost").close()


def test_a_client_trusting_another_ca_fails_verification(https_daemon, tls_pki):
    daemon = https_daemon()
    with pytest.raises(ssl.SSLCertVerificationError) as refused:
        tls_handshake(daemon, context=client_context(tls_pki.other_ca)).close()
    assert refused.value.verify_code in (19, 20), refused.value  # chain not anchored in the trusted CA


def curl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(["curl", "--silent", "--show-error", *args], capture_output=True, timeout=timeout)


def test_curl_with_cacert_gets_and_puts_and_another_ca_fails(https_daemon, tls_pki, tmp_path):
    daemon = https_daemon()
    resolve = ["--resolve", f"localhost:{daemon.https_port}:127.0.0.1"]
    url = f"https://localhost:{daemon.https_port}"
    page = curl(*resolve, "--cacert", str(tls_pki.ca), "--write-out", "%{http_code} %{ssl_verify_result}",
                "--output", str(tmp_path / "page.html"), url + "/")
    assert page.returncode == 0, page.stderr
    assert page.stdout == b"200 0"
    assert b"<html" in (tmp_path / "page.html").read_bytes().lower()

    content = random_bytes(3 * 1024 * 1024 + 7)
    source = tmp_path / "curl upload.bin"
    source.write_bytes(content)
    put = curl(*resolve, "--cacert", str(tls_pki.ca), "--upload-file", str(source), "--output", "/dev/null",
               "--write-out", "%{http_code}", url + "/files/curl-put.bin")
    assert put.stdout == b"201", put.stderr
    assert (daemon.save_dir / "curl-put.bin").read_bytes() == content
    back = curl(*resolve, "--cacert", str(tls_pki.ca), url + "/files/curl-put.bin")
    assert back.returncode == 0 and back.stdout == content

    wrong = curl(*resolve, "--cacert", str(tls_pki.other_ca), url + "/")
    assert wrong.returncode == 60, (wrong.returncode, wrong.stderr)  # CURLE_PEER_FAILED_VERIFICATION
    other_name = curl("--resolve", f"other.example:{daemon.https_port}:127.0.0.1", "--cacert", str(tls_pki.ca),
                      f"https://other.example:{daemon.https_port}/")
    assert other_name.returncode == 60, (other_name.returncode, other_name.stderr)


# Uploads and downloads


def test_put_then_downloads_range_and_head_on_one_kept_alive_connection(https_daemon):
    daemon = https_daemon()
    content = random_bytes(5 * 1024 * 1024 + 13)
    connection = connection_to(daemon)
    try:
        connection.request("PUT", "/files/kept%20alive.bin", body=content)
        response = connection.getresponse()
        response.read()
        assert response.status == 201
        port = local_port(connection)

        def request(method, path, headers=None):
            connection.request(method, path, headers=headers or {})
            reply = connection.getresponse()
            body = reply.read()
            assert local_port(connection) == port, "the daemon closed a kept-alive TLS connection"
            assert not reply.will_close
            return reply, body

        reply, body = request("GET", "/files/kept%20alive.bin")
        assert reply.status == 200 and body == content
        reply, body = request("GET", "/files/kept%20alive.bin", {"Range": "bytes=1000-1999"})
        assert reply.status == 206
        assert reply.getheader("Content-Range") == f"bytes 1000-1999/{len(content)}"
        assert body == content[1000:2000]
        reply, body = request("GET", "/files/kept%20alive.bin", {"Range": "bytes=-17"})
        assert reply.status == 206 and body == content[-17:]
        reply, body = request("GET", "/files/kept%20alive.bin", {"Range": f"bytes={len(content) - 5}-"})
        assert reply.status == 206 and body == content[-5:]
        reply, body = request("HEAD", "/files/kept%20alive.bin")
        assert reply.status == 200 and body == b""
        assert int(reply.getheader("Content-Length")) == len(content)
        reply, body = request("GET", "/files/kept%20alive.bin", {"Range": f"bytes={len(content)}-"})
        assert reply.status == 416
    finally:
        connection.close()
    assert (daemon.save_dir / "kept alive.bin").read_bytes() == content


def test_chunked_put_is_stored_byte_identical(https_daemon):
    daemon = https_daemon()
    pieces = [random_bytes(size) for size in (1, 16_384, 16_385, 1_000_000, 3)]
    assert put_chunked(connection_to(daemon), "/files/chunked.bin", pieces) == 201
    assert (daemon.save_dir / "chunked.bin").read_bytes() == b"".join(pieces)


def test_requests_multipart_upload_and_download(https_daemon, tls_pki):
    daemon = https_daemon()
    files = {"first.bin": random_bytes(2 * 1024 * 1024 + 1), "Grüße 😀.txt": b"second\r\n--not-a-boundary\r\n"}
    with requests.Session() as session:
        # An IP address in the URL: urllib3 checks it against the certificate's IP names.
        base = daemon.https_url
        # Per request: a session's `verify` loses to REQUESTS_CA_BUNDLE when that is set.
        posted = session.post(base + "/upload.html", verify=str(tls_pki.ca),
                              files=[("file", (name, content)) for name, content in files.items()], timeout=30)
        assert posted.status_code in (200, 201, 303), posted.text
        for name, content in files.items():
            assert (daemon.save_dir / name).read_bytes() == content
            downloaded = session.get(base + "/files/" + requests.utils.quote(name), verify=str(tls_pki.ca), timeout=30)
            assert downloaded.status_code == 200
            assert downloaded.content == content


# 1 GiB through TLS, streamed both ways, memory flat


class RSSSampler:
    """Reads the daemon's VmRSS every 20 ms in a thread; `.peak` in KiB."""

    def __init__(self, pid: int):
        self.pid = pid
        self.peak = rss_kib(pid)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_kib(self.pid))
            self.samples += 1


# 1 GiB through TLS on a busy 2-core machine: above pytest.ini's backstop, each wait bounded.
# Serial (see pytest.ini): 2 GiB through TLS takes both cores, and the daemon's resident
# memory is sampled throughout.
@pytest.mark.serial
@pytest.mark.timeout(300)
def test_one_gib_upload_and_download_streamed_with_flat_memory(https_daemon):
    daemon = https_daemon()
    assert free_bytes(daemon.save_dir) > 3 * GIB, "needs 3 GiB free for a 1 GiB upload"
    expected = pattern_sha256(GIB)
    before = rss_kib(daemon.pid)
    connection = connection_to(daemon, timeout=120)
    try:
        with RSSSampler(daemon.pid) as upload_rss:
            started = time.monotonic()
            connection.request("PUT", "/files/one-gib.bin", body=pattern_blocks(GIB),
                               headers={"Content-Length": str(GIB)})
            response = connection.getresponse()
            response.read()
            upload_seconds = time.monotonic() - started
        assert response.status == 201
        assert connection.sock.version() == "TLSv1.3"
        stored = daemon.save_dir / "one-gib.bin"
        assert stored.stat().st_size == GIB
        assert file_sha256(stored) == expected

        with RSSSampler(daemon.pid) as download_rss:
            started = time.monotonic()
            connection.request("GET", "/files/one-gib.bin")
            download = connection.getresponse()
            assert download.status == 200
            assert int(download.getheader("Content-Length")) == GIB
            digest = hashlib.sha256()
            received = 0
            while block := download.read(BLOCK):
                digest.update(block)
                received += len(block)
            download_seconds = time.monotonic() - started
    finally:
        connection.close()
    assert received == GIB
    assert digest.hexdigest() == expected
    print(f"1 GiB over TLS: upload {upload_seconds:.1f} s, download {download_seconds:.1f} s; "
          f"RSS {before} KiB before, peaks {upload_rss.peak} / {download_rss.peak} KiB "
          f"({upload_rss.samples}/{download_rss.samples} samples)")
    assert upload_rss.samples > 10 and download_rss.samples > 10
    assert upload_rss.peak < RSS_LIMIT_KIB, f"daemon RSS reached {upload_rss.peak} KiB during a 1 GiB upload"
    assert download_rss.peak < RSS_LIMIT_KIB, f"daemon RSS reached {download_rss.peak} KiB during a 1 GiB download"


def test_an_aborted_download_over_tls_is_logged_as_cut_with_the_bytes_sent(https_daemon):
    daemon = https_daemon()
    size = 64 << 20
    (daemon.save_dir / "cut.bin").write_bytes(os.urandom(size))
    client = client_context(daemon.ca).wrap_socket(small_window_socket(daemon.https_port), server_hostname="localhost")
    received = get_then_reset(client, "/files/cut.bin", f"localhost:{daemon.https_port}")
    daemon.assert_logged_as_cut("/files/cut.bin", received, size)
