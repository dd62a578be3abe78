"""HTTP/1.1 message rules (RFC 9112, RFC 9110) checked byte by byte over raw sockets against
the real daemon: connection reuse, pipelining, HEAD, HTTP/1.0, Expect, framing errors and
limits. One test per rule."""

import pytest

from http_raw import build_request, chunked

MAX_ERROR_BODY = 4096


def assert_protocol_error(connection, status: int):
    """A protocol error: the status, `Connection: close`, a short body, then the close."""
    response = connection.read_response()
    assert response.status == status, response
    assert response.says_close, f"{status} without Connection: close: {response}"
    assert 0 < len(response.body) <= MAX_ERROR_BODY, response
    assert connection.wait_closed(), "server kept the connection open after a protocol error"
    return response


def send_tolerating_reset(connection, data: bytes):
    """Send a request the server may reject (and close on) before it has read all of it."""
    try:
        connection.send(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def test_keep_alive_serves_two_requests_on_one_socket(daemon):
    connection = daemon.connect()
    first = connection.request("GET", "/")
    second = connection.request("GET", "/files/plain.txt")
    assert (first.status, second.status) == (200, 200)
    assert not first.says_close
    assert second.body == b"hello, filedrop\n"
    assert connection.is_open_after(0.3)


def test_pipelined_requests_are_answered_in_order(daemon):
    connection = daemon.connect()
    connection.send(build_request("GET", "/files/plain.txt")
                    + build_request("GET", "/no-such-page")
                    + build_request("GET", "/files/%2520.txt"))
    responses = [connection.read_response() for _ in range(3)]
    assert [response.status for response in responses] == [200, 404, 200]
    assert responses[0].body == b"hello, filedrop\n"
    assert responses[2].body == b"percent twenty\n"


@pytest.mark.parametrize("target", ["/", "/index.html", "/files/plain.txt", "/files/"])
def test_head_has_the_headers_of_get_and_no_body(daemon, target):
    connection = daemon.connect()
    head = connection.request("HEAD", target)
    # A body after the HEAD response would be read as the next status line and fail there.
    get = connection.request("GET", target)
    assert head.status == get.status == 200
    assert head.body == b""
    assert head.header("Content-Type") == get.header("Content-Type")
    if get.header("Content-Length") is not None:
        assert head.header("Content-Length") == get.header("Content-Length") == str(len(get.body))


def test_http10_closes_by_default(daemon):
    connection = daemon.connect()
    response = connection.request("GET", "/", version="HTTP/1.0", host=None)
    assert response.status == 200
    assert response.version in ("HTTP/1.0", "HTTP/1.1")
    assert connection.wait_closed()


def test_http10_keeps_alive_on_request(daemon):
    connection = daemon.connect()
    first = connection.request("GET", "/", version="HTTP/1.0", host=None,
                               headers=[("Connection", "keep-alive")])
    assert first.status == 200
    assert "keep-alive" in first.connection_tokens()
    second = connection.request("GET", "/files/plain.txt", version="HTTP/1.0", host=None,
                                headers=[("Connection", "keep-alive")])
    assert second.body == b"hello, filedrop\n"


def test_expect_100_continue_is_answered_before_the_body_is_sent(daemon):
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/expected.txt", content_length=True,
                                  headers=[("Expect", "100-continue"), ("Content-Length", "5")]))
    interim = connection.read_response()
    assert (interim.version, interim.status) == ("HTTP/1.1", 100)
    connection.send(b"hello")
    final = connection.read_response()
    assert final.status == 201, final
    assert (daemon.save_dir / "expected.txt").read_bytes() == b"hello"


def test_expect_100_continue_over_the_upload_limit_gets_413_without_100(daemon_factory):
    daemon = daemon_factory("--max-upload-size", "1K")
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/too-big.bin",
                                  headers=[("Expect", "100-continue"), ("Content-Length", "1025")]))
    response = connection.read_response()
    assert response.status == 413, f"expected 413 before any body, got {response}"
    assert not (daemon.save_dir / "too-big.bin").exists()


def test_upload_one_byte_over_the_limit_is_rejected(daemon_factory):
    daemon = daemon_factory("--max-upload-size", "1K")
    connection = daemon.connect()
    ok = connection.request("PUT", "/files/at-limit.bin", body=b"x" * 1024)
    assert ok.status == 201, ok
    over = daemon.connect()
    send_tolerating_reset(over, build_request("PUT", "/files/over-limit.bin", body=b"x" * 1025))
    assert over.read_response().status == 413
    assert (daemon.save_dir / "at-limit.bin").stat().st_size == 1024
    assert not (daemon.save_dir / "over-limit.bin").exists()


def test_transfer_encoding_with_content_length_uses_chunked_and_closes(daemon):
    # RFC 9112 §6.3: Transfer-Encoding overrides Content-Length; the connection must close.
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/te-cl.txt",
                                  headers=[("Transfer-Encoding", "chunked"), ("Content-Length", "3")],
                                  body=chunked(b"hello", b" world")))
    response = connection.read_response()
    assert response.status == 201, response
    assert response.says_close
    assert connection.wait_closed()
    assert (daemon.save_dir / "te-cl.txt").read_bytes() == b"hello world"


