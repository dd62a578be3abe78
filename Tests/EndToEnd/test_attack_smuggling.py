"""Request smuggling against the real daemon. A front proxy and filedrop must never disagree
on where one request ends: every ambiguous framing (RFC 9112 §6.3, §7.1, §2.2) is either
refused with 400 + `Connection: close` and the connection closed, so bytes after it are
never read as a request, or parsed the one way the RFC allows, which a pipelined honest
request right behind it proves. A request hidden in the ambiguous part (`/files/SMUGGLED`)
must never reach the router; an honest client on another address is served throughout.
"""

from __future__ import annotations

import pytest

from attack_support import LegitClient
from http_raw import ConnectionClosed, ResponseTimeout

HIDDEN = b"GET /files/SMUGGLED HTTP/1.1\r\nHost: localhost\r\n\r\n"
HONEST = b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\n\r\n"
START = b"PUT /files/smuggle.txt HTTP/1.1\r\nHost: localhost\r\n"
CHUNKED_HELLO = b"5\r\nhello\r\n0\r\n\r\n"


def read_all_responses(connection, settle: float = 1.0) -> tuple[list, bool]:
    """Every response until the server closes or stays quiet for `settle` seconds, and
    whether it closed."""
    responses = []
    while True:
        try:
            responses.append(connection.read_response(timeout=settle if responses else 5.0))
        except ConnectionClosed:
            return responses, True
        except ResponseTimeout:
            return responses, False


# Framings that must be refused: 400, Connection: close, closed, nothing after it read.
REFUSED = {
    "two different Content-Length": START + b"Content-Length: 5\r\nContent-Length: %d\r\n\r\nhello" % (5 + len(HIDDEN)),
    "two equal Content-Length": START + b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % ((len(HIDDEN),) * 2),
    "Content-Length list": START + b"Content-Length: 0, %d\r\n\r\n" % len(HIDDEN),
    "Content-Length with sign": START + b"Content-Length: +0\r\n\r\n",
    "Content-Length in hex": START + b"Content-Length: 0x0\r\n\r\n",
    "negative Content-Length": START + b"Content-Length: -1\r\n\r\n",
    "Content-Length past 64 bits": START + b"Content-Length: 18446744073709551616\r\n\r\n",
    "chunk size past 64 bits": START + b"Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
    "chunk size padded past its limit": START + b"Transfer-Encoding: chunked\r\n\r\n" + b"0" * 200 + b"5\r\nhello\r\n0\r\n\r\n",
    "negative chunk size": START + b"Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
    "chunk size with a space": START + b"Transfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
    "chunk data longer than its size": START + b"Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
    "bare LF ends the request line": b"PUT /files/smuggle.txt HTTP/1.1\nHost: localhost\r\nContent-Length: 0\r\n\r\n",
    "bare LF hides Transfer-Encoding": START + b"X-Note: a\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello",
    "bare LF after a chunk size": START + b"Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
    "bare LF after chunk data": START + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n",
    "bare LF in a chunk extension": START + b"Transfer-Encoding: chunked\r\n\r\n5;a=b\nc\r\nhello\r\n0\r\n\r\n",
    "bare CR in a header": START + b"X-Note: a\rTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
    "Transfer-Encoding: xchunked": START + b"Transfer-Encoding: xchunked\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding: chunkedx": START + b"Transfer-Encoding: chunkedx\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding: chunked, identity": START + b"Transfer-Encoding: chunked, identity\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding: chunked twice in a list": START + b"Transfer-Encoding: chunked, chunked\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding twice": START + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding with a vertical tab": START + b"Transfer-Encoding: chunked\x0b\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding with NUL": START + b"Transfer-Encoding: chunked\x00\r\n\r\n" + CHUNKED_HELLO,
    "space before the colon": START + b"Transfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding folded onto a line": START + b"X-Note: a\r\n Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
    "leading space before the first field": START.replace(b"Host", b" Host") + b"Content-Length: 0\r\n\r\n",
    "Transfer-Encoding in HTTP/1.0": START.replace(b"HTTP/1.1", b"HTTP/1.0") + b"Transfer-Encoding: chunked\r\n\r\n" + CHUNKED_HELLO,
    "Transfer-Encoding and Content-Length in HTTP/1.0": START.replace(b"HTTP/1.1", b"HTTP/1.0")
        + b"Transfer-Encoding: chunked\r\nContent-Length: 14\r\n\r\n" + CHUNKED_HELLO,
}


