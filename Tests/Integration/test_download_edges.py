"""Download edge cases against the real daemon: Range requests at the edges (RFC 9110
§14.1.2), conditional requests with fresh and stale validators (§13.1), listings of awkward
names whose every link is followed (HTML and JSON), and a ZIP of Unicode names and empty
folders unpacked by bsdtar (libarchive), a second implementation beside zipfile and unzip.
"""

from __future__ import annotations

import email.parser
import html.parser
import json
import os
import shutil
import subprocess
import unicodedata
import urllib.parse
from pathlib import Path

import pytest

from http_raw import fetch
from test_downloads import fetch_zip, file_url, put_file

CONTENT = bytes(range(256)) * 4  # 1024 bytes
SIZE = len(CONTENT)


@pytest.fixture
def ranged(daemon):
    put_file(daemon, "r.bin", CONTENT)
    return daemon


def get(daemon, relative: str, **headers: str):
    return fetch(file_url(daemon, relative), headers={key.replace("_", "-"): value for key, value in headers.items()})


# Range


@pytest.mark.parametrize("spec, first, last", [
    ("0-0", 0, 0),
    ("-500", SIZE - 500, SIZE - 1),
    ("500-", 500, SIZE - 1),
    ("1023-", SIZE - 1, SIZE - 1),
    # Past the end: the last position is clipped to the file (§14.1.2).
    ("1000-5000", 1000, SIZE - 1),
    ("-5000", 0, SIZE - 1),
    # Overlapping and adjacent ranges are coalesced into one (§14.2 allows it).
    ("0-100,50-150", 0, 150),
    ("10-19,20-29", 10, 29),
])
def test_single_range_edges(ranged, spec, first, last):
    response = get(ranged, "r.bin", Range=f"bytes={spec}")
    assert response.status == 206, response
    assert response.header("Content-Range") == f"bytes {first}-{last}/{SIZE}"
    assert response.body == CONTENT[first:last + 1]


@pytest.mark.parametrize("spec", ["1024-", "1024-2000", "5000-6000", "-0", "1024-1024,2000-"])
def test_unsatisfiable_ranges_are_416(ranged, spec):
    response = get(ranged, "r.bin", Range=f"bytes={spec}")
    assert response.status == 416, response
    assert response.header("Content-Range") == f"bytes */{SIZE}"


@pytest.mark.parametrize("header", ["bytes=abc", "bytes=5-1", "bytes=", "bytes=1-2-3", "items=0-1",
                                    "bytes 0-1", "bytes=0x10-0x20", "bytes=--1", "bytes=1-,,"])
def test_invalid_range_syntax_is_ignored(ranged, header):
    # §14.2: a Range the server does not understand is ignored; the whole file comes back.
    response = get(ranged, "r.bin", Range=header)
    assert response.status == 200, response
    assert response.body == CONTENT


def test_sixteen_ranges_are_multipart_and_seventeen_are_the_whole_file(ranged):
    content = os.urandom(100_000)
    put_file(ranged, "many.bin", content)

    def spec(count):
        # 1,000 bytes apart: far enough that none are coalesced.
        return "bytes=" + ",".join(f"{i * 1000}-{i * 1000 + 9}" for i in range(count))

    parts = get(ranged, "many.bin", Range=spec(16))
    assert parts.status == 206
    message = email.parser.BytesParser().parsebytes(
        b"Content-Type: " + parts.header("Content-Type").encode() + b"\r\n\r\n" + parts.body)
    bodies = [part.get_payload(decode=True) for part in message.get_payload()]
    assert bodies == [content[i * 1000:i * 1000 + 10] for i in range(16)]
    whole = get(ranged, "many.bin", Range=spec(17))
    assert whole.status == 200 and whole.body == content


# Conditional requests


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


# Listings of awkward names

AWKWARD_NAMES = {
    "<script>alert(1).txt": b"script",
    "<img src=x onerror=alert(2)>.txt": b"img",
    "it's \"quoted\".txt": b"quotes",
    "emoji \N{GRINNING FACE}\N{PARTY POPPER}.txt": b"emoji",
    "a%2Fb.txt": b"a literal percent-2F, not a slash",
    "100% done.txt": b"percent",
    "what?#1 & more.txt": b"query and fragment characters",
    "sub <dir> %2F/inner &amp;.txt": b"inside an awkward folder",
}
UNLISTED_NAME = "new\nline.txt"


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [value for name, value in attrs if name == "href" and value]


@pytest.fixture
def awkward(daemon_factory):
    daemon = daemon_factory(fill=False)
    for name, content in AWKWARD_NAMES.items():
        put_file(daemon, name, content)
    put_file(daemon, UNLISTED_NAME, b"never listed")
    return daemon


