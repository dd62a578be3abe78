"""The listing (issue 19): sorted by date, name or size, filtered as you type, with the file
count and total size; images under the size bound get a thumbnail drawn by the browser from
the file itself, lazily; and the whole first load stays under 40 KiB gzipped."""

import base64
import os

import pytest

from http_raw import fetch
from page_support import assert_accessible, assert_no_problems, browser_page, expect, open_page
from test_listing_scale import big_folder

PIXEL_PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
MAX_FIRST_LOAD_GZIPPED = 40 * 1024


@pytest.fixture
def listed(daemon_factory):
    daemon = daemon_factory(fill=False)
    files = {"b-old.txt": (b"b" * 100, 1_600_000_000), "a-new.txt": (b"a" * 3000, 1_700_000_000),
             "pixel.png": (PIXEL_PNG, 1_650_000_000), "huge.jpg": (os.urandom(5 * 1024 * 1024), 1_640_000_000)}
    for name, (content, mtime) in files.items():
        (daemon.save_dir / name).write_bytes(content)
        os.utime(daemon.save_dir / name, (mtime, mtime))
    (daemon.save_dir / "zeta").mkdir()
    (daemon.save_dir / "zeta" / "inside.txt").write_bytes(b"inside")
    return daemon


@pytest.fixture
def page(browser_page):
    return browser_page("desktop")


def names(page):
    return page.locator("#file-list .entry-name").all_inner_texts()


def test_sort_filter_count_and_total(page, listed):
    open_page(page, listed)
    expect(page.locator("#file-list .entry")).to_have_count(5)
    # Folders first; newest first by default.
    assert names(page) == ["zeta", "a-new.txt", "pixel.png", "huge.jpg", "b-old.txt"]
    expect(page.locator("#listing-summary")).to_have_text("1 folder, 4 files, 5 MiB")
    page.locator("#sort").select_option("name")
    assert names(page) == ["zeta", "a-new.txt", "b-old.txt", "huge.jpg", "pixel.png"]
    page.locator("#sort").select_option("size")
    assert names(page) == ["zeta", "huge.jpg", "a-new.txt", "b-old.txt", "pixel.png"]

    page.locator("#filter").press_sequentially("TXT")
    assert names(page) == ["a-new.txt", "b-old.txt"]
    expect(page.locator("#listing-summary")).to_have_text("2 files, 3 KiB (2 of 5 shown)")
    page.locator("#filter").fill("nothing like it")
    expect(page.locator("#files-status")).to_have_text("Nothing here matches “nothing like it”.")
    assert_accessible(page)
    page.locator("#filter").fill("")
    expect(page.locator("#file-list .entry")).to_have_count(5)
    assert_no_problems(page)


def test_small_images_get_a_lazy_thumbnail_of_the_file_itself(page, listed):
    open_page(page, listed)
    expect(page.locator("#file-list .entry")).to_have_count(5)
    thumbnails = page.locator("#file-list img")
    expect(thumbnails).to_have_count(1)
    thumbnail = thumbnails.first
    assert thumbnail.get_attribute("loading") == "lazy"
    assert thumbnail.get_attribute("alt") == ""
    # Asked for once its row is on screen.
    thumbnail.scroll_into_view_if_needed()
    expect(thumbnail).to_have_attribute("src", "/files/pixel.png")
    page.wait_for_function("() => document.querySelector('#file-list img').naturalWidth === 1")
    # The page's CSP lets it draw images from its own origin.
    policy = fetch(listed.url + "/").header("Content-Security-Policy")
    assert "img-src 'self'" in policy
    # Re-sorting keeps the same element: nothing is loaded again.
    page.evaluate("() => { window.kept = document.querySelector('#file-list img'); }")
    page.locator("#sort").select_option("name")
    assert page.evaluate("() => document.querySelector('#file-list img') === window.kept")
    assert_no_problems(page)


def test_the_first_load_weighs_under_40_kib_gzipped(page, daemon):
    loaded = []
    page.on("response", lambda response: loaded.append(response.url))
    open_page(page, daemon)
    page.wait_for_load_state("networkidle")
    total = 0
    for url in {url for url in loaded if url.startswith(daemon.url) and "format=json" not in url}:
        response = fetch(url, headers={"Accept-Encoding": "gzip"})
        assert response.status == 200, url
        total += len(response.body)
    print(f"first load: {total} bytes gzipped over {len(set(loaded))} requests")
    assert total < MAX_FIRST_LOAD_GZIPPED, total


def test_the_servers_own_listing_page_loads_without_a_problem(page, listed):
    """The HTML listing (what a browser without JavaScript browses) asks for /favicon.ico, as
    every page without an icon link does: it is there, so no 404 reaches the console."""
    page.goto(listed.url + "/files/")
    expect(page.locator("body")).to_contain_text("a-new.txt")
    icon = fetch(listed.url + "/favicon.ico")
    assert icon.status == 200 and icon.header("Content-Type") == "image/x-icon"
    assert_no_problems(page)


MANY = 12_000


@pytest.fixture
def many(daemon_factory):
    return big_folder(daemon_factory, "many", MANY, "photo %05d.txt")


def photo(index):
    return f"photo {index:05d}.txt"


# The last row's name, and whether it is no longer `previous` (the window moved on).
LAST_ROW_NAME = "() => [...document.querySelectorAll('#file-list > .entry .entry-name')].pop().textContent"
MOVED_ON = f"(previous) => ({LAST_ROW_NAME})() !== previous"
# Intersection observers report in the rendering steps of the next frames.
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done))))"


def test_a_big_folder_is_shown_as_a_window_of_rows(page, many):
    """12,000 files (two listing pages): all counted, 200 rows at first, 200 more for each
    "Show more" pressed or each time the end scrolls into view, and never more than 1,200 rows
    at once however far it goes."""
    open_page(page, many, "/#folder=%2Ffiles%2Fmany%2F")
    expect(page.locator("#listing-summary")).to_contain_text(f"{MANY} files")
    page.locator("#sort").select_option("name")
    rows = page.locator("#file-list > .entry")
    expect(rows).to_have_count(200)
    # Pressed where it is, as a keyboard or a screen reader presses it: Playwright's click()
    # would scroll the button into view first, and an end scrolled into view brings its batch
    # by itself, so the click would find a new button and bring a second one.
    page.locator("#file-list > .entry-edge button", has_text="Show more").dispatch_event("click")
    expect(rows.nth(200).locator("a.entry-name")).to_be_focused()
    page.evaluate(TWO_FRAMES)
    assert names(page) == [photo(index) for index in range(400)]

    # Scrolled to the end, the window moves on one batch at a time to the folder's last file.
    for _ in range(MANY // 200):
        if page.locator("#file-list > .entry-edge[data-direction=more]").count() == 0:
            break
        previous = page.evaluate(LAST_ROW_NAME)
        page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_function(MOVED_ON, arg=previous, timeout=10_000)
    assert page.locator("#file-list > .entry-edge[data-direction=more]").count() == 0
    shown = names(page)
    assert len(shown) <= 1200
    assert shown == [photo(index) for index in range(MANY - len(shown), MANY)]
    expect(page.locator("#file-list > .entry-edge button", has_text="Show earlier")).to_have_count(1)
    assert_no_problems(page)
