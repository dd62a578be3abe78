"""What is particular to each real client against the real daemon: curl the way the README
tells people to use it (and its connection reuse), Python's http.client, rclone's HTTP
backend. What a client does as part of a feature (uploads, Range, listings) is tested in that
feature's file."""

import http.client
import shutil
import subprocess

import pytest

from client_support import curl


# curl


def test_curl_gets_the_page(daemon):
    result = curl("--write-out", "\n%{http_code} %{content_type}", f"{daemon.url}/")
    assert result.returncode == 0, result.stderr
    page, _, status = result.stdout.rpartition(b"\n")
    assert status == b"200 text/html; charset=utf-8"
    assert b"<html" in page.lower()


def test_curl_reuses_the_connection_across_two_urls(daemon):
    result = curl("--verbose", "--output", "/dev/null", "--output", "/dev/null",
                  f"{daemon.url}/", f"{daemon.url}/files/plain.txt")
    assert result.returncode == 0, result.stderr
    log = result.stderr.decode("utf-8", "replace")
    assert "Re-using existing connection" in log, log
    assert log.count("Connected to") == 1, log


# http.client


def test_http_client_gets_the_page(daemon):
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/html; charset=utf-8"
        assert response.getheader("Cache-Control")
        assert len(body) == int(response.getheader("Content-Length"))
    finally:
        connection.close()


# rclone (Debian package `rclone`): its HTTP backend reads the HTML listing and asks for
# `./a:b.txt` (so that `a:` is not read as a scheme), i.e. `/files/tree/./a:b.txt`. Before
# dot segments were removed (RFC 3986 §5.2.4) that was a 400 and rclone skipped the file.

RCLONE_TREE = {
    "a:b.txt": b"a colon in the name\n",
    "plain.bin": bytes(range(256)) * 40,
    "sub/c:d e.txt": b"a colon and a space, one folder down\n",
    "sub/deeper/last.txt": b"two folders down\n",
}


def test_rclone_copy_from_the_http_backend_gets_every_file(daemon, tmp_path):
    if shutil.which("rclone") is None:
        pytest.skip("rclone is not installed (make deps installs it)")
    for name, content in RCLONE_TREE.items():
        path = daemon.save_dir / "tree" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    destination = tmp_path / "copy"
    result = subprocess.run(
        ["rclone", "copy", "--config", str(tmp_path / "rclone.conf"), "--retries", "1", "--low-level-retries", "1",
         "--http-url", f"{daemon.url}/files/tree/", ":http:", str(destination), "-v"],
        capture_output=True, timeout=60, check=False)
    log = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 0, log
    copied = {str(path.relative_to(destination)): path.read_bytes()
              for path in destination.rglob("*") if path.is_file()}
    assert copied == RCLONE_TREE, log
