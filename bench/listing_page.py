#!/usr/bin/env python3
"""Opens filedrop's page on a folder in headless Chromium (Debian's, driven by Playwright),
waits for its first rows, then scrolls the list to its end, and prints one JSON line: how
long the first rows took, how many rows were reached, and the long tasks (PerformanceObserver
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
SCROLL_STEP_PX = 4000
MAX_STEPS = 5000
DEADLINE_SECONDS = 180
LONG_TASK_LIMIT_MS = 200

OBSERVER = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: 'longtask', buffered: true });
"""

ROWS = "document.querySelectorAll('#file-list .entry').length"


def main():
    url, expected = sys.argv[1], int(sys.argv[2])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.add_init_script(OBSERVER)
            started = time.monotonic()
            page.goto(url)
            page.wait_for_function(f"{ROWS} > 0", timeout=DEADLINE_SECONDS * 1000)
            first_rows = time.monotonic() - started
            # The summary counts every entry (numbers without grouping) once the whole listing arrived.
            page.wait_for_function(f"document.getElementById('listing-summary').textContent.includes('{expected}')",
                                   timeout=DEADLINE_SECONDS * 1000)
            listed = time.monotonic() - started
            rows = 0
            for _ in range(MAX_STEPS):
                if time.monotonic() - started > DEADLINE_SECONDS:
                    break
                page.evaluate(f"window.scrollBy(0, {SCROLL_STEP_PX})")
                page.wait_for_timeout(20)
                rows = page.evaluate(ROWS)
                if rows >= expected:
                    break
            page.wait_for_timeout(500)
            tasks = page.evaluate("window.__longTasks")
            print(json.dumps({"first_rows_s": round(first_rows, 3), "listed_s": round(listed, 3),
                              "scrolled_s": round(time.monotonic() - started, 3), "rows": rows, "expected": expected,
                              "long_tasks": len(tasks), "longest_ms": round(max(tasks, default=0.0), 1),
                              "over_limit": sum(1 for t in tasks if t > LONG_TASK_LIMIT_MS)}))
        finally:
            browser.close()


if __name__ == "__main__":
    main()
