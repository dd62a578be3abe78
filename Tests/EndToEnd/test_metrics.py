"""`GET /metrics` (issue 21): the real daemon serves the Prometheus text format, Debian's
`promtool check metrics` accepts it, and every counter equals what the test did - a known
mix of form uploads, PUTs, a resumable upload, a 413, a 401 and some page loads.

`metrics-access` modes are checked from a peer that is not loopback: the daemon runs in a
network namespace this test owns, with a second address on its loopback device; a client
connecting from that address is, to the daemon, a peer on the LAN.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import time
from urllib.parse import urljoin

import pytest

from http_raw import RawConnection, fetch
from test_access import PASSWORD, basic, multipart, password_hash

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
MAX_UPLOAD = 1 << 20


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample by name and label set; fails on a line that is neither a sample nor a
    HELP/TYPE comment, and on a family without both."""
    samples: dict[tuple[str, frozenset], float] = {}
    helped, typed = set(), set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split(" ")[2])
        elif line.startswith("# TYPE "):
            typed.add(line.split(" ")[2])
        else:
            match = SAMPLE.match(line)
            assert match, f"not a sample line: {line!r}"
            name, labels, value = match.groups()
            samples[(name, frozenset(LABEL.findall(labels or "")))] = float(value)
    assert helped == typed, helped ^ typed
    return samples


def value(samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    assert key in samples, f"no sample {name}{labels}"
    return samples[key]


def family_total(samples, name: str) -> float:
    return sum(number for (sample, _), number in samples.items() if sample == name)


def scrape(daemon) -> tuple[str, dict]:
    response = fetch(daemon.url + "/metrics")
    assert response.status == 200, response.body
    assert response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8"
    text = response.body.decode("utf-8")
    return text, parse(text)


def scrape_after(daemon, requests: int) -> tuple[str, dict]:
    """A scrape that counts `requests` finished requests: each is counted right after its
    response is written, by its own loop, which may be a moment after the client read it."""
    deadline = time.monotonic() + 5
    while True:
        text, samples = scrape(daemon)
        if family_total(samples, "filedrop_http_request_duration_seconds_count") >= requests or time.monotonic() > deadline:
            return text, samples
        time.sleep(0.05)


def promtool_check(text: str):
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool check NOT RUN: promtool is missing (apt-get install prometheus; make test installs it)")
    done = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True, timeout=30)
    assert done.returncode == 0, (done.stdout + done.stderr).decode()


def tus_upload(daemon, content: bytes, chunk: int) -> int:
    """Creation, then one PATCH per chunk; returns how many requests that took."""
    name = base64.b64encode(b"resumable.bin").decode()
    created = fetch(daemon.url + "/files/", "POST", {"Tus-Resumable": "1.0.0", "Upload-Length": str(len(content)),
                                                     "Upload-Metadata": f"filename {name}"})
    assert created.status == 201, created.body
    location = urljoin(daemon.url, created.header("Location"))
    requests = 1
    for offset in range(0, len(content), chunk):
        patched = fetch(location, "PATCH", {"Tus-Resumable": "1.0.0", "Upload-Offset": str(offset),
                                                         "Content-Type": "application/offset+octet-stream"},
                        body=content[offset:offset + chunk])
        assert patched.status == 204, patched.body
        requests += 1
    return requests


