"""Certificate renewal (`systemctl reload` is SIGHUP): the daemon starts with certificate A,
a 1 GiB upload begins over HTTPS on one connection, the files are replaced by certificate B
(same CA, another serial and key) and SIGHUP sent; a new connection is served B, the old
one keeps A and its upload lands byte-identical. A reload with a broken key keeps B and says
why in the log.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from tls_support import (connection_to, file_sha256, free_bytes, https_fetch, pattern_blocks,
                         pattern_sha256, pem_fingerprint, peer_fingerprint, wait_until)

GIB = 1 << 30
FIRST_PART = 64 << 20


def install(source_cert: Path, source_key: Path, cert: Path, key: Path):
    """Replace the daemon's files the way certbot or a deploy hook does: write, then rename."""
    for source, target in ((source_cert, cert), (source_key, key)):
        staging = target.with_suffix(".new")
        shutil.copyfile(source, staging)
        os.replace(staging, target)


class PausedUpload:
    """A 1 GiB PUT on its own TLS connection, in a thread: it sends FIRST_PART, waits until
    told to go on (while the test reloads), then sends the rest at full speed."""

    def __init__(self, daemon, name: str):
        self.connection = connection_to(daemon, timeout=120)
        self.name = name
        self.paused = threading.Event()
        self.go_on = threading.Event()
        self.status: int | None = None
        self.error: BaseException | None = None
        self.peer_fingerprint: str | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _body(self):
        sent = 0
        for block in pattern_blocks(GIB):
            yield block
            sent += len(block)
            if sent == FIRST_PART:
                self.paused.set()
                if not self.go_on.wait(timeout=30):
                    raise TimeoutError("never told to go on")

    def _run(self):
        try:
            self.connection.connect()
            self.peer_fingerprint = hashlib.sha256(self.connection.sock.getpeercert(binary_form=True)).hexdigest()
            self.connection.request("PUT", f"/files/{self.name}", body=self._body(), headers={"Content-Length": str(GIB)})
            response = self.connection.getresponse()
            response.read()
            self.status = response.status
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error
        finally:
            self.connection.close()


# 1 GiB through TLS on a busy 2-core machine: above pytest.ini's backstop, each wait bounded.
@pytest.mark.timeout(300)
def test_sighup_serves_the_renewed_certificate_while_an_old_upload_finishes(https_daemon, tls_pki, tmp_path):
    cert_b, key_b = tls_pki.issue("renewed")
    live = tmp_path / "live"
    live.mkdir()
    cert, key = live / "tls.crt", live / "tls.key"
    install(tls_pki.leaf, tls_pki.key, cert, key)
    daemon = https_daemon(cert=cert, key=key)
    assert free_bytes(daemon.save_dir) > 3 * GIB, "needs 3 GiB free for a 1 GiB upload"
    fingerprint_a, fingerprint_b = pem_fingerprint(tls_pki.leaf), pem_fingerprint(cert_b)
    assert fingerprint_a != fingerprint_b
    assert peer_fingerprint(daemon) == fingerprint_a

    upload = PausedUpload(daemon, "during-reload.bin")
    upload.thread.start()
    try:
        assert upload.paused.wait(timeout=60), f"the upload did not get {FIRST_PART} bytes out: {upload.error!r}"
        assert upload.peer_fingerprint == fingerprint_a

        install(cert_b, key_b, cert, key)
        os.kill(daemon.pid, signal.SIGHUP)
        assert wait_until(lambda: peer_fingerprint(daemon) == fingerprint_b, timeout=10), \
            f"new connections still get certificate A after SIGHUP\n{daemon.stderr_tail()}"
        assert "1" == daemon.wait_for_notification("RELOADING", 5)
        # New connections verify B against the same CA, and are served.
        assert https_fetch(daemon, "/files/plain.txt").body == b"hello, filedrop\n"
        assert upload.thread.is_alive() and upload.error is None, upload.error
    finally:
        upload.go_on.set()
        upload.thread.join(timeout=300)
    assert not upload.thread.is_alive(), "the 1 GiB upload did not finish within 300 s"
    assert upload.error is None, repr(upload.error)
    assert upload.status == 201
    stored = daemon.save_dir / "during-reload.bin"
    assert stored.stat().st_size == GIB
    assert file_sha256(stored) == pattern_sha256(GIB)
    stored.unlink()

    # A renewal gone wrong: the key of another certificate. B stays; the log says why.
    _, wrong_key = tls_pki.issue("stray")
    shutil.copyfile(wrong_key, key)
    log_before = len(daemon.stderr_text())
    os.kill(daemon.pid, signal.SIGHUP)
    assert wait_until(lambda: "reload failed" in daemon.stderr_text()[log_before:], timeout=10), daemon.stderr_tail()
    complaint = next(line for line in daemon.stderr_text()[log_before:].splitlines() if "reload failed" in line)
    assert "error" in complaint and str(key) in complaint, complaint
    assert daemon.process.poll() is None
    assert peer_fingerprint(daemon) == fingerprint_b
    assert https_fetch(daemon, "/files/plain.txt").body == b"hello, filedrop\n"

    # And garbage in place of the key: the same.
    key.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n")
    log_before = len(daemon.stderr_text())
    os.kill(daemon.pid, signal.SIGHUP)
    assert wait_until(lambda: "reload failed" in daemon.stderr_text()[log_before:], timeout=10), daemon.stderr_tail()
    assert peer_fingerprint(daemon) == fingerprint_b


def test_sighup_with_unchanged_files_keeps_serving_and_open_connections_work(https_daemon, tls_pki):
    daemon = https_daemon()
    fingerprint = pem_fingerprint(tls_pki.leaf)
    connection = connection_to(daemon)
    try:
        connection.request("GET", "/files/plain.txt")
        assert connection.getresponse().read() == b"hello, filedrop\n"
        os.kill(daemon.pid, signal.SIGHUP)
        assert wait_until(lambda: "configuration reloaded" in daemon.stderr_text(), timeout=10), daemon.stderr_tail()
        # The kept-alive connection goes on after the reload, on its own session.
        connection.request("GET", "/files/plain.txt")
        assert connection.getresponse().read() == b"hello, filedrop\n"
    finally:
        connection.close()
    assert peer_fingerprint(daemon) == fingerprint
