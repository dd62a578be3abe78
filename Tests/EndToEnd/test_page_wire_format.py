"""The page reads the server's JSON as the golden files in Tests/Fixtures/json declare it.

The daemon serves the page itself; its JSON answers (config.json, the listing, the upload
report, an error) are replaced by the golden files with `page.route`, the same files the
server's tests produce and FiledropClient's tests decode. So the page is checked against the
declared wire format, not against whatever this build happens to send.
"""

from pathlib import Path

import pytest

from browser_support import watched_page

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

GOLDEN = Path(__file__).resolve().parent.parent / "Fixtures" / "json"


def golden(name):
    return (GOLDEN / name).read_text(encoding="utf-8")


@pytest.fixture
def page(chromium, daemon):
    with watched_page(chromium, viewport={"width": 390, "height": 844}) as page:
        yield page


def serve_json(page, matches, name, status=200, method=None):
    """Answers requests whose URL `matches` (and whose method is `method`, if given) with a golden file."""
    def handle(route):
        if method and route.request.method != method:
            route.continue_()
            return
        route.fulfill(status=status, content_type="application/json", body=golden(name))
    page.route(matches, handle)


def is_listing(url):
    return "/files/" in url and "format=json" in url


def is_upload(url):
    # The page posts into the folder being viewed: /upload.html?path=...
    return "/upload.html" in url


def open_page(page, daemon, config="config.json"):
    serve_json(page, "**/config.json", config)
    serve_json(page, is_listing, "listing.json")
    page.goto(daemon.url.rstrip("/") + "/")
    expect(page.locator("#dropzone")).to_be_visible()


def test_the_configuration_sets_title_and_limit(page, daemon):
    open_page(page, daemon)
    expect(page.locator("#title")).to_have_text('Family "photos"')
    expect(page.locator("#limit-note")).to_have_text("Up to 1.8 GiB per file")
    assert page.title() == 'Family "photos"'
    assert not page.problems, page.problems


def test_the_https_configuration_shows_the_fingerprint(page, daemon):
    open_page(page, daemon, config="config-https.json")
    note = page.locator("#connection-note")
    expect(note).to_be_visible()
    expect(note.locator(".fingerprint")).to_have_text(
        "3F:A1:07:C2:9B:5D:E4:18:6A:F0:23:8C:D9:41:B7:5E:02:CC:9A:6F:13:E8:B4:70:5D:2A:F9:C6:81:3E:47:DB")
    expect(note.locator("a")).to_have_attribute("href", "trust")


def test_the_listing_renders_every_entry(page, daemon):
    open_page(page, daemon)
    entries = page.locator("#file-list > li")
    expect(entries).to_have_count(3)
    # Folders first, then files newest first.
    expect(entries.nth(0)).to_have_class("entry entry-folder")
    expect(entries.nth(0).locator(".entry-name")).to_have_text("2024")
    expect(entries.nth(0).locator(".entry-details")).to_have_text("Folder")
    newest = entries.nth(1).locator("a.entry-name")
    expect(newest).to_have_attribute("href", "/files/photos/say%20%22hi%22%E2%80%A8%1B.txt")
    assert newest.evaluate("link => link.textContent") == 'say "hi"\u2028\u001b.txt'
    older = entries.nth(2)
    expect(older.locator("a.entry-name")).to_have_text("Grüße 😀.txt")
    expect(older.locator("a.entry-name")).to_have_attribute("href", "/files/photos/Gr%C3%BC%C3%9Fe%20%F0%9F%98%80.txt")
    expect(older.locator(".entry-details")).to_contain_text("1.1 MiB")
    assert older.locator("time").get_attribute("datetime") == "2023-11-14T22:13:20Z"
    assert not page.problems, page.problems


@pytest.mark.parametrize("answer, status, note", [
    ("upload.json", 201, None),
    # A form refused after its file was stored: the file is saved, and the sentence shows.
    ("upload-stopped.json", 400, "1 file stored; part 2 of the form was refused"),
])
def test_the_upload_report_names_the_stored_file(page, daemon, tmp_path, answer, status, note):
    open_page(page, daemon)
    serve_json(page, is_upload, answer, status=status, method="POST")
    source = tmp_path / "sent.txt"
    source.write_bytes(b"hello\n")
    page.set_input_files("#file-input", [str(source)])
    done = page.locator('.upload[data-state="done"]')
    expect(done).to_have_count(1, timeout=10_000)
    expect(done).to_contain_text("saved as photos/Grüße 😀.txt")
    if note:
        expect(done).to_contain_text(note)
    expect(page.locator('.upload[data-state="failed"]')).to_have_count(0)


def test_an_error_answer_shows_the_servers_sentence(page, daemon, tmp_path):
    open_page(page, daemon)
    serve_json(page, is_upload, "error-400.json", status=400, method="POST")
    source = tmp_path / "refused.txt"
    source.write_bytes(b"hello\n")
    page.set_input_files("#file-input", [str(source)])
    failed = page.locator('.upload[data-state="failed"]')
    expect(failed).to_have_count(1, timeout=10_000)
    expect(failed).to_contain_text('The name "a\\b" must not contain "/" or "\\".')
