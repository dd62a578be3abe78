"""Two network namespaces joined by a veth pair, for LocalSend's multicast discovery: filedrop
in one, a third-party LocalSend sender in the other, each with an address on its end and a
multicast route (224.0.0.0/4) through it, so a datagram to 224.0.0.167 crosses the link as it
crosses a WiFi network. Nothing reaches the host's own network; the namespaces and the link
are deleted in teardown whatever happened.

`LocalSendd` runs localsendd (a LocalSend peer daemon from PyPI) in the sender namespace and
drives it with its own `localsendctl`; `localsend_cli` runs the `localsend-cli` command there.
Each gets a HOME and XDG directories of its own in the test's tmp_path, so their certificates
and state never touch the machine's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

VENV_BIN = Path(sys.executable).parent
RECEIVER_ADDRESS = "10.231.0.1"
SENDER_ADDRESS = "10.231.0.2"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


def require_root_and_tools(what: str) -> None:
    if os.geteuid() != 0:
        pytest.skip(f"{what} NOT RUN: not root, and `ip netns add` needs root (CI runs as root)")
    if shutil.which("ip") is None:
        pytest.skip(f"{what} NOT RUN: the ip command is missing (apt-get install iproute2)")


@dataclass
class LAN:
    receiver: str
    sender: str
    # The veth ends, in the receiver's and the sender's namespace.
    receiver_link: str
    sender_link: str

    def exec_prefix(self, namespace: str) -> list[str]:
        return ["ip", "netns", "exec", namespace]


def make_lan(tag: str) -> LAN:
    """Creates the pair; the caller deletes it with `delete_lan` in a `finally`."""
    suffix = f"{os.getpid() % 100000}"
    # Interface names are at most 15 bytes.
    lan = LAN(receiver=f"fdls-r-{tag}-{suffix}", sender=f"fdls-s-{tag}-{suffix}",
              receiver_link=f"fdr{suffix}", sender_link=f"fds{suffix}")
    delete_lan(lan)
    ip("netns", "add", lan.receiver)
    ip("netns", "add", lan.sender)
    ip("link", "add", lan.receiver_link, "netns", lan.receiver, "type", "veth",
       "peer", "name", lan.sender_link, "netns", lan.sender)
    for namespace, device, address in ((lan.receiver, lan.receiver_link, RECEIVER_ADDRESS),
                                       (lan.sender, lan.sender_link, SENDER_ADDRESS)):
        ip("-n", namespace, "link", "set", "lo", "up")
        ip("-n", namespace, "addr", "add", f"{address}/24", "dev", device)
        ip("-n", namespace, "link", "set", device, "up")
        ip("-n", namespace, "route", "add", "224.0.0.0/4", "dev", device)
    return lan


def delete_lan(lan: LAN) -> None:
    # Deleting a namespace deletes the veth end in it, and with it the peer.
    for namespace in (lan.receiver, lan.sender):
        subprocess.run(["ip", "netns", "delete", namespace], capture_output=True, timeout=10)


def client_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("XDG_", "LOCALSEND"))}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(home), XDG_STATE_HOME=str(home / "state"),
               XDG_CONFIG_HOME=str(home / "config"))
    return env


def json_lines(text: str) -> list[dict]:
    """The JSON objects among a client's output lines (localsend-cli prints a line of its own
    before them when it makes its certificate)."""
    objects = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            objects.append(json.loads(line))
    return objects


def localsend_cli(lan: LAN, home: Path, *args: str, trust: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """`localsend-cli ARGS` in the sender namespace. It sends with a requests Session whose
    `verify` is False, but requests takes REQUESTS_CA_BUNDLE for a request that names no
    `verify` of its own, ahead of the session's (and this machine sets it to the system store,
    where filedrop's CA is not): pointed at `trust`, filedrop's CA, the client checks
    filedrop's certificate and address for real."""
    env = client_env(home)
    env.pop("CURL_CA_BUNDLE", None)
    env["REQUESTS_CA_BUNDLE"] = str(trust)
    return subprocess.run(lan.exec_prefix(lan.sender) + [str(VENV_BIN / "localsend-cli"), *args],
                          capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


class LocalSendd:
    """localsendd in the sender namespace, told what to do through localsendctl."""

    READY_TIMEOUT = 15.0

    def __init__(self, lan: LAN, home: Path):
        self.lan = lan
        self.home = home
        self.env = client_env(home)
        self.log_path = home / "localsendd.log"
        self.socket = home / "localsendd.sock"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                lan.exec_prefix(lan.sender) + [str(VENV_BIN / "localsendd"), "--alias", "sender",
                                                "--download-dir", str(home / "received"),
                                                "--socket", str(self.socket), "--log-time"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + self.READY_TIMEOUT
        while "fingerprint=" not in self.log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"localsendd did not start:\n{self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def ctl(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(self.lan.exec_prefix(self.lan.sender)
                              + [str(VENV_BIN / "localsendctl"), "--socket", str(self.socket), *args],
                              capture_output=True, text=True, timeout=timeout, env=self.env,
                              stdin=subprocess.DEVNULL)

    def ctl_background(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(self.lan.exec_prefix(self.lan.sender)
                                + [str(VENV_BIN / "localsendctl"), "--socket", str(self.socket), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env,
                                stdin=subprocess.DEVNULL)

    def devices(self, scan_seconds: float) -> list[dict]:
        result = self.ctl("devices", "--scan", "--wait-for", str(scan_seconds), "--json")
        assert result.returncode == 0, result.stdout + result.stderr
        return json.loads(result.stdout)

    def status(self) -> dict:
        result = self.ctl("status", "--json")
        assert result.returncode == 0, result.stdout + result.stderr
        return json.loads(result.stdout)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
