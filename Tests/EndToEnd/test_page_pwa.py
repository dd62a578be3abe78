"""The page as an installable web app (issue 19): its manifest with the share target, the service
worker that keeps the page shell and never a file, the share POST, and the page over plain HTTP,
where browsers allow no service worker, saying why it cannot be installed.

`http://127.0.0.1:PORT` (the daemon fixture's URL) is a secure context to Chromium, as localhost
is. The non-secure origin is a name, `filedrop.test`, that a browser of this module's own maps
to 127.0.0.1 (`--host-resolver-rules`) and the daemon accepts (`--allowed-hosts`).
"""

import json

import pytest

from conftest import CHROMIUM
from http_raw import fetch
from page_support import (WEB_ROOT, assert_accessible, assert_no_problems, browser_page,  # noqa: F401 (fixture)
                          new_page, open_page, service_worker_shell)

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

SHELL_CACHE = "filedrop-shell-v6"
INSECURE_HOST = "filedrop.test"
SHARE_TARGET = {"action": "/upload.html?share", "method": "POST", "enctype": "multipart/form-data",
                "params": {"files": [{"name": "file", "accept": ["*/*"]}]}}
# What the page prints while it cannot reach the server: config.json, the listing and the QR
# code fail to load, which Chromium logs as console errors.
OFFLINE_ERRORS = ("net::ERR_INTERNET_DISCONNECTED", "net::ERR_CONNECTION_REFUSED", "Failed to load resource")


def wait_for_control(page):
    """Waits for the worker to be active, then reloads: the page is controlled from then on."""
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def cached_paths(page):
    """Every cache of the origin by name, and the path (with its query) of every entry in them."""
    return page.evaluate("""async () => {
        const names = await caches.keys();
        const paths = [];
        for (const name of names) {
            for (const request of await (await caches.open(name)).keys()) {
                const url = new URL(request.url);
                paths.push(url.pathname + url.search);
            }
        }
        return { names, paths };
    }""")


@pytest.fixture
def page(browser_page):
    return browser_page()


def test_the_manifest_has_its_type_icons_and_the_share_target(daemon):
    response = fetch(daemon.url + "/manifest.webmanifest")
    assert response.status == 200
    assert response.header("Content-Type") == "application/manifest+json"
    manifest = json.loads(response.body)
    assert manifest["share_target"] == SHARE_TARGET
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        answer = fetch(daemon.url + icon["src"])
        assert answer.status == 200 and answer.header("Content-Type") == icon["type"], icon
        if icon["type"] == "image/png":
            # The PNG header's IHDR chunk: width and height, big-endian, at bytes 16-24.
            width, height = (int.from_bytes(answer.body[offset:offset + 4], "big") for offset in (16, 20))
            assert f"{width}x{height}" == icon["sizes"], icon
    # The page links it; so does the worker's shell.
    assert b'<link rel="manifest" href="manifest.webmanifest">' in fetch(daemon.url + "/").body
    assert "/manifest.webmanifest" in service_worker_shell()


def test_chromium_parses_the_manifest_without_errors(page, daemon):
    open_page(page, daemon)
    session = page.context.new_cdp_session(page)
    answer = session.send("Page.getAppManifest")
    assert answer["url"] == daemon.url + "/manifest.webmanifest"
    assert answer["errors"] == [], answer["errors"]
    assert json.loads(answer["data"])["share_target"] == SHARE_TARGET
    assert_no_problems(page)


def test_chromium_finds_the_page_installable(chromium, daemon, tmp_path):
    """Chromium's own installability check (manifest, icons, a worker with a fetch handler). A
    persistent profile: in the incognito-like contexts of the other tests it says `in-incognito`."""
    context = chromium.browser_type.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        open_page(page, daemon)
        wait_for_control(page)
        answer = page.context.new_cdp_session(page).send("Page.getInstallabilityErrors")
        assert answer["installabilityErrors"] == [], answer
    finally:
        context.close()


def test_the_shell_lists_every_file_of_the_web_root():
    """Nothing the page loads is left to the network when offline, and nothing else is kept
    (`/` is index.html, with its language's strings in it; the worker itself, the manifest's PNG
    icons, the server pages' favicon.ico and the catalogues the server reads are not the page's;
    tus.js and share.js are loaded only to send, which needs the network; first-visit.js belongs
    to the plain-HTTP trust page, which is never the installed app)."""
    served = {"/" + path.name for path in WEB_ROOT.iterdir() if path.is_file() and not path.name.startswith("i18n-")}
    assert set(service_worker_shell()) == served - {"/index.html", "/sw.js", "/icon-192.png", "/icon-512.png",
                                                    "/favicon.ico", "/tus.js", "/share.js", "/first-visit.js"} | {"/"}


