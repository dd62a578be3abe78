"""Folder listings against the real daemon, HTML and JSON: the JSON shape, names escaped, only
names that can be downloaded listed, and every link of a listing of awkward names followed."""

from __future__ import annotations

import html.parser
import json
import urllib.parse

import pytest
import requests

from conftest import REFUSED_NAMES, SERVED_FILES
from download_support import put_file
from http_raw import Response, fetch


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


def test_listing_json_shape(daemon):
    put_file(daemon, "photos/a <b>.jpg", b"123")
    (daemon.save_dir / "photos" / "album").mkdir()
    listing = requests.get(f"{daemon.url}/files/photos/", headers={"Accept": "application/json"}).json()
    assert listing["path"] == "photos/"
    assert sorted(listing["entries"], key=lambda e: e["name"])[0] == {
        "name": "a <b>.jpg", "type": "file", "size": 3, "mtime": listing["entries"][1]["mtime"],
        "url": "/files/photos/a%20%3Cb%3E.jpg"}
    assert listing["entries"][0]["type"] == "directory" and listing["entries"][0]["url"] == "/files/photos/album/"
    html = requests.get(f"{daemon.url}/files/photos/", headers={"Accept": "text/html"}).text
    assert "a &lt;b&gt;.jpg" in html and "<b>" not in html


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