MALFORMED_REQUESTS = {
    "duplicate content-length": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                b"Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
    "conflicting content-length": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                  b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    "content-length with plus sign": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                     b"Content-Length: +5\r\n\r\nhello",
    "content-length list": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                           b"Content-Length: 5, 6\r\n\r\nhello",
    "obs-fold": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\nX-Folded: a\r\n b\r\n"
                b"Content-Length: 5\r\n\r\nhello",
    "bare CR in a header": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\nX-Bad: a\rb\r\n"
                           b"Content-Length: 5\r\n\r\nhello",
    "space before colon": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\nContent-Length : 5\r\n\r\nhello",
    "chunk size with 0x prefix": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n0x10\r\n0123456789abcdef\r\n0\r\n\r\n",
    "chunk size not hex": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    "chunk size overflows 64 bits": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                    b"Transfer-Encoding: chunked\r\n\r\n"
                                    b"10000000000000005\r\nhello\r\n0\r\n\r\n",
    "no CRLF after chunk data": b"PUT /files/bad.txt HTTP/1.1\r\nHost: localhost\r\n"
                                b"Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    "missing Host in HTTP/1.1": b"GET / HTTP/1.1\r\n\r\n",
    "two Host headers": b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    "malformed request line": b"GET  / HTTP/1.1\r\nHost: localhost\r\n\r\n",
}


@pytest.mark.parametrize("request_bytes", MALFORMED_REQUESTS.values(), ids=MALFORMED_REQUESTS.keys())
def test_malformed_request_gets_400_and_close(daemon, request_bytes):
    connection = daemon.connect()
    send_tolerating_reset(connection, request_bytes)
    assert_protocol_error(connection, 400)
    assert not (daemon.save_dir / "bad.txt").exists()


HEAD_LIMIT = 16 * 1024


def request_with_head_size(size: int) -> bytes:
    """A GET whose head (request line, fields and the final empty line) is `size` bytes."""
    padding = size - len(build_request("GET", "/", headers=[("X-Big", "")]))
    request = build_request("GET", "/", headers=[("X-Big", "a" * padding)])
    assert len(request) == size
    return request


def test_head_at_the_limit_is_accepted(daemon):
    connection = daemon.connect()
    connection.send(request_with_head_size(HEAD_LIMIT))
    assert connection.read_response().status == 200


def test_head_over_the_limit_gets_431(daemon):
    # Over the limit whether or not the final CRLF is counted.
    connection = daemon.connect()
    send_tolerating_reset(connection, request_with_head_size(HEAD_LIMIT + 3))
    assert_protocol_error(connection, 431)


def test_header_fields_at_the_limit_are_accepted(daemon):
    connection = daemon.connect()
    headers = [(f"X-Field-{index}", "v") for index in range(99)]  # plus Host: 100 fields
    assert connection.request("GET", "/", headers=headers).status == 200


def test_one_header_field_over_the_limit_gets_431(daemon):
    connection = daemon.connect()
    headers = [(f"X-Field-{index}", "v") for index in range(100)]  # plus Host: 101 fields
    send_tolerating_reset(connection, build_request("GET", "/", headers=headers))
    assert_protocol_error(connection, 431)


URI_LIMIT = 8 * 1024


def test_uri_at_the_limit_is_parsed(daemon):
    connection = daemon.connect()
    response = connection.request("GET", "/?q=" + "a" * (URI_LIMIT - 4))
    assert response.status == 200
    assert not response.says_close


def test_uri_one_byte_over_the_limit_gets_414(daemon):
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("GET", "/" + "a" * URI_LIMIT))
    assert_protocol_error(connection, 414)


@pytest.mark.parametrize("version", ["HTTP/2.0", "HTTP/3.0"])
def test_unsupported_major_version_gets_505(daemon, version):
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("GET", "/", version=version))
    assert_protocol_error(connection, 505)


@pytest.mark.parametrize("version", ["HTTP/1.2", "HTTP/1.9"])
def test_higher_minor_version_is_served_as_http11(daemon, version):
    # RFC 9110 §2.5: processed as the highest minor version we conform to, answered as 1.1.
    connection = daemon.connect()
    connection.send(build_request("GET", "/files/plain.txt", version=version))
    response = connection.read_response()
    assert (response.version, response.status, response.body) == ("HTTP/1.1", 200, b"hello, filedrop\n")
    assert not response.says_close
    assert connection.request("GET", "/files/plain.txt").status == 200


@pytest.mark.parametrize("version,status", [("HTTP/0.9", 505), ("HTTP/1.10", 400), ("HTTP/1.1.1", 400)])
def test_other_versions_are_refused(daemon, version, status):
    # RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT; another major version is 505.
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("GET", "/", version=version))
    assert_protocol_error(connection, status)