def test_the_worker_controls_the_page_and_keeps_the_shell_only(page, daemon):
    (daemon.save_dir / "kept-out.txt").write_bytes(b"never in a cache\n")
    open_page(page, daemon)
    wait_for_control(page)
    expect(page.locator("#file-list")).to_contain_text("kept-out.txt")
    # What the page asks for besides its shell goes to the network, never into a cache.
    page.evaluate("() => Promise.all(['files/kept-out.txt', 'config.json', 'files/?zip', 'qr.svg']"
                  ".map((url) => fetch(url).then((response) => response.arrayBuffer())))")
    kept = cached_paths(page)
    assert kept["names"] == [SHELL_CACHE]
    assert sorted(kept["paths"]) == sorted(service_worker_shell())
    assert not [path for path in kept["paths"] if path.startswith("/files") or "config.json" in path or "?" in path]
    assert page.evaluate("() => document.getElementById('install-note').hidden")
    assert_no_problems(page)


def test_the_shell_opens_offline(page, daemon_factory):
    daemon = daemon_factory()
    open_page(page, daemon)
    wait_for_control(page)
    page.context.set_offline(True)
    # The daemon gone too: whatever Playwright's offline mode lets a worker do, nothing answers.
    daemon.stop()
    try:
        page.reload()
        expect(page.locator("#dropzone")).to_be_visible()
        expect(page.locator("#title")).to_have_text("filedrop")
        # The words the script writes are in the kept page (the folder files go into).
        expect(page.locator("#destination-folder")).to_have_text("All files")
        assert page.evaluate("() => navigator.serviceWorker.controller !== null")
    finally:
        page.context.set_offline(False)
    assert_no_problems(page, allowed=OFFLINE_ERRORS)


def add_share_form(page):
    """The form Chromium submits for "Share -> filedrop": a navigation POSTing
    multipart/form-data to the manifest's action, the shared files in the field `file`."""
    page.evaluate("""(target) => {
        const form = document.createElement('form');
        form.id = 'share-form';
        form.method = target.method;
        form.action = target.action;
        form.enctype = target.enctype;
        const input = document.createElement('input');
        input.type = 'file';
        input.name = target.params.files[0].name;
        input.id = 'share-input';
        input.multiple = true;
        form.append(input);
        document.body.append(form);
    }""", SHARE_TARGET)


def test_a_share_goes_through_the_pages_queue(page, daemon, tmp_path):
    """With the worker in control, the share shows in the page's own queue: progress, the
    result, the listing; the files were kept by the worker, not posted to the server."""
    shared = [tmp_path / "shared photo.jpg", tmp_path / "second.png"]
    for number, path in enumerate(shared):
        path.write_bytes(b"\xff\xd8\xff shared from the gallery %d\n" % number)
    before = {path.name for path in daemon.save_dir.iterdir()}
    open_page(page, daemon)
    wait_for_control(page)
    add_share_form(page)
    page.set_input_files("#share-input", [str(path) for path in shared])
    with page.expect_request(lambda request: request.url.endswith("/upload.html?share")) as posted, \
            page.expect_navigation(url=lambda url: url.endswith("/?shared")):
        page.evaluate("() => document.getElementById('share-form').submit()")
    # The worker answered the share (with the redirect to the page); the server never saw it.
    assert posted.value.response().from_service_worker
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    expect(page.locator("#queue")).to_contain_text("shared photo.jpg")
    expect(page.locator("#file-list")).to_contain_text("second.png", timeout=10_000)
    for path in shared:
        assert (daemon.save_dir / path.name).read_bytes() == path.read_bytes()
    # The address lost `?shared`: a reload sends nothing again.
    assert page.evaluate("() => location.search") == ""
    page.reload()
    page.wait_for_function("() => document.getElementById('phone-url').textContent !== ''")
    expect(page.locator(".upload")).to_have_count(0)
    assert {path.name for path in daemon.save_dir.iterdir()} - before == {path.name for path in shared}
    assert_accessible(page)
    assert_no_problems(page)


