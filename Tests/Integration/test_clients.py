"""Real clients against the real daemon: curl the way the README tells people to use it,
Python's http.client and requests, rclone's HTTP backend. Uploads must land byte-identical;
downloads must work for the awkward names in the save directory."""

import http.client
import json
import os
import shutil
import subprocess
from urllib.parse import quote

import pytest
import requests

from conftest import AWKWARD_FILES, REFUSED_NAMES, SERVED_FILES
from http_raw import Response, fetch

CURL_TIMEOUT = 30


def curl(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """curl with bounded time; `-w` output lands in stdout."""
    return subprocess.run(["curl", "--http1.1", "--silent", "--show-error", "--max-time", "20", *args],
                          input=stdin, capture_output=True, timeout=CURL_TIMEOUT, check=False)


def random_bytes(size: int) -> bytes:
    return os.urandom(size)


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


def test_curl_put_from_stdin_is_chunked_and_stored_byte_identical(daemon):
    content = random_bytes(300_000)
    result = curl("--verbose", "--upload-file", "-", "--output", "/dev/null", "--write-out", "%{http_code}",
                  f"{daemon.url}/files/from-stdin.bin", stdin=content)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"201"
    assert b"Transfer-Encoding: chunked" in result.stderr
    assert (daemon.save_dir / "from-stdin.bin").read_bytes() == content


def test_curl_put_file_with_content_length(daemon, tmp_path):
    content = random_bytes(1_000_003)
    source = tmp_path / "upload me.bin"
    source.write_bytes(content)
    result = curl("--verbose", "--upload-file", str(source), "--output", "/dev/null",
                  "--write-out", "%{http_code}", f"{daemon.url}/files/put-file.bin")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"201"
    assert f"Content-Length: {len(content)}".encode() in result.stderr
    assert (daemon.save_dir / "put-file.bin").read_bytes() == content


@pytest.mark.parametrize("path", ["/upload.html", "/upload"])
def test_curl_form_uploads_several_files(daemon, tmp_path, path):
    files = {"first form file.txt": b"first\r\n--not-a-boundary\r\n", "second.bin": random_bytes(200_000)}
    args = []
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
        args += ["--form", f"file=@{tmp_path / name}"]
    result = curl(*args, "--output", "/dev/null", "--write-out", "%{http_code}", f"{daemon.url}{path}")
    assert result.returncode == 0, result.stderr
    assert result.stdout in (b"200", b"201", b"303"), result.stdout
    for name, content in files.items():
        assert (daemon.save_dir / name).read_bytes() == content


def test_curl_raw_post_with_name_query(daemon):
    content = b"posted raw\n"
    result = curl("--data-binary", "@-", "--header", "Content-Type: application/octet-stream",
                  "--output", "/dev/null", "--write-out", "%{http_code}",
                  f"{daemon.url}/upload.html?name=raw-post.txt", stdin=content)
    assert result.stdout == b"201", result.stderr
    assert (daemon.save_dir / "raw-post.txt").read_bytes() == content


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


def test_http_client_put_with_body(daemon):
    content = random_bytes(65_537)
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    try:
        connection.request("PUT", "/files/http-client.bin", body=content)
        response = connection.getresponse()
        response.read()
        assert response.status == 201
        connection.request("GET", "/files/http-client.bin")
        download = connection.getresponse()
        assert download.read() == content
    finally:
        connection.close()
    assert (daemon.save_dir / "http-client.bin").read_bytes() == content


def test_http_client_put_chunked(daemon):
    pieces = [random_bytes(size) for size in (1, 4096, 70_000, 3)]
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    try:
        connection.request("PUT", "/files/chunked.bin", body=iter(pieces), encode_chunked=True,
                           headers={"Transfer-Encoding": "chunked"})
        response = connection.getresponse()
        response.read()
        assert response.status == 201
    finally:
        connection.close()
    assert (daemon.save_dir / "chunked.bin").read_bytes() == b"".join(pieces)


# Downloads of awkward names.


@pytest.mark.parametrize("name", SERVED_FILES.keys(), ids=[quote(name) for name in SERVED_FILES])
def test_download_of_awkward_name(daemon, name):
    response = fetch(f"{daemon.url}/files/{quote(name)}")
    assert response.status == 200
    assert response.body == SERVED_FILES[name]
    assert response.header("Content-Length") == str(len(SERVED_FILES[name]))
    assert response.header("ETag")


@pytest.mark.parametrize("name", sorted(REFUSED_NAMES), ids=[quote(name) for name in sorted(REFUSED_NAMES)])
def test_names_the_policy_refuses_are_not_served(daemon, name):
    response = fetch(f"{daemon.url}/files/{quote(name)}")
    assert response.status in (400, 404), response
    assert AWKWARD_FILES[name] not in response.body


def test_hidden_names_are_served_with_allow_hidden(daemon_factory):
    daemon = daemon_factory("--allow-hidden")
    response = fetch(f"{daemon.url}/files/..txt")
    assert response.status == 200
    assert response.body == AWKWARD_FILES["..txt"]


def test_range_request_gets_206(daemon):
    response = fetch(f"{daemon.url}/files/plain.txt", headers={"Range": "bytes=0-4"})
    assert response.status == 206
    assert response.body == b"hello"
    assert response.header("Content-Range") == f"bytes 0-4/{len(AWKWARD_FILES['plain.txt'])}"


def test_conditional_get_with_etag_gets_304(daemon):
    etag = fetch(f"{daemon.url}/files/plain.txt").header("ETag")
    response = fetch(f"{daemon.url}/files/plain.txt", headers={"If-None-Match": etag})
    assert response.status == 304
    assert response.body == b""


def strings_in(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(item) for item in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(item) for item in value)) if value else set()
    return set()


def listing(daemon, how: str) -> Response:
    if how == "query":
        return fetch(f"{daemon.url}/files/?format=json")
    return fetch(f"{daemon.url}/files/", headers={"Accept": "application/json"})


@pytest.mark.parametrize("how", ["query", "accept"])
def test_json_listing_names_every_visible_entry(daemon, how):
    response = listing(daemon, how)
    assert response.status == 200
    assert response.header("Content-Type").startswith("application/json")
    names = strings_in(json.loads(response.body))
    top_level = {name.split("/")[0] for name in SERVED_FILES}
    missing = {name for name in top_level if name not in names}
    assert not missing, f"listing lacks {missing}: {names}"


def test_listing_shows_only_names_that_can_be_downloaded(daemon):
    # A listed name the daemon then refuses is a dead link on the page.
    names = strings_in(json.loads(listing(daemon, "query").body))
    listed_refused = {name for name in REFUSED_NAMES if name in names}
    assert not listed_refused, f"listed but refused for download: {listed_refused}"


def test_html_listing_escapes_names(daemon):
    response = fetch(f"{daemon.url}/files/")
    assert response.status == 200
    assert response.header("Content-Type").startswith("text/html")
    text = response.body.decode("utf-8")
    assert 'quote"s.txt' not in text
    assert any(escaped in text for escaped in ("quote&quot;s.txt", "quote&#34;s.txt", "quote&#x22;s.txt"))


def test_requests_multipart_upload(daemon):
    content = random_bytes(10_000)
    response = requests.post(f"{daemon.url}/upload.html", files={"file": ("from requests.bin", content)},
                             headers={"Connection": "close"}, timeout=10)
    response.close()
    assert response.status_code in (200, 201, 303)
    assert (daemon.save_dir / "from requests.bin").read_bytes() == content


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