@pytest.mark.parametrize("target", ["/files/plain.txt#top", "/files/#", "/#", "/?q=1#x"])
def test_fragment_in_the_target_gets_400(daemon, target):
    # RFC 9112 §3.2: a client never sends a fragment; a "#" here is not a name character.
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("GET", target))
    assert_protocol_error(connection, 400)


@pytest.mark.parametrize("host", ["127.0.0.1, localhost", "a@127.0.0.1", "", "localhost:http", "evil example"])
def test_invalid_host_value_gets_400(daemon, host):
    # RFC 9112 §3.2: a Host with an invalid value is 400 (421 is for a valid name we don't serve).
    connection = daemon.connect()
    connection.send(build_request("GET", "/files/", host=host))
    response = connection.read_response()
    assert response.status == 400, response
    assert b"plain.txt" not in response.body


@pytest.mark.parametrize("target,content", [
    ("/files/./plain.txt", b"hello, filedrop\n"),
    ("/files/sub%20dir/./inner.txt", b"inside a subdirectory\n"),
    ("/./files/././sub%20dir/inner.txt", b"inside a subdirectory\n"),
])
def test_dot_segments_are_removed(daemon, target, content):
    # RFC 9110 §4.2.3 / RFC 3986 §5.2.4: "/a/./b" is "/a/b". ".." stays refused
    # (test_attack_traversal.py), and so do encoded dots.
    response = daemon.connect().request("GET", target)
    assert (response.status, response.body) == (200, content)


def test_dot_segment_at_the_end_names_the_folder(daemon):
    response = daemon.connect().request("GET", "/files/sub%20dir/.", headers=[("Accept", "application/json")])
    assert response.status == 200
    assert b"inner.txt" in response.body


@pytest.mark.parametrize("coding,status", [("gzip, chunked", 501), ("gzip", 400)])
def test_unknown_transfer_coding_is_refused(daemon, coding, status):
    # RFC 9112 §6.1: an unknown coding SHOULD get 501; §6.3: a request whose final coding is
    # not chunked has no determinable length and MUST get 400.
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("PUT", "/files/coded.bin",
                                                    headers=[("Transfer-Encoding", coding)],
                                                    body=b"5\r\nhello\r\n0\r\n\r\n"))
    assert_protocol_error(connection, status)
    assert not (daemon.save_dir / "coded.bin").exists()


def test_chunked_body_with_extensions_and_trailers_is_accepted(daemon):
    body = b"4;name=value\r\nwiki\r\n5\r\npedia\r\n" + chunked(b" in chunks", trailers=[("X-Checksum", "none"), ("X-Other", "1")])
    connection = daemon.connect()
    connection.send(build_request("PUT", "/files/trailers.txt",
                                  headers=[("Transfer-Encoding", "chunked")], body=body))
    response = connection.read_response()
    assert response.status == 201, response
    assert not response.says_close
    assert (daemon.save_dir / "trailers.txt").read_bytes() == b"wikipedia in chunks"
    assert connection.request("GET", "/files/trailers.txt").body == b"wikipedia in chunks"


def test_ipv6_loopback_serves_the_page(daemon):
    connection = daemon.connect(ipv6=True)
    response = connection.request("GET", "/", host="[::1]")
    assert response.status == 200
    assert response.header("Content-Type") == "text/html; charset=utf-8"


def test_port_zero_binds_real_ports_reported_in_the_ready_notification(daemon):
    assert daemon.port and daemon.port6
    listen = daemon.notification_value("X_FILEDROP_LISTEN")
    assert f"127.0.0.1:{daemon.port}" in listen and f"[::1]:{daemon.port6}" in listen
    assert daemon.connect().request("GET", "/").status == 200


def test_connection_close_is_honored(daemon):
    connection = daemon.connect()
    response = connection.request("GET", "/", headers=[("Connection", "close")])
    assert response.status == 200
    assert response.says_close
    assert connection.wait_closed()


def test_unknown_path_gets_404_and_keeps_the_connection(daemon):
    connection = daemon.connect()
    response = connection.request("GET", "/no/such/thing")
    assert response.status == 404
    assert not response.says_close
    assert connection.request("GET", "/files/plain.txt").status == 200


def test_unknown_method_gets_405_or_501(daemon):
    connection = daemon.connect()
    send_tolerating_reset(connection, build_request("BREW", "/"))
    response = connection.read_response()
    assert response.status in (405, 501), response


def test_each_request_gets_an_access_log_line(daemon):
    connection = daemon.connect()
    assert connection.request("GET", "/files/plain.txt").status == 200
    assert connection.request("GET", "/no-such-page-for-the-log").status == 404
    connection.close()
    daemon.assert_no_fd_leak()
    daemon.flush_access_log()
    log = daemon.stderr_text()
    assert "/files/plain.txt" in log and "/no-such-page-for-the-log" in log, log