def follow(daemon, listing_url: str, href: str) -> tuple[str, bytes]:
    """GETs `href` as a browser would from `listing_url`: (the decoded stored path, body)."""
    url = urllib.parse.urljoin(listing_url, href)
    assert url.startswith(daemon.url + "/files/"), url
    response = fetch(url)
    assert response.status == 200, (href, response)
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path[len("/files/"):]), response.body


def test_html_listing_escapes_awkward_names_and_every_link_works(awkward):
    reached = {}
    for folder in ("", urllib.parse.quote("sub <dir> %2F") + "/"):
        listing_url = f"{awkward.url}/files/{folder}"
        listing = fetch(listing_url, headers={"Accept": "text/html"})
        assert listing.status == 200
        text = listing.body.decode()
        if not folder:
            assert "&lt;script&gt;alert(1).txt" in text
            assert "&lt;img src=x onerror=alert(2)&gt;.txt" in text
        assert "<script>alert" not in text and "<img" not in text
        assert "new\nline" not in text and "new\\nline" not in text
        parser = Links()
        parser.feed(text)
        for href in parser.hrefs:
            if "?" in href or href.endswith("/") or not urllib.parse.urljoin(listing_url, href).startswith(listing_url):
                continue  # folders, ZIP and sort links, parent and breadcrumb links
            path, body = follow(awkward, listing_url, href)
            reached[path] = body
    assert reached == AWKWARD_NAMES


def test_json_listing_names_awkward_files_and_every_url_works(awkward):
    reached = {}
    pending = [f"{awkward.url}/files/"]
    while pending:
        listing_url = pending.pop()
        listing = json.loads(fetch(listing_url + "?format=json").body)
        for entry in listing["entries"]:
            assert entry["name"] != UNLISTED_NAME
            if entry["type"] == "directory":
                pending.append(urllib.parse.urljoin(listing_url, entry["url"]))
                continue
            path, body = follow(awkward, listing_url, entry["url"])
            assert path.rsplit("/", 1)[-1] == entry["name"]
            reached[path] = body
    assert reached == AWKWARD_NAMES


def test_a_literal_percent_2f_in_a_name_is_not_a_slash(awkward):
    assert fetch(f"{awkward.url}/files/a%252Fb.txt").body == AWKWARD_NAMES["a%2Fb.txt"]
    # Decoded once, %2F would be a slash inside a name: refused or not found, never a/b.txt.
    assert fetch(f"{awkward.url}/files/a%2Fb.txt").status in (400, 404)


# ZIP through bsdtar

ZIP_TREE = {
    "Grüße/日本語.txt": "unicode name\n".encode() * 100,
    "Grüße/ñandú 😀.bin": os.urandom(70_000),
    "emoji 🎉/deep/ü.md": b"deep",
    "plain.txt": b"plain\n",
}
ZIP_EMPTY_FOLDERS = ["empty", "Grüße/leer ordner", "emoji 🎉/deep/empty too"]


@pytest.mark.skipif(shutil.which("bsdtar") is None, reason="bsdtar missing: apt-get install libarchive-tools (make deps)")
def test_zip_with_unicode_names_and_empty_folders_unpacks_with_bsdtar(daemon_factory, tmp_path):
    daemon = daemon_factory(fill=False)
    for name, content in ZIP_TREE.items():
        put_file(daemon, name, content)
    for folder in ZIP_EMPTY_FOLDERS:
        (daemon.save_dir / folder).mkdir(parents=True)
    fetch_zip(daemon, tmp_path)
    archive = tmp_path / "download.zip"
    environment = dict(os.environ, LC_ALL="C.UTF-8")
    listed = subprocess.run(["bsdtar", "-tf", str(archive)], check=True, capture_output=True, env=environment,
                            timeout=60).stdout.decode().splitlines()
    assert {unicodedata.normalize("NFC", name.rstrip("/")) for name in listed} >= set(ZIP_TREE) | set(ZIP_EMPTY_FOLDERS)
    out = tmp_path / "unpacked"
    out.mkdir()
    subprocess.run(["bsdtar", "-xf", str(archive), "-C", str(out)], check=True, env=environment, timeout=60)
    files = {unicodedata.normalize("NFC", path.relative_to(out).as_posix()): path.read_bytes()
             for path in out.rglob("*") if path.is_file()}
    assert files == ZIP_TREE
    empty = {unicodedata.normalize("NFC", path.relative_to(out).as_posix())
             for path in out.rglob("*") if path.is_dir() and not any(path.iterdir())}
    assert empty == set(ZIP_EMPTY_FOLDERS)
    assert Path(out / "Grüße" / "ñandú 😀.bin").exists()
