"""The page's live "new file" notice (issue 21): files that arrive from elsewhere while
someone looks at the list are named in a polite live region; files the page sent itself
are not news to the person who sent them. The notice rides on the listing's 5 s polling."""

import http.client

import pytest

from page_support import assert_accessible, assert_no_problems, browser_page, expect, open_page

# One poll interval (5 s) and room for a slow machine.
POLL_WAIT_MS = 15_000


@pytest.fixture
def page(browser_page):
    return browser_page("phone")


def put(daemon, name, body):
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    connection.request("PUT", f"/files/{name}", body=body)
    assert connection.getresponse().status == 201
    connection.close()


def test_new_file_notice(page, daemon_factory, tmp_path):
    daemon = daemon_factory(fill=False)
    (daemon.save_dir / "already.txt").write_bytes(b"there before")
    open_page(page, daemon)
    expect(page.locator("#file-list .entry")).to_have_count(1)
    notice = page.locator("#new-files")
    expect(notice).to_have_attribute("role", "status")
    expect(notice).to_be_hidden()

    # The page's own upload is announced as uploaded, not as news.
    own = tmp_path / "mine.txt"
    own.write_bytes(b"from this page")
    page.set_input_files("#file-input", str(own))
    expect(page.locator("#file-list .entry")).to_have_count(2, timeout=POLL_WAIT_MS)
    # The listing that shows it is the one that would have noticed it.
    expect(notice).to_be_hidden()

    put(daemon, "instrument%20run%207.csv", b"a,b\n1,2\n")
    expect(notice).to_have_text("New file: instrument run 7.csv", timeout=POLL_WAIT_MS)
    expect(page.locator("#file-list .entry")).to_have_count(3)
    assert_accessible(page)

    put(daemon, "x1.jpg", b"1")
    put(daemon, "x2.jpg", b"2")
    expect(notice).to_have_text("2 new files: x1.jpg, x2.jpg", timeout=POLL_WAIT_MS)
    assert_no_problems(page)