@pytest.mark.parametrize("request_bytes", REFUSED.values(), ids=REFUSED.keys())
def test_ambiguous_framing_is_refused_and_the_connection_closed(daemon, request_bytes):
    with LegitClient(daemon):
        connection = daemon.connect()
        try:
            connection.send(request_bytes + HIDDEN + HONEST)
        except (BrokenPipeError, ConnectionResetError):
            pass
        responses, closed = read_all_responses(connection)
    assert [response.status for response in responses] == [400], responses
    assert responses[0].says_close and closed
    assert "SMUGGLED" not in daemon.stderr_text()
    assert not (daemon.save_dir / "smuggle.txt").exists()


# Framings with one meaning: the body is what the RFC says, and the honest request behind
# it is the next one answered (or the connection closes when the RFC demands it).
FRAMED = {
    # RFC 9112 §6.3: Transfer-Encoding wins over Content-Length, and the connection closes,
    # so the bytes Content-Length would have covered are never read as a request.
    "Content-Length and Transfer-Encoding": (START + b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n"
                                             % (len(CHUNKED_HELLO) + len(HIDDEN)) + CHUNKED_HELLO + HIDDEN, b"hello", True),
    "Transfer-Encoding before Content-Length": (START + b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
                                                + CHUNKED_HELLO + HIDDEN, b"hello", True),
    # RFC 9110 §5.6.3: whitespace around a field value is not part of it.
    "Transfer-Encoding:  chunked": (START + b"Transfer-Encoding:   chunked\r\n\r\n" + CHUNKED_HELLO, b"hello", False),
    "Transfer-Encoding with tabs": (START + b"Transfer-Encoding:\tchunked\t\r\n\r\n" + CHUNKED_HELLO, b"hello", False),
    # RFC 9112 §7: transfer-coding names are case-insensitive.
    "Transfer-Encoding: CHUNKED": (START + b"transfer-encoding: ChUnKeD\r\n\r\n" + CHUNKED_HELLO, b"hello", False),
    # RFC 9112 §6.2: Content-Length is 1*DIGIT; leading zeros are digits.
    "Content-Length with leading zeros": (START + b"Content-Length: 005\r\n\r\nhello", b"hello", False),
    # A request hidden in a body is data, stored byte for byte.
    "request inside a Content-Length body": (START + b"Content-Length: %d\r\n\r\n" % len(HIDDEN) + HIDDEN, HIDDEN, False),
    "request inside a chunk": (START + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % len(HIDDEN) + HIDDEN + b"\r\n0\r\n\r\n",
                               HIDDEN, False),
    # RFC 9110 §6.5.1: framing fields in trailers are ignored, never applied.
    "framing fields in the trailer": (START + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
                                      b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n" % len(HIDDEN), b"hello", False),
}


@pytest.mark.parametrize("request_bytes,stored,closes", FRAMED.values(), ids=FRAMED.keys())
def test_unambiguous_framing_is_parsed_the_one_way(daemon, request_bytes, stored, closes):
    with LegitClient(daemon):
        connection = daemon.connect()
        connection.send(request_bytes + HONEST)
        responses, closed = read_all_responses(connection)
    assert responses and responses[0].status == 201, responses
    assert (daemon.save_dir / "smuggle.txt").read_bytes() == stored
    if closes:
        assert [response.status for response in responses] == [201] and responses[0].says_close and closed
    else:
        assert [response.status for response in responses] == [201, 200], responses
        assert responses[1].body == b"hello, filedrop\n"
    assert "SMUGGLED" not in daemon.stderr_text()


def test_a_body_on_a_get_is_never_read_as_the_next_request(daemon):
    with LegitClient(daemon):
        connection = daemon.connect()
        connection.send(b"GET /files/plain.txt HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(HIDDEN)
                        + HIDDEN + HONEST)
        responses, closed = read_all_responses(connection)
    # Either the body is skipped (then the honest request is next) or the connection closes.
    assert responses[0].status == 200
    assert [response.status for response in responses[1:]] in ([], [200]), responses
    assert closed or len(responses) == 2
    assert "SMUGGLED" not in daemon.stderr_text()


def test_a_chunk_of_2_to_the_64_swallows_what_follows(daemon):
    # Legal framing: everything after the size line is chunk data, still arriving; the
    # request hidden in it is data and is never routed.
    with LegitClient(daemon):
        connection = daemon.connect()
        connection.send(START + b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n" + HIDDEN + HONEST)
        responses, closed = read_all_responses(connection)
        connection.close()
    assert responses == [] and not closed
    assert "SMUGGLED" not in daemon.stderr_text()
    assert not (daemon.save_dir / "smuggle.txt").exists()