def test_counters_match_what_the_test_did_and_promtool_accepts_them(daemon_factory):
    daemon = daemon_factory("--access", "drop", "--password-hash", password_hash(),
                            "--max-upload-size", str(MAX_UPLOAD), fill=False)
    text, before = scrape(daemon)
    promtool_check(text)
    assert family_total(before, "filedrop_uploads_total") == 0
    assert value(before, "filedrop_http_request_duration_seconds_count", route="metrics") == 0

    form_files = [b"first form file\n", b"x" * 70_000, b"third\n"]
    for content in form_files[:2]:
        headers, body = multipart(f"form{len(content)}.txt", content)
        assert fetch(daemon.url + "/upload", "POST", headers, body).status in (200, 201)
    # Two parts in one request: two uploads.
    boundary = "TwoParts"
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\r\n".encode()
                    + content + b"\r\n" for name, content in (("a.txt", form_files[2]), ("b.txt", form_files[2])))
    body += f"--{boundary}--\r\n".encode()
    assert fetch(daemon.url + "/upload", "POST", {"Content-Type": f"multipart/form-data; boundary={boundary}"},
                 body).status in (200, 201)
    form_sizes = [len(form_files[0]), len(form_files[1]), len(form_files[2]), len(form_files[2])]

    put_sizes = [5, 100_000]
    for index, size in enumerate(put_sizes):
        assert fetch(f"{daemon.url}/files/put{index}.bin", "PUT", body=os.urandom(size)).status == 201

    tus_content = os.urandom(300_000)
    tus_requests = tus_upload(daemon, tus_content, chunk=128 * 1024)

    # 413 from the head alone: the body is never sent.
    connection = RawConnection.open(("127.0.0.1", daemon.port))
    try:
        refused = connection.request("PUT", "/files/too-big.bin", headers=[
            ("Content-Length", str(MAX_UPLOAD + 1)), ("Expect", "100-continue")])
        assert refused.status == 413
    finally:
        connection.close()
    # The listing needs the password in a drop box.
    assert fetch(daemon.url + "/files/").status == 401
    page_loads = 3
    for target in ["/", "/", "/config.json"][:page_loads]:
        assert fetch(daemon.url + target).status == 200

    counts = {"page": page_loads, "form_upload": 3, "put_upload": len(put_sizes) + 1, "tus_upload": tus_requests,
              "listing": 1, "metrics": 1}
    text, after = scrape_after(daemon, sum(counts.values()))
    promtool_check(text)

    expected_uploads = {("form", "stored"): 4, ("put", "stored"): 2, ("tus", "stored"): 1, ("put", "refused"): 1}
    for method in ("form", "put", "tus"):
        for result in ("stored", "failed", "refused"):
            assert value(after, "filedrop_uploads_total", method=method, result=result) \
                == expected_uploads.get((method, result), 0), (method, result)
    assert value(after, "filedrop_upload_bytes_total", method="form", result="stored") == sum(form_sizes)
    assert value(after, "filedrop_upload_bytes_total", method="put", result="stored") == sum(put_sizes)
    assert value(after, "filedrop_upload_bytes_total", method="tus", result="stored") == len(tus_content)
    for method in ("form", "put", "tus"):
        assert value(after, "filedrop_upload_bytes_total", method=method, result="failed") == 0

    assert value(after, "filedrop_refusals_total", code="413", reason="too_large") == 1
    assert value(after, "filedrop_refusals_total", code="401", reason="unauthorized") == 1
    assert family_total(after, "filedrop_refusals_total") == 2

    duration = "filedrop_http_request_duration_seconds"
    for route, count in counts.items():
        assert value(after, duration + "_count", route=route) == count, route
        assert value(after, duration + "_bucket", route=route, le="+Inf") == count, route
        assert value(after, duration + "_sum", route=route) > 0, route
    assert family_total(after, duration + "_count") == sum(counts.values())

    assert value(after, "filedrop_active_uploads") == 0
    assert value(after, "filedrop_active_connections") >= 1
    assert value(after, "filedrop_tus_pending_uploads") == 0
    assert value(after, "filedrop_tus_pending_bytes") == 0
    assert value(after, "filedrop_save_dir_free_bytes") > 0
    assert value(after, "filedrop_hook_runs_total") == 0
    assert value(after, "process_open_fds") >= 3
    assert value(after, "process_resident_memory_bytes") > 1 << 20
    assert value(after, "process_start_time_seconds") > 1_600_000_000
    stored = {path.name for path in daemon.save_dir.iterdir() if path.is_file()}
    assert len(stored) == 4 + 2 + 1, stored


