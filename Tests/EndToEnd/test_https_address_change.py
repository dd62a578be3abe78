"""`tls = auto` follows the machine's addresses without a restart: the real daemon runs in a
network namespace this test owns, the test adds (and removes) addresses there, and a
client that connects to a new address within a few seconds gets a certificate valid for
it, verified for real against the CA the daemon made (curl --cacert, Python's ssl with
check_hostname). The daemon keeps serving while its certificate changes under it.

Every client runs inside the namespace (`ip netns exec`); the NOTIFY_SOCKET is an AF_UNIX
path socket, which reaches across network namespaces.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import parse_listen_addresses

# How long a new address may take to appear in the served certificate: the daemon waits
# for things to settle (about 0.5 s) and issues in well under a second.
APPEAR_WITHIN = 10.0

# Runs inside the namespace: one verified TLS connection per call, printing what the client
# saw as JSON. `probe HOST PORT CAFILE` answers {"ok", "error", "san", "status"};
# `loop HOST PORT CAFILE STOPFILE` makes a new verified request every 50 ms, and one on a
# keep-alive connection opened before the loop, until STOPFILE exists.
PROBE = r'''
import http.client, json, os, ssl, sys, time

def context(cafile):
    ctx = ssl.create_default_context(cafile=cafile)
    assert ctx.check_hostname and ctx.verify_mode == ssl.CERT_REQUIRED
    return ctx

def get(connection):
    connection.request("GET", "/config.json")
    response = connection.getresponse()
    response.read()
    return response.status

def probe(host, port, cafile):
    connection = http.client.HTTPSConnection(host, port, timeout=5, context=context(cafile))
    try:
        status = get(connection)
        names = connection.sock.getpeercert().get("subjectAltName", ())
        return {"ok": True, "status": status, "san": [value for _, value in names], "error": None}
    except (OSError, ssl.SSLError) as error:
        return {"ok": False, "status": None, "san": [], "error": f"{type(error).__name__}: {error}"}
    finally:
        connection.close()

def loop(host, port, cafile, stopfile):
    kept = http.client.HTTPSConnection(host, port, timeout=5, context=context(cafile))
    counts = {"new": 0, "kept": 0, "failures": []}
    deadline = time.monotonic() + 60
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        for kind, connection in (("new", None), ("kept", kept)):
            fresh = connection is None
            connection = connection or http.client.HTTPSConnection(host, port, timeout=5, context=context(cafile))
            try:
                status = get(connection)
                if status == 200:
                    counts[kind] += 1
                else:
                    counts["failures"].append(f"{kind}: HTTP {status}")
            except (OSError, ssl.SSLError, http.client.HTTPException) as error:
                counts["failures"].append(f"{kind}: {type(error).__name__}: {error}")
            finally:
                if fresh:
                    connection.close()
        time.sleep(0.05)
    kept.close()
    return counts

command, host, port, cafile, *rest = sys.argv[1:]
if command == "probe":
    print(json.dumps(probe(host, int(port), cafile)))
else:
    print(json.dumps(loop(host, int(port), cafile, rest[0])))
'''


def ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


def short_form(name: str) -> str:
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


@pytest.fixture
def netns():
    """A network namespace of our own with the loopback up; deleted in teardown, whatever
    happened."""
    if os.geteuid() != 0:
        pytest.skip("address-change test NOT RUN: not root, and `ip netns add` needs root")
    if shutil.which("ip") is None:
        pytest.skip("address-change test NOT RUN: the ip command is missing (apt-get install iproute2)")
    name = f"fdaddr-{os.getpid()}"
    subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=10)
    ip("netns", "add", name)
    try:
        ip("-n", name, "link", "set", "lo", "up")
        yield name
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=10)


class NamespacedDaemon:
    """The daemon running in the namespace, and clients that reach it from inside it."""

    def __init__(self, namespace: str, daemon, tls_dir: Path, probe_script: Path):
        self.namespace = namespace
        self.daemon = daemon
        self.ca = tls_dir / "ca.crt"
        self.probe_script = probe_script
        addresses = parse_listen_addresses(daemon.notification_value("X_FILEDROP_HTTPS_LISTEN") or "")
        assert addresses, f"no X_FILEDROP_HTTPS_LISTEN in {daemon.notifications}"
        self.port = addresses[0][1]

    def inside(self, *command: str, timeout: float = 15) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.namespace, *command],
                              capture_output=True, text=True, timeout=timeout)

    def probe(self, host: str) -> dict:
        """What a verifying client saw; IP names in the SAN list in their short form (Python's
        ssl writes IPv6 out in full: 0:0:0:0:0:0:0:1)."""
        result = self.inside(sys.executable, str(self.probe_script), "probe", host, str(self.port), str(self.ca))
        assert result.returncode == 0, result.stderr
        seen = json.loads(result.stdout)
        seen["san"] = [short_form(name) for name in seen["san"]]
        return seen

    def curl(self, host: str) -> subprocess.CompletedProcess:
        """curl verifying the certificate against the daemon's CA (and nothing else)."""
        url_host = f"[{host}]" if ":" in host else host
        return self.inside("curl", "-sS", "--max-time", "5", "--cacert", str(self.ca), "-o", "/dev/null",
                           "-w", "%{http_code}", f"https://{url_host}:{self.port}/")

    def add(self, address: str):
        ip("-n", self.namespace, "addr", "add", address, "dev", "lo", *(["nodad"] if ":" in address else []))

    def delete(self, address: str):
        ip("-n", self.namespace, "addr", "del", address, "dev", "lo")

    def served_names(self) -> list[str]:
        """The SAN list of the certificate served now, fetched over a verified connection
        to 127.0.0.1 (always in the certificate)."""
        seen = self.probe("127.0.0.1")
        assert seen["ok"], seen["error"]
        return seen["san"]

    def wait_until_verified(self, host: str) -> float:
        """Seconds until a verified connection to `host` succeeds; fails after APPEAR_WITHIN."""
        started = time.monotonic()
        last = None
        while time.monotonic() - started < APPEAR_WITHIN:
            last = self.probe(host)
            if last["ok"]:
                assert last["status"] == 200
                assert host in last["san"]
                return time.monotonic() - started
            time.sleep(0.1)
        pytest.fail(f"no certificate valid for {host} within {APPEAR_WITHIN}s; last attempt: {last}\n"
                    + self.daemon.stderr_tail())


