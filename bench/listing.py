"""The `listing` workload (issue 23): a folder of 100,000 files listed by filedrop and by
nginx's autoindex (`autoindex on; autoindex_format json` / `html`), each on a fresh server per
round over the same folder: the time of the JSON and of the HTML listing (median of curl's
time_total over a few requests each), the peak RSS (VmHWM) of filedrop's process and of
nginx's busiest worker, and for filedrop the page: headless Chromium opens it on the folder,
scrolls the list to its end, and reports its longest task (`listing_page.py`).

The files are sparse (sizes spread from 0 to about 4 MiB, nothing written), named like
photos from a camera, and made once per run.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from procstat import tree_pids
from servers import Nginx, RunningServer, free_ports

SERVERS = ("filedrop", "nginx")
LIMIT_MS = 200


def _peak_kib(pid):
    """VmHWM (KiB): the process's resident peak since it started (a fresh server per round)."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
        return int(fields["VmHWM"].split()[0])
    except (OSError, KeyError, ValueError):
        return 0


class AutoindexNginx(Nginx):
    """nginx serving the folder with autoindex, one location per format."""

    def argv(self, root, port, tools):
        (root / "body-temp").mkdir(exist_ok=True)
        config = root / "nginx.conf"
        folder = root / "files" / "big"
        config.write_text(f"""\
user root;
worker_processes auto;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    access_log off;
    sendfile on;
    client_body_temp_path {root}/body-temp;
    server {{
        listen 127.0.0.1:{port};
        root {root}/files;
        location /json/ {{ alias {folder}/; autoindex on; autoindex_format json; }}
        location /html/ {{ alias {folder}/; autoindex on; autoindex_format html; }}
    }}
}}
""")
        return ["nginx", "-c", str(config), "-e", str(root / "error.log"), "-g", "daemon off;"]


class ListingWorkload:
    def __init__(self, quick, work, tools, outcome_type, repo):
        self.count = 20_000 if quick else 100_000
        self.requests = 3 if quick else 5
        self.work = work / "listing"
        self.tools = tools
        self.outcome_type = outcome_type
        self.repo = repo
        self._folder = None

    def folder(self):
        """The shared folder (small.bin for readiness, big/ with the files), made once."""
        if self._folder is None:
            files = self.work / "files"
            big = files / "big"
            stamp = files / f".made-{self.count}"
            if not stamp.exists():
                shutil.rmtree(files, ignore_errors=True)
                big.mkdir(parents=True)
                (files / "small.bin").write_bytes(b"x" * 4096)
                for index in range(self.count):
                    with open(big / f"IMG_{index:06d}.JPG", "wb") as file:
                        file.truncate((index * 7919) % (4 << 20))
                stamp.touch()
            self._folder = files
        return self._folder

    def listing(self, server, run):
        if server.kind.key not in SERVERS:
            return None
        files = self.folder()
        kind = AutoindexNginx() if server.kind.key == "nginx" else server.kind
        root = self.work / server.kind.key
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        (root / "files").symlink_to(files)
        running = RunningServer(kind, root, free_ports(1)[0], self.tools)
        try:
            running.start()
            if server.kind.key == "nginx":
                urls = {"json": running.url("/json/"), "html": running.url("/html/")}
            else:
                urls = {"json": running.url("/files/big/?format=json"), "html": running.url("/files/big/")}
            figures, problems = {}, []
            for form, url in urls.items():
                seconds = []
                for _ in range(self.requests):
                    done = subprocess.run(["curl", "-s", "-o", "/dev/null", "-H", "Accept: text/html" if form == "html" else
                                           "Accept: application/json", "-w", "%{http_code} %{time_total} %{size_download}", url],
                                          capture_output=True, text=True, timeout=120)
                    status, total, size = done.stdout.split()
                    if status != "200" or int(size) < self.count * 40:
                        problems.append(f"{form}: {status}, {size} bytes")
                        break
                    seconds.append(float(total))
                figures[form] = statistics.median(seconds) if seconds else None
            if server.kind.key == "nginx":
                peak = max((_peak_kib(pid) for pid in tree_pids(running.pid)[1:]), default=0)
            else:
                peak = _peak_kib(running.pid)
                figures["page"] = self._page(running)
            figures["peak_rss_kib"] = peak
            return self.outcome_type(0.0, ok=not problems, note="; ".join(problems), extra={"listing": figures})
        finally:
            running.stop()
            shutil.rmtree(root, ignore_errors=True)

    def _page(self, running):
        """listing_page.py under a Python that has Playwright (the repository's .venv), or why not."""
        python = self.repo / ".venv" / "bin" / "python"
        if not python.exists():
            python = Path(sys.executable)
        url = running.url("/#folder=" + "%2Ffiles%2Fbig%2F")
        try:
            done = subprocess.run([str(python), str(Path(__file__).with_name("listing_page.py")), url, str(self.count)],
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return {"error": "timed out"}
        if done.returncode != 0:
            return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:200]}
        return json.loads(done.stdout.strip().splitlines()[-1])