def test_a_share_without_the_worker_lands_through_the_form(browser_page, daemon, tmp_path):
    """Before the worker runs (or in between updates) the share's POST reaches the server's
    form handler, whose result page lists what was saved."""
    page = browser_page(service_workers="block")
    shared = tmp_path / "shared photo.jpg"
    shared.write_bytes(b"\xff\xd8\xff shared from the gallery\n")
    open_page(page, daemon)
    add_share_form(page)
    page.set_input_files("#share-input", str(shared))
    with page.expect_request(lambda request: request.url.endswith("/upload.html?share")) as posted, \
            page.expect_navigation():
        page.evaluate("() => document.getElementById('share-form').submit()")
    request = posted.value
    assert request.method == "POST"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert request.all_headers().get("sec-fetch-site") == "same-origin"
    response = request.response()
    assert response.status == 200, response.status
    assert response.headers["content-type"].startswith("text/html")
    expect(page.locator("body")).to_contain_text("shared photo.jpg")
    assert (daemon.save_dir / "shared photo.jpg").read_bytes() == shared.read_bytes()
    assert_no_problems(page)


def test_a_share_started_by_the_browser_itself_is_accepted(daemon):
    """An installed app's share, posted by the browser with no page behind it, says
    `Sec-Fetch-Site: none` and `Origin: null` (no website can send that pair)."""
    boundary = "share-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"from-gallery.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\nshared bytes\r\n--{boundary}--\r\n").encode()
    response = fetch(daemon.url + "/upload.html?share", method="POST", body=body,
                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                              "Sec-Fetch-Site": "none", "Origin": "null", "Accept": "text/html"})
    assert response.status == 200, response.body
    assert (daemon.save_dir / "from-gallery.jpg").read_bytes() == b"shared bytes"


@pytest.fixture(scope="module")
def insecure_browser(chromium):
    """A second Chromium (from the same Playwright) that resolves `filedrop.test` to
    127.0.0.1: an origin that is neither HTTPS nor loopback by name, so not a secure context."""
    browser = chromium.browser_type.launch(executable_path=CHROMIUM,
                                           args=[f"--host-resolver-rules=MAP {INSECURE_HOST} 127.0.0.1"])
    yield browser
    browser.close()


@pytest.fixture
def insecure_page(insecure_browser, daemon_factory):
    pages = []

    def make(scheme="light"):
        page = new_page(insecure_browser, "phone", scheme)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.context.close()


def insecure_url(daemon):
    return f"http://{INSECURE_HOST}:{daemon.port}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_over_plain_http_no_worker_and_the_page_says_why(insecure_page, daemon_factory, tmp_path, scheme):
    daemon = daemon_factory("--allowed-hosts", INSECURE_HOST)
    page = insecure_page(scheme)
    page.goto(insecure_url(daemon) + "/")
    page.wait_for_function("() => document.getElementById('phone-url').textContent !== ''")
    assert page.evaluate("() => window.isSecureContext") is False
    assert page.evaluate("() => 'serviceWorker' in navigator") is False
    note = page.locator("#install-note")
    expect(note).to_be_visible()
    expect(note).to_have_text("Installing this page as an app needs HTTPS.")
    # The page works as before: a file still goes up.
    source = tmp_path / f"plain-{scheme}.txt"
    source.write_bytes(b"sent over plain HTTP\n")
    page.set_input_files("#file-input", str(source))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    assert (daemon.save_dir / source.name).read_bytes() == source.read_bytes()
    assert_accessible(page)
    assert_no_problems(page)


def test_over_plain_http_with_https_on_the_note_links_to_trust(insecure_page, daemon_factory):
    daemon = daemon_factory("--allowed-hosts", INSECURE_HOST)
    page = insecure_page()
    config = json.loads(fetch(daemon.url + "/config.json").body)
    config["https"] = {"secure": False, "port": 8443, "url": "https://192.168.1.5:8443/", "localCA": True}
    page.route("**/config.json", lambda route: route.fulfill(status=200, content_type="application/json",
                                                             body=json.dumps(config)))
    page.goto(insecure_url(daemon) + "/")
    note = page.locator("#install-note")
    expect(note).to_be_visible()
    expect(note).to_have_text("Installing this page as an app needs HTTPS (how to set it up).")
    expect(note.locator("a")).to_have_attribute("href", "trust")
    assert_accessible(page)
    assert_no_problems(page)
