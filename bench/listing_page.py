#!/usr/bin/env python3
"""Opens filedrop's page on a folder in headless Chromium (Debian's, driven by Playwright),
waits for its first rows, then scrolls the list to its end (a jump to the bottom of the page
at a time, as dragging the scroll bar down does), and prints one JSON line: how
long the first rows took, whether the end was reached (`rows`: the entries scrolled through), and the long tasks (PerformanceObserver
'longtask', buffered from the page's start) - the longest, and how many went over 200 ms.

Usage: listing_page.py URL EXPECTED_ROWS. Run by bench/listing.py with the Python that has
Playwright (the repository's .venv, `make test-deps`); bounded in scroll steps and time.
"""

import json
import os
import sys
import time

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("FILEDROP_CHROMIUM", "/usr/bin/chromium")
DEADLINE_SECONDS = 180
LONG_TASK_LIMIT_MS = 200

OBSERVER = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push([entry.duration, entry.startTime]);
}).observe({ type: 'longtask', buffered: true });
"""

ROWS = "document.querySelectorAll('#file-list .entry').length"


def wait_until(page, predicate, started):
    """Polls `predicate` (page.evaluate: the page's CSP refuses the eval wait_for_function uses)."""
    while not page.evaluate(predicate):
        if time.monotonic() - started > DEADLINE_SECONDS:
            raise SystemExit(f"not within {DEADLINE_SECONDS} s: {predicate}")
        time.sleep(0.05)


def main():
    url, expected = sys.argv[1], int(sys.argv[2])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.add_init_script(OBSERVER)
            started = time.monotonic()
            page.goto(url)
            wait_until(page, f"() => {ROWS} > 0", started)
            first_rows = time.monotonic() - started
            # The summary counts every entry (numbers without grouping) once the whole listing arrived.
            wait_until(page, f"() => document.getElementById('listing-summary').textContent.includes('{expected}')", started)
            listed = time.monotonic() - started
            listed_at = page.evaluate("() => performance.now()")
            # In the page, once a frame: what a scroll bar dragged to the bottom and held there does.
            # The list is a window over the entries: the end is reached when the last entry has
            # its row (no "show more" item left); `rows` is the number of that entry.
            reached = page.evaluate("""async ({ seconds }) => {
              const list = document.getElementById('file-list');
              const more = () => list.querySelector(':scope > .entry-edge[data-direction="more"]');
              const until = performance.now() + seconds * 1000;
              while (performance.now() < until && more()) {
                window.scrollTo(0, document.documentElement.scrollHeight);
                await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
              }
              return !more();
            }""", {"seconds": max(1, DEADLINE_SECONDS - (time.monotonic() - started))})
            rows = expected if reached else 0
            page.wait_for_timeout(500)
            marks = page.evaluate("() => window.__longTasks")
            tasks = [duration for duration, _ in marks]
            before = [duration for duration, start in marks if start < listed_at]
            print(json.dumps({"first_rows_s": round(first_rows, 3), "listed_s": round(listed, 3),
                              "scrolled_s": round(time.monotonic() - started, 3), "rows": rows, "expected": expected,
                              "long_tasks": len(tasks), "longest_ms": round(max(tasks, default=0.0), 1),
                              "longest_while_loading_ms": round(max(before, default=0.0), 1),
                              "over_limit": sum(1 for t in tasks if t > LONG_TASK_LIMIT_MS)}))
        finally:
            browser.close()


if __name__ == "__main__":
    main()
