"""Conditional requests (RFC 9110 §13) against the real daemon: ETag and Last-Modified on files
and listings, 304 and 412 with fresh and stale validators, If-Range, and ETags that do not
reveal inode numbers."""

from __future__ import annotations

import os
import re

import requests

from download_support import CONTENT, file_url, get, put_file, ranged  # noqa: F401 (ranged is a fixture)
from http_raw import fetch


def test_conditional_get_with_etag_gets_304(daemon):
    etag = fetch(f"{daemon.url}/files/plain.txt").header("ETag")
    response = fetch(f"{daemon.url}/files/plain.txt", headers={"If-None-Match": etag})
    assert response.status == 304
    assert response.body == b""


def test_conditional_requests(daemon):
    put_file(daemon, "c.bin", b"conditional\n" * 10)
    first = requests.get(file_url(daemon, "c.bin"))
    etag = first.headers["ETag"]
    again = requests.get(file_url(daemon, "c.bin"), headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag
    since = requests.get(file_url(daemon, "c.bin"), headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert since.status_code == 304
    # If-Range with a stale validator: the range no longer applies, the whole file comes back.
    stale = requests.get(file_url(daemon, "c.bin"), headers={"Range": "bytes=0-3", "If-Range": '"stale"'})
    assert stale.status_code == 200 and stale.content == first.content
    fresh = requests.get(file_url(daemon, "c.bin"), headers={"Range": "bytes=0-3", "If-Range": etag})
    assert fresh.status_code == 206 and fresh.content == b"cond"


def test_etags_do_not_reveal_the_inode(daemon):
    stored = daemon.save_dir / "inode.bin"
    stored.write_bytes(b"x" * 1000)
    etag = fetch(daemon.url + "/files/inode.bin").header("ETag")
    assert re.fullmatch(r'"[0-9a-f]{16}"', etag), etag
    assert format(stored.stat().st_ino, "x") not in etag


def test_an_unchanged_listing_is_not_modified(daemon):
    (daemon.save_dir / "a.txt").write_bytes(b"a")
    first = fetch(daemon.url + "/files/?format=json")
    etag = first.header("ETag")
    assert etag.startswith('W/"') and first.header("Last-Modified")
    unchanged = fetch(daemon.url + "/files/?format=json", headers={"If-None-Match": etag})
    assert unchanged.status == 304 and unchanged.body == b""
    since = fetch(daemon.url + "/files/?format=json", headers={"If-Modified-Since": first.header("Last-Modified")})
    assert since.status == 304
    (daemon.save_dir / "b.txt").write_bytes(b"b")
    changed = fetch(daemon.url + "/files/?format=json", headers={"If-None-Match": etag})
    assert changed.status == 200 and b"b.txt" in changed.body


def test_conditional_requests_with_fresh_and_stale_validators(ranged):
    first = get(ranged, "r.bin")
    etag, modified = first.header("ETag"), first.header("Last-Modified")
    stale_date = "Mon, 01 Jan 2001 00:00:00 GMT"
    future_date = "Fri, 01 Jan 2100 00:00:00 GMT"
    cases = [
        ({"If-None-Match": etag}, 304),
        ({"If-None-Match": '"stale"'}, 200),
        ({"If-None-Match": f'"stale", {etag}'}, 304),
        ({"If-Modified-Since": modified}, 304),
        ({"If-Modified-Since": stale_date}, 200),
        # If-None-Match wins over If-Modified-Since (§13.1.3).
        ({"If-None-Match": '"stale"', "If-Modified-Since": future_date}, 200),
        ({"If-Match": etag}, 200),
        ({"If-Match": "*"}, 200),
        ({"If-Match": '"stale"'}, 412),
        ({"If-Unmodified-Since": modified}, 200),
        ({"If-Unmodified-Since": stale_date}, 412),
        # A stale If-Match fails before a Range is looked at (§13.2.2).
        ({"If-Match": '"stale"', "Range": "bytes=0-3"}, 412),
        ({"If-None-Match": etag, "Range": "bytes=0-3"}, 304),
        ({"If-Range": etag, "Range": "bytes=0-3"}, 206),
        ({"If-Range": modified, "Range": "bytes=0-3"}, 206),
        ({"If-Range": '"stale"', "Range": "bytes=0-3"}, 200),
        ({"If-Range": stale_date, "Range": "bytes=0-3"}, 200),
    ]
    for headers, status in cases:
        response = fetch(file_url(ranged, "r.bin"), headers=headers)
        assert response.status == status, (headers, response)
        expected_body = {200: CONTENT, 206: CONTENT[:4]}.get(status, b"")
        if status in (200, 206, 304):
            assert response.body == expected_body, headers
            assert response.header("ETag") == etag, headers
    # The file changes: the old validators are stale now.
    os.utime(ranged.save_dir / "r.bin", (1, 1))
    assert fetch(file_url(ranged, "r.bin"), headers={"If-None-Match": etag}).status == 200
    assert fetch(file_url(ranged, "r.bin"), headers={"If-Match": etag}).status == 412
    resumed = fetch(file_url(ranged, "r.bin"), headers={"If-Range": etag, "Range": "bytes=0-3"})
    assert resumed.status == 200 and resumed.body == CONTENT
