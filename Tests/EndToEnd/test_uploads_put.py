"""Uploads of a raw body against the real daemon (PUT, or POST with ?name=), from curl and
Python's http.client: with Content-Length and chunked, stored byte-identical."""

import http.client

from client_support import curl, random_bytes
from http_raw import put_chunked


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


def test_curl_raw_post_with_name_query(daemon):
    content = b"posted raw\n"
    result = curl("--data-binary", "@-", "--header", "Content-Type: application/octet-stream",
                  "--output", "/dev/null", "--write-out", "%{http_code}",
                  f"{daemon.url}/upload.html?name=raw-post.txt", stdin=content)
    assert result.stdout == b"201", result.stderr
    assert (daemon.save_dir / "raw-post.txt").read_bytes() == content


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
    assert put_chunked(connection, "/files/chunked.bin", pieces) == 201
    assert (daemon.save_dir / "chunked.bin").read_bytes() == b"".join(pieces)