class ListingTables:
    """filedrop and nginx side by side: JSON and HTML time, peak RSS, ratios, targets."""

    def __init__(self, results):
        self.results = results

    def _figures(self, server):
        return [o.extra["listing"] for o in self.results.get(("listing", server), []) if o is not None and o.ok]

    @staticmethod
    def _median(rounds, key):
        values = [r[key] for r in rounds if r.get(key) is not None]
        return statistics.median(values) if values else None

    def lines(self, title):
        mine, theirs = self._figures("filedrop"), self._figures("nginx")
        if not mine or not theirs:
            return []
        out = [f"## {title}", "",
               "Median over rounds of each round's median request; ratios are nginx ÷ filedrop for times (above 1: "
               "filedrop faster) and filedrop ÷ nginx for memory (nginx: its busiest worker's VmHWM). Targets (issue 23): "
               "both listings at least 1.0x nginx, peak RSS no more than nginx's worker, no long task over "
               f"{LIMIT_MS} ms on the page.", "",
               "| figure | filedrop | nginx autoindex | ratio | target |", "|---|---|---|---|---|"]
        for key, label in (("json", "JSON listing s"), ("html", "HTML listing s")):
            a, b = self._median(mine, key), self._median(theirs, key)
            ratio = b / a if a and b else None
            out.append(f"| {label} | {a:.3f} | {b:.3f} | {ratio:.2f}x | {'met' if ratio >= 1.0 else 'not met'} |"
                       if ratio else f"| {label} | - | - | - | - |")
        a, b = self._median(mine, "peak_rss_kib"), self._median(theirs, "peak_rss_kib")
        if a and b:
            out.append(f"| peak RSS MiB | {a / 1024:.1f} | {b / 1024:.1f} | {a / b:.2f} | "
                       f"{'met' if a <= b else 'not met'} |")
        pages = [r["page"] for r in mine if isinstance(r.get("page"), dict)]
        measured = [p for p in pages if "longest_ms" in p]
        if measured:
            longest = max(p["longest_ms"] for p in measured)
            rows = min(p["rows"] for p in measured)
            out.append(f"| page in Chromium: longest task ms (rows scrolled to / entries) | {longest:.0f} "
                       f"({rows:,} / {measured[0]['expected']:,}; first rows "
                       f"{statistics.median(p['first_rows_s'] for p in measured):.2f} s, all listed "
                       f"{statistics.median(p['listed_s'] for p in measured):.2f} s) | n/a | - | "
                       f"{'met' if longest <= LIMIT_MS and rows >= measured[0]['expected'] else 'not met'} |")
        elif pages:
            out.append(f"| page in Chromium | {pages[0].get('error', '?')} | n/a | - | not measured |")
        return out + [""]