@pytest.fixture
def served(netns, daemon_factory, tmp_path) -> NamespacedDaemon:
    tls_dir = tmp_path / "tls"
    probe_script = tmp_path / "probe.py"
    probe_script.write_text(PROBE)
    daemon = daemon_factory("--tls", "auto", "--tls-dir", str(tls_dir), "--https-listen", "[::]:0",
                            listen=["127.0.0.1:0"], fill=False,
                            command_prefix=["ip", "netns", "exec", netns])
    return NamespacedDaemon(netns, daemon, tls_dir, probe_script)


def test_a_new_address_gets_a_certificate_within_seconds(served):
    names = served.served_names()
    assert "127.0.0.1" in names and "::1" in names, names
    assert "10.77.0.1" not in names and "fd77::1" not in names, names

    served.add("10.77.0.1/32")
    served.add("fd77::1/128")
    took_v4 = served.wait_until_verified("10.77.0.1")
    took_v6 = served.wait_until_verified("fd77::1")
    print(f"certificate valid for 10.77.0.1 after {took_v4:.2f}s, then for fd77::1 after {took_v6:.2f}s more")

    for host in ("10.77.0.1", "fd77::1"):
        result = served.curl(host)
        assert result.returncode == 0 and result.stdout == "200", (host, result.stdout, result.stderr)


def test_a_removed_address_leaves_and_another_arrives_while_serving(served, tmp_path):
    served.add("10.77.0.1/32")
    served.wait_until_verified("10.77.0.1")

    stop = tmp_path / "stop-loop"
    loop = subprocess.Popen(["ip", "netns", "exec", served.namespace, sys.executable, str(served.probe_script),
                             "loop", "127.0.0.1", str(served.port), str(served.ca), str(stop)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        served.delete("10.77.0.1/32")
        served.add("10.77.0.2/32")
        served.wait_until_verified("10.77.0.2")
        # Issued after both changes settled: the address that left is no longer named.
        assert "10.77.0.1" not in served.served_names()
        refused = served.curl("10.77.0.1")
        assert refused.returncode != 0, "10.77.0.1 is gone: nothing should answer there"
        time.sleep(0.5)
    finally:
        stop.touch()
        out, err = loop.communicate(timeout=20)
    assert loop.returncode == 0, err
    counts = json.loads(out)
    assert counts["failures"] == [], counts
    assert counts["new"] >= 5 and counts["kept"] >= 5, counts
    assert served.daemon.process.poll() is None, "the daemon must keep running"