def test_pending_resumable_upload_shows_in_the_gauges(daemon):
    content = os.urandom(50_000)
    name = base64.b64encode(b"half.bin").decode()
    created = fetch(daemon.url + "/files/", "POST", {"Tus-Resumable": "1.0.0", "Upload-Length": str(len(content)),
                                                     "Upload-Metadata": f"filename {name}"})
    assert created.status == 201
    patched = fetch(urljoin(daemon.url, created.header("Location")), "PATCH",
                    {"Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"},
                    body=content[:20_000])
    assert patched.status == 204
    _, samples = scrape(daemon)
    assert value(samples, "filedrop_tus_pending_uploads") == 1
    assert value(samples, "filedrop_tus_pending_bytes") == 20_000
    assert value(samples, "filedrop_tus_reserved_bytes") == len(content)
    assert value(samples, "filedrop_active_uploads") == 1
    assert value(samples, "filedrop_uploads_total", method="tus", result="stored") == 0


# metrics-access, from a peer that is not loopback

LAN_ADDRESS = "10.78.0.1"


@pytest.fixture
def netns():
    """A network namespace of our own: loopback up, and LAN_ADDRESS on it as a second,
    non-loopback address. Deleted in teardown, whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("metrics-access test NOT RUN: not root, and `ip netns add` needs root")
    if shutil.which("ip") is None:
        pytest.skip("metrics-access test NOT RUN: the ip command is missing (apt-get install iproute2)")
    name = f"fdmetrics-{os.getpid()}"
    subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=10)
    subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True, timeout=10)
    try:
        for args in (["link", "set", "lo", "up"], ["addr", "add", f"{LAN_ADDRESS}/32", "dev", "lo"]):
            subprocess.run(["ip", "-n", name, *args], check=True, capture_output=True, timeout=10)
        yield name
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=10)


def status_inside(namespace: str, daemon, source: str, password: str | None = None, target: str = "/metrics") -> int:
    """The status curl gets for `target`, connecting from `source` inside the namespace."""
    auth = ["-u", f"anyone:{password}"] if password else []
    done = subprocess.run(["ip", "netns", "exec", namespace, "curl", "-sS", "--max-time", "5", "-o", "/dev/null",
                           "-w", "%{http_code}", "--interface", source, *auth,
                           f"http://{source}:{daemon.port}{target}"], capture_output=True, text=True, timeout=15)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.parametrize("mode, from_loopback, from_lan, with_password", [
    (None, 200, 403, 403),          # the default: loopback
    ("loopback", 200, 403, 403),
    ("off", 404, 404, 404),
    ("open", 200, 200, 200),
    ("password", 401, 401, 200),
])
def test_metrics_access_modes(netns, daemon_factory, mode, from_loopback, from_lan, with_password):
    args = ["--access", "private", "--password-hash", password_hash()]
    if mode:
        args += ["--metrics-access", mode]
    daemon = daemon_factory(*args, listen=["0.0.0.0:0"], fill=False, command_prefix=["ip", "netns", "exec", netns])
    assert status_inside(netns, daemon, "127.0.0.1") == from_loopback
    assert status_inside(netns, daemon, LAN_ADDRESS) == from_lan
    assert status_inside(netns, daemon, LAN_ADDRESS, PASSWORD) == with_password
    # metrics-access opens /metrics alone: the rest of a private server still asks for the password.
    assert status_inside(netns, daemon, "127.0.0.1", target="/config.json") == 401


def test_password_mode_without_a_password_hash_does_not_start(tmp_path):
    from conftest import FILEDROP_BIN, WEB_ROOT
    done = subprocess.run([str(FILEDROP_BIN), "--config=", "--metrics-access", "password", "--listen", "127.0.0.1:0",
                           "--save-dir", str(tmp_path), "--web-root", str(WEB_ROOT)], capture_output=True, timeout=30)
    assert done.returncode == 2
    assert b"metrics-access" in done.stderr and b"password-hash" in done.stderr
