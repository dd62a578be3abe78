#!/usr/bin/env python3
"""What a person feels sending one big file: the same file, to the same daemon (fsync on, its
default), in the same run, four ways, in rounds whose order rotates:

- page:  dropped on the page in headless Chromium (a real `drop` event carrying a disk-backed
         File, as a drag from the file manager gives), timed in the page from the drop to the
         row's "done" (web/queue.js; a file of 8 MiB and more goes up with tus, web/tus.js);
- form:  the same browser with JavaScript off posting the page's plain form, timed from the
         click to the result page;
- curl:  `curl -F file=@...` (one multipart request);
- tuspy: tuspy's uploader with its default chunk size (the whole file in one PATCH).

    python3 bench/browser_upload.py [--size-mib 1024] [--rounds 5] [--tmp DIR]

Prints MB/s (10^6 bytes per second) per way (median, min-max) and the ratios of the medians
(issue 23: page >= 0.95x form); not a test. Uses .build/release/filedrop (or $FILEDROP_BIN) on
loopback with a temporary save directory, and Chromium from Debian (/usr/bin/chromium) through
the Playwright of the test environment (.venv, `make test-deps`); without it the row is skipped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from filedrop_process import loopback_daemon, random_file

REPO = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("FILEDROP_BIN", REPO / ".build" / "release" / "filedrop"))
CHROMIUM = "/usr/bin/chromium"
TIMEOUT_SECONDS = 600
# A real drop: the file comes from a hidden input (Playwright hands the browser the path, so
# the File is backed by the disk file, as a dragged one is), then a `drop` event carrying it
# goes to the document, where web/collect.js listens. The clock starts at the drop.
DROP = """(input) => {
    window.benchDoneAt = null;
    new MutationObserver(() => {
        const row = document.querySelector('.upload');
        if (row && window.benchDoneAt === null && row.dataset.state === 'done') window.benchDoneAt = performance.now();
        if (row && row.dataset.state === 'failed') window.benchFailed = row.innerText;
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-state'], childList: true });
    const transfer = new DataTransfer();
    transfer.items.add(input.files[0]);
    window.benchDropAt = performance.now();
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
}"""


def page_drop(browser, url: str, source: Path) -> float:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url + "/")
        page.wait_for_function("() => fetch('config.json').then(r => r.json()).then(c => c.tus === true)")
        page.evaluate("""() => { const input = document.createElement('input'); input.type = 'file';
                                 input.id = 'bench-file'; input.hidden = true; document.body.append(input); }""")
        page.set_input_files("#bench-file", str(source))
        page.evaluate(DROP, page.locator("#bench-file").element_handle())
        page.wait_for_function("() => window.benchDoneAt !== null || window.benchFailed", polling=200,
                               timeout=TIMEOUT_SECONDS * 1000)
        failed = page.evaluate("() => window.benchFailed")
        if failed:
            raise RuntimeError(f"the page says: {failed}")
        return page.evaluate("() => window.benchDoneAt - window.benchDropAt") / 1000
    finally:
        context.close()


def form_post(browser, url: str, source: Path) -> float:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(url + "/")
        page.set_input_files("#file-input", str(source))
        started = time.monotonic()
        with page.expect_navigation(timeout=TIMEOUT_SECONDS * 1000):
            page.locator("#upload-form button[type=submit]").click()
        return time.monotonic() - started
    finally:
        context.close()


def curl_form(url: str, source: Path) -> float:
    started = time.monotonic()
    subprocess.run(["curl", "-sSf", "-o", "/dev/null", "-F", f"file=@{source}", f"{url}/upload.html"], check=True,
                   timeout=TIMEOUT_SECONDS)
    return time.monotonic() - started


def tuspy(url: str, source: Path) -> float:
    from tusclient import client
    started = time.monotonic()
    client.TusClient(url + "/files/").uploader(str(source), metadata={"filename": source.name}).upload()
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tmp", default=None, help="directory for the source file and the save directory")
    options = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
        import tusclient  # noqa: F401
    except ImportError as error:
        print(f"browser_upload: skipped ({error.name} missing: run it with the test environment's Python, "
              f".venv/bin/python, after `make test-deps`)")
        return
    if not Path(CHROMIUM).exists():
        print(f"browser_upload: skipped ({CHROMIUM} missing: apt-get install chromium)")
        return
    size = options.size_mib << 20
    workdir = Path(tempfile.mkdtemp(prefix="browser-upload-", dir=options.tmp))
    try:
        source = random_file(workdir / "holiday.mov", options.size_mib)
        daemon, save_dir = loopback_daemon(BINARY, REPO, workdir)
        url = f"http://127.0.0.1:{daemon.port}"
        rates: dict[str, list[float]] = {"page": [], "form": [], "curl": [], "tuspy": []}
        load_before = " ".join(open("/proc/loadavg").read().split()[:3])
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM)
                ways = {"page": lambda: page_drop(browser, url, source), "form": lambda: form_post(browser, url, source),
                        "curl": lambda: curl_form(url, source), "tuspy": lambda: tuspy(url, source)}
                order = list(ways)
                for round_index in range(options.rounds):
                    shift = round_index % len(order)
                    for way in order[shift:] + order[:shift]:
                        os.sync()
                        elapsed = ways[way]()
                        stored = save_dir / source.name
                        if stored.stat().st_size != size:
                            raise RuntimeError(f"{way}: stored {stored.stat().st_size} bytes of {size}")
                        stored.unlink()
                        rates[way].append(size / elapsed / 1e6)
                        print(f"  round {round_index + 1}: {way:<6} {rates[way][-1]:7.1f} MB/s", file=sys.stderr, flush=True)
                browser.close()
        finally:
            daemon.stop()
        report(options, rates, load_before)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def report(options, rates: dict[str, list[float]], load_before: str):
    medians = {way: statistics.median(values) for way, values in rates.items()}
    load_after = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"\n## One {options.size_mib} MiB file, four ways (fsync on), {options.rounds} round(s), order rotated, loopback")
    print(f"\nload average before: {load_before}; after: {load_after}\n")
    print("| way | MB/s median | min–max |")
    print("|---|---:|---:|")
    titles = {"page": "dropped on the page (Chromium, tus)", "form": "the page's plain form (Chromium, JavaScript off)",
              "curl": "`curl -F`", "tuspy": "tuspy (one PATCH)"}
    for way, values in rates.items():
        print(f"| {titles[way]} | {medians[way]:.1f} | {min(values):.1f}–{max(values):.1f} |")
    page_form = medians["page"] / medians["form"]
    print(f"\n- page ÷ form: {page_form:.2f}x (target ≥ 0.95: {'met' if page_form >= 0.95 else 'not met'})")
    for way in ("page", "form", "tuspy"):
        print(f"- {way} ÷ curl -F: {medians[way] / medians['curl']:.2f}x")


if __name__ == "__main__":
    main()
