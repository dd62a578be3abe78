"""Listings of big folders (issue 23) against the real daemon: a folder of 20,000 files comes
whole and sorted, streamed (chunked, not built whole first), the same through gzip and through
`?limit=&after=` pages; the cursor's edges (a page boundary, a name that sorts at it, a
deleted entry, a limit over the maximum); and the directory walk runs on worker threads only."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import urllib.parse

import pytest

from http_raw import fetch
from test_never_wait import Tracer, thread_names

COUNT = 20_000
MAX_LIMIT = 10_000


def big_folder(daemon_factory, name: str, count: int, file_name: str, size=lambda index: 0):
    """A daemon whose save directory holds `name/` with `count` files named `file_name % index`,
    sparse (`size(index)` bytes without writing them)."""
    daemon = daemon_factory(fill=False)
    folder = daemon.save_dir / name
    folder.mkdir()
    for index in range(count):
        with open(folder / (file_name % index), "wb") as file:
            file.truncate(size(index))
    return daemon


@pytest.fixture
def big(daemon_factory):
    daemon = big_folder(daemon_factory, "big", COUNT, "File %05d <&>.txt", size=lambda index: index * 997)
    (daemon.save_dir / "big" / "sub").mkdir()
    return daemon


def listing(daemon, query="", headers=None):
    response = fetch(f"{daemon.url}/files/big/?format=json{query}", headers=headers or {})
    assert response.status == 200, response.body[:300]
    return response


def expected_names():
    return ["sub"] + [f"File {index:05d} <&>.txt" for index in range(COUNT)]


def test_a_big_json_listing_is_streamed_whole_and_sorted(big):
    response = listing(big)
    # Streamed: the length is not known ahead.
    assert response.header("Transfer-Encoding") == "chunked"
    assert response.header("Content-Length") is None
    entries = json.loads(response.body)["entries"]
    assert [entry["name"] for entry in entries] == expected_names()
    assert [entry.get("size") for entry in entries[1:]] == [index * 997 for index in range(COUNT)]
    assert entries[1]["url"] == "/files/big/File%2000000%20%3C%26%3E.txt"
    assert "next" not in json.loads(response.body)
    # gzip over the stream: the same document.
    compressed = listing(big, headers={"Accept-Encoding": "gzip"})
    assert compressed.header("Content-Encoding") == "gzip"
    assert gzip.decompress(compressed.body) == response.body


def test_a_big_html_listing_is_streamed_whole_and_escaped(big):
    response = fetch(f"{big.url}/files/big/", headers={"Accept": "text/html"})
    assert response.status == 200
    assert response.header("Transfer-Encoding") == "chunked"
    text = response.body.decode()
    assert text.count("<tr><td><a href=\"/files/big/") == COUNT + 1
    assert "<&>" not in text and text.count("&lt;&amp;&gt;.txt</a>") == COUNT
    assert text.endswith("</html>\n")


def test_pages_join_up_to_the_whole_listing(big):
    whole = [entry["name"] for entry in json.loads(listing(big).body)["entries"]]
    joined, cursor, pages = [], None, 0
    while pages < 10:
        query = "&limit=7000" + ("" if cursor is None else "&after=" + urllib.parse.quote(cursor, safe=""))
        page = json.loads(listing(big, query).body)
        joined += [entry["name"] for entry in page["entries"]]
        cursor, pages = page["next"], pages + 1
        if cursor is None:
            break
    assert pages == 3
    assert joined == whole


def test_cursor_edges(big):
    # The folder first, then the files: its cursor carries a slash.
    first = json.loads(listing(big, "&limit=1").body)
    assert [entry["name"] for entry in first["entries"]] == ["sub"] and first["next"] == "sub/"
    second = json.loads(listing(big, "&limit=2&after=sub%2F").body)
    assert [entry["name"] for entry in second["entries"]] == ["File 00000 <&>.txt", "File 00001 <&>.txt"]
    # A name that sorts exactly at the boundary: the same name in another case comes after it.
    (big.save_dir / "big" / "file 00001 <&>.txt").touch()
    after = json.loads(listing(big, "&limit=2&after=" + urllib.parse.quote("File 00001 <&>.txt", safe="")).body)
    assert [entry["name"] for entry in after["entries"]] == ["file 00001 <&>.txt", "File 00002 <&>.txt"]
    # A cursor naming a file deleted since still places the next page.
    os.unlink(big.save_dir / "big" / "File 00003 <&>.txt")
    gone = json.loads(listing(big, "&limit=1&after=" + urllib.parse.quote("File 00003 <&>.txt", safe="")).body)
    assert [entry["name"] for entry in gone["entries"]] == ["File 00004 <&>.txt"]
    # Over the maximum: the maximum, with a cursor to go on.
    most = json.loads(listing(big, f"&limit={MAX_LIMIT * 5}").body)
    assert len(most["entries"]) == MAX_LIMIT and most["next"] == most["entries"][-1]["name"]
    for refused in ("&limit=0", "&limit=many", "&limit=5&sort=size"):
        response = fetch(f"{big.url}/files/big/?format=json{refused}")
        assert response.status == 400, refused
        assert "limit" in json.loads(response.body)["error"]


def test_a_page_says_304_until_anything_in_the_folder_changes(big):
    first = listing(big, "&limit=100")
    etag = first.header("ETag")
    unchanged = fetch(f"{big.url}/files/big/?format=json&limit=100", headers={"If-None-Match": etag})
    assert unchanged.status == 304
    # A change far beyond the first page.
    os.truncate(big.save_dir / "big" / "File 19999 <&>.txt", 1)
    assert fetch(f"{big.url}/files/big/?format=json&limit=100", headers={"If-None-Match": etag}).status == 200


# Serial (see pytest.ini): strace stops the daemon at every traced call.
@pytest.mark.serial
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is installed by `make deps`")
def test_the_directory_walk_and_the_rows_are_made_on_workers(big, tmp_path):
    names = thread_names(big.pid)
    tracer = Tracer(big.pid, tmp_path / "strace.txt", calls=["getdents64", "newfstatat", "lgetxattr"])
    for query in ("", "&limit=5000"):
        listing(big, query)
    assert fetch(f"{big.url}/files/big/", headers={"Accept": "text/html"}).status == 200
    calls = tracer.stop()
    names.update(thread_names(big.pid))
    walks = [(names.get(tid, "?"), call) for tid, call in calls if call.startswith("getdents64")]
    assert walks, calls[:20]
    stats = [(names.get(tid, "?"), call) for tid, call in calls if "File 1" in call]
    assert len(stats) >= COUNT // 2
    on_loops = [(name, call) for name, call in walks + stats if not name.startswith("worker-")]
    assert on_loops == []
