"""Third-party LocalSend senders from PyPI against the real daemon, across a LAN of two network
namespaces (localsend_lan.py): filedrop with `--localsend` in one, the sender in the other,
multicast on the veth link between them.

The senders (pinned in requirements.txt), and how each treats filedrop's self-signed certificate:
- localsend-cli 0.1.1 (`localsend-cli scan|send`): protocol v2.0. `scan` announces on the
  group and lists whoever answers over UDP or registers over HTTPS; `send` does prepare-upload
  and one upload per file. By design it sends with certificate verification off (a requests
  Session with `verify = False`) and checks no fingerprint, so it would talk to anyone; but
  requests gives REQUESTS_CA_BUNDLE precedence over a session's `verify`, and the test sets it to filedrop's CA, so
  here it verifies filedrop's certificate and address for real. It has no PIN and no cancel.
- localsendd 0.1.1 with its `localsendctl` (protocol v2.2): a LocalSend peer daemon. Its TLS
  layer accepts any self-signed certificate, but it pins the fingerprint a device announced
  (SHA-256 of the certificate's DER, uppercase hex) and refuses a server whose certificate does
  not match it; it sends a client certificate of its own (mutual TLS), sends `?pin=`, and
  cancels with `POST cancel`.
- pylocalsend 0.2.0 is not used: it speaks mDNS and an HTTP API of its own, not LocalSend.

Nothing on our side turns a certificate check off: the test learns filedrop's fingerprint over
a connection that trusts filedrop's own CA (tls-dir) and checks the address.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from localsend_lan import (RECEIVER_ADDRESS, LocalSendd, delete_lan, json_lines, localsend_cli, make_lan,
                           require_root_and_tools)
from tls_support import file_sha256

# Long (a minute or more in all): started first when the tests run in parallel (conftest.py).
pytestmark = pytest.mark.long

LOCALSEND_PORT = 53317
BIG = 500 * 1024 * 1024
# How long a scan waits for answers: the daemon answers within a main-loop wakeup.
SCAN_SECONDS = 3


@pytest.fixture
def lan(request):
    require_root_and_tools("LocalSend sender test")
    network = make_lan(request.node.name[:4].replace("_", ""))
    try:
        yield network
    finally:
        delete_lan(network)


@pytest.fixture(scope="module")
def payload(tmp_path_factory) -> dict[str, Path]:
    """Three files to send: a 500 MiB one, a small one with an awkward name, an empty one."""
    directory = tmp_path_factory.mktemp("payload")
    files = {"big.bin": BIG, "caf\N{LATIN SMALL LETTER E WITH ACUTE} & 😀.txt": 4097, "empty": 0}
    paths = {}
    for name, size in files.items():
        path = directory / name
        with open(path, "wb") as out:
            left = size
            while left:
                chunk = os.urandom(min(left, 1 << 20))
                out.write(chunk)
                left -= len(chunk)
        paths[name] = path
    return paths


@pytest.fixture
def receiver(lan, daemon_factory):
    """Start filedrop with `--localsend` in the receiver namespace: `receiver("--localsend-pin", "1234")`."""

    def start(*args: str):
        daemon = daemon_factory("--localsend", "--mdns=false", *args, fill=False,
                                # LocalSend follows listen: every address of the namespace the test made.
                                listen=["0.0.0.0:0"],
                                command_prefix=["ip", "netns", "exec", lan.receiver])
        # Made by the daemon in its tls-dir: the LocalSend port's certificate comes from it.
        daemon.ca = daemon.workdir / "filedrop-tls" / "ca.crt"
        daemon.fingerprint = served_fingerprint(lan, daemon)
        daemon.alias = f"filedrop on {socket.gethostname()}"
        return daemon

    return start


def served_fingerprint(lan, daemon) -> str:
    """SHA-256 of the DER of the certificate served on the LocalSend port, uppercase hex (the
    form LocalSend devices compare), over a connection from the sender's side that trusts
    filedrop's CA and checks the address: nothing is switched off to learn it."""
    script = ("import hashlib, socket, ssl, sys\n"
              "context = ssl.create_default_context(cafile=sys.argv[1])\n"
              f"raw = socket.create_connection(('{RECEIVER_ADDRESS}', {LOCALSEND_PORT}), 10)\n"
              f"with context.wrap_socket(raw, server_hostname='{RECEIVER_ADDRESS}') as tls:\n"
              "    print(hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest().upper())\n")
    result = subprocess.run(["ip", "netns", "exec", lan.sender, sys.executable, "-c", script, str(daemon.ca)],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def saved(daemon) -> dict[str, str]:
    return {path.name: file_sha256(path) for path in daemon.save_dir.iterdir() if path.is_file()}


# Discovery


def test_localsend_cli_scan_lists_filedrop(lan, receiver, tmp_path):
    daemon = receiver()
    result = localsend_cli(lan, tmp_path / "cli", "scan", "--timeout", str(SCAN_SECONDS), "--json",
                          trust=daemon.ca)
    assert result.returncode == 0, result.stdout + result.stderr
    found = [device for device in json_lines(result.stdout) if device.get("alias") == daemon.alias]
    assert found, f"{daemon.alias!r} not in the scan:\n{result.stdout}\n{daemon.stderr_tail()}"
    assert found[0]["ip"] == RECEIVER_ADDRESS
    assert found[0]["port"] == LOCALSEND_PORT
    assert found[0]["type"] == "headless"


def test_localsendd_lists_filedrop_with_its_fingerprint(lan, receiver, tmp_path):
    daemon = receiver()
    sender = LocalSendd(lan, tmp_path / "localsendd")
    try:
        devices = [device for device in sender.devices(SCAN_SECONDS) if device["alias"] == daemon.alias]
        assert devices, f"{daemon.alias!r} not listed:\n{sender.log()}\n{daemon.stderr_tail()}"
        device = devices[0]
        assert device["fingerprint"] == daemon.fingerprint
        assert device["port"] == LOCALSEND_PORT
        assert device["protocol"] == "https"
        assert device["deviceType"] == "headless"
        assert device["ip"].removeprefix("::ffff:") == RECEIVER_ADDRESS
    finally:
        sender.stop()


def test_filedrop_announces_itself_when_it_starts(lan, receiver, tmp_path):
    """A device already on the network hears filedrop's start-up announcement, without scanning."""
    sender = LocalSendd(lan, tmp_path / "localsendd")
    try:
        daemon = receiver()
        deadline = time.monotonic() + 10
        while True:
            listed = sender.ctl("devices", "--json")
            if daemon.alias in listed.stdout or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert daemon.alias in listed.stdout, f"not heard:\n{listed.stdout}\n{sender.log()}"
    finally:
        sender.stop()


# Sending


def test_localsend_cli_sends_three_files_byte_identical(lan, receiver, payload, tmp_path):
    daemon = receiver()
    result = localsend_cli(lan, tmp_path / "cli", "send", RECEIVER_ADDRESS, *map(str, payload.values()),
                           "--json", trust=daemon.ca, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    events = json_lines(result.stdout)
    assert [event["event"] for event in events if event["event"] in ("sent", "error")] == ["sent"] * 3, result.stdout
    assert saved(daemon) == {name: file_sha256(path) for name, path in payload.items()}


def test_localsendd_sends_three_files_byte_identical(lan, receiver, payload, tmp_path):
    daemon = receiver()
    sender = LocalSendd(lan, tmp_path / "localsendd")
    try:
        # Discovered first, so localsendd pins the fingerprint filedrop announced.
        assert any(device["alias"] == daemon.alias for device in sender.devices(SCAN_SECONDS))
        result = sender.ctl("send", "--to", daemon.alias, "--wait", "--quiet", *map(str, payload.values()), timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr + sender.log()
        assert "Last result: sent" in result.stdout
    finally:
        sender.stop()
    assert saved(daemon) == {name: file_sha256(path) for name, path in payload.items()}


# PIN


def test_a_wrong_pin_is_refused_and_the_right_one_sends(lan, receiver, payload, tmp_path):
    daemon = receiver("--localsend-pin", "4321")
    small = payload["caf\N{LATIN SMALL LETTER E WITH ACUTE} & 😀.txt"]
    sender = LocalSendd(lan, tmp_path / "localsendd")
    try:
        wrong = sender.ctl("send", "--to", RECEIVER_ADDRESS, "--pin", "1234", "--wait", "--quiet", str(small))
        assert wrong.returncode == 1, wrong.stdout + wrong.stderr
        assert "pin_required" in wrong.stdout, wrong.stdout
        assert saved(daemon) == {}
        right = sender.ctl("send", "--to", RECEIVER_ADDRESS, "--pin", "4321", "--wait", "--quiet", str(small))
        assert right.returncode == 0, right.stdout + right.stderr + sender.log()
    finally:
        sender.stop()
    assert saved(daemon) == {small.name: file_sha256(small)}


def test_a_sender_without_the_pin_is_refused(lan, receiver, payload, tmp_path):
    daemon = receiver("--localsend-pin", "4321")
    result = localsend_cli(lan, tmp_path / "cli", "send", RECEIVER_ADDRESS, str(payload["empty"]), "--json",
                          trust=daemon.ca)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "HTTP 401" in result.stdout, result.stdout
    assert saved(daemon) == {}


# Cancel


def test_a_cancelled_session_leaves_nothing(lan, receiver, payload, tmp_path):
    daemon = receiver()
    sender = LocalSendd(lan, tmp_path / "localsendd")
    try:
        sending = sender.ctl_background("send", "--to", RECEIVER_ADDRESS, "--wait", "--quiet", str(payload["big.bin"]))
        deadline = time.monotonic() + 60
        # Cancel once bytes are flowing, so the receiver has a partial file to throw away.
        while True:
            active = sender.status().get("active") or {}
            if active.get("phase") == "transferring" and (active.get("bytesDone") or 0) > 0:
                break
            assert time.monotonic() < deadline and sending.poll() is None, f"no bytes flowed:\n{sender.log()}"
            time.sleep(0.02)
        cancelled = sender.ctl("cancel")
        assert "Cancelled send" in cancelled.stdout, cancelled.stdout + cancelled.stderr
        output, _ = sending.communicate(timeout=60)
        assert sending.returncode == 1, output
        assert "cancelled" in output, output
    finally:
        sender.stop()
    daemon.wait_for_log_lines("localsend session cancelled: 0 file(s) saved, 1 not")
    assert saved(daemon) == {}
    assert daemon.temp_files() == []
