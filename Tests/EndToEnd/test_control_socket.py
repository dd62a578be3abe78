"""The control socket (`control-socket`) and `filedrop reload`: the daemon reloads on request
and answers with the outcome, a sentence; `filedrop reload` prints it and exits 0 when the
reload applied, 1 when the running configuration was kept. Only root, the daemon's own user
and members of the socket's group may ask. A reload names the restart-only keys it could not
apply, and one that changes nothing of TLS keeps the certificate."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import FILEDROP_BIN
from http_raw import fetch
from tls_support import peer_fingerprint, wait_until

NOBODY = 65534


@pytest.fixture
def socket_dir():
    """AF_UNIX paths are limited to 108 bytes, so not under pytest's tmp_path; searchable by
    every user (the peer checks run clients as nobody)."""
    path = Path(tempfile.mkdtemp(prefix="fdc-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def start(daemon_factory, tmp_path, socket_dir, config: str, *args: str):
    config_file = tmp_path / "filedrop.conf"
    config_file.write_text(config)
    control = socket_dir / "control.sock"
    daemon = daemon_factory("--config", str(config_file), "--control-socket", str(control), "--mdns=false", *args)
    return daemon, config_file, control


def reload(control: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(FILEDROP_BIN), "reload", "--control-socket", str(control)], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL, env={}, **kwargs)


def ask(control: Path, line: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(str(control))
        client.sendall(line)
        reply = b""
        while not reply.endswith(b"\n"):
            data = client.recv(4096)
            if not data:
                break
            reply += data
    assert reply.count(b"\n") == 1, reply
    return json.loads(reply)


def test_reload_answers_with_the_outcome(daemon_factory, tmp_path, socket_dir):
    daemon, config_file, control = start(daemon_factory, tmp_path, socket_dir, "title = First\n")
    assert control.is_socket()
    assert control.stat().st_mode & 0o777 == 0o660

    config_file.write_text("title = Second\n")
    done = reload(control)
    assert done.returncode == 0, done
    assert done.stdout.strip() == "configuration reloaded"
    assert b"Second" in fetch(daemon.url + "/config.json").body

    # Invalid: the running configuration stays, the exit status says so, and the sentence is
    # the one a person reads, not a dump of the error's fields.
    config_file.write_text("title = Third\naccess = drop\n")
    done = reload(control)
    assert done.returncode == 1, done
    assert 'access mode "drop" needs a password' in done.stderr
    assert "keeping the running configuration" in done.stderr
    assert "StartupError" not in done.stderr and "exitCode" not in done.stderr
    assert "StartupError" not in daemon.stderr_text()
    assert b"Second" in fetch(daemon.url + "/config.json").body

    config_file.write_text("title = Fourth\naccess = bogus\n")
    done = reload(control)
    assert done.returncode == 1, done
    assert 'invalid value "bogus" for access' in done.stderr

    # SIGHUP reloads as before.
    config_file.write_text("title = Fifth\n")
    os.kill(daemon.pid, signal.SIGHUP)
    assert wait_until(lambda: b"Fifth" in fetch(daemon.url + "/config.json").body, 10)


def test_unknown_and_malformed_requests_are_answered_clearly(daemon_factory, tmp_path, socket_dir):
    daemon, _, control = start(daemon_factory, tmp_path, socket_dir, "")
    reply = ask(control, b'{"command":"frobnicate"}\n')
    assert reply == {"ok": False, "message": 'unknown command "frobnicate"; this filedrop answers reload'}
    reply = ask(control, b"reload please\n")
    assert reply["ok"] is False and "not a JSON object" in reply["message"], reply
    reply = ask(control, b'{"verb":"reload"}\n')
    assert reply["ok"] is False and "names no command" in reply["message"], reply
    reply = ask(control, b'{"command":"reload"}\n')
    assert reply == {"ok": True, "message": "configuration reloaded"}
    assert fetch(daemon.url + "/").status == 200


def test_without_the_option_there_is_no_control_socket(daemon_factory, tmp_path, socket_dir):
    daemon = daemon_factory("--mdns=false")
    assert not any(line.startswith("socket:") and "control" in line for line in daemon.open_fds())
    done = reload(socket_dir / "none.sock")
    assert done.returncode == 3, done
    assert "cannot connect to the control socket" in done.stderr and "is filedrop running" in done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="runs clients as another user: needs root")
def test_only_root_the_daemon_user_and_the_group_may_reload(daemon_factory, tmp_path, socket_dir):
    daemon, _, control = start(daemon_factory, tmp_path, socket_dir, "")
    group = control.stat().st_gid

    # The file's mode is the first guard: another user cannot even connect.
    done = reload(control, user=NOBODY, group=NOBODY, extra_groups=[])
    assert done.returncode == 3, done
    assert "Permission denied" in done.stderr, done.stderr

    # A member of the socket's group (a supplementary group) may.
    done = reload(control, user=NOBODY, group=NOBODY, extra_groups=[group])
    assert done.returncode == 0, done
    assert done.stdout.strip() == "configuration reloaded"

    # The peer's credentials are the second guard: with the mode opened up, the daemon
    # still refuses another user.
    control.chmod(0o666)
    done = reload(control, user=NOBODY, group=NOBODY, extra_groups=[])
    assert done.returncode == 1, done
    assert "may not control filedrop" in done.stderr, done.stderr
    assert daemon.process.poll() is None


def test_restart_only_keys_are_named_once_and_the_rest_applies(daemon_factory, tmp_path, socket_dir):
    daemon, config_file, control = start(daemon_factory, tmp_path, socket_dir, "threads = 1\n")
    config_file.write_text("threads = 2\nhead-timeout = 3s\nmax-upload-size = 1K\n")
    done = reload(control)
    assert done.returncode == 0, done
    assert done.stdout.strip() == ("configuration reloaded; head-timeout, threads changed: "
                                   "they take effect at the next restart")
    warnings = [line for line in daemon.stderr_text().splitlines() if "take effect at the next restart" in line
                and "control socket" not in line]
    assert len(warnings) == 1, warnings
    assert "head-timeout, threads changed" in warnings[0]
    # max-upload-size applied.
    refused = fetch(daemon.url + "/files/big.bin", method="PUT", body=b"x" * 2048)
    assert refused.status == 413, refused


def test_help_says_which_keys_need_a_restart():
    text = subprocess.run([str(FILEDROP_BIN), "--help"], capture_output=True, text=True, timeout=10, env={}).stdout
    blocks = {}
    current = None
    for line in text.splitlines():
        if line.startswith("  --"):
            current = line.split()[0].rstrip(",")
            blocks[current] = ""
        elif current:
            blocks[current] += line
    for name in ("--listen", "--https-listen", "--threads", "--max-connections", "--control-socket"):
        assert "Restart to change." in blocks[name], name
    for name in ("--max-upload-size", "--access", "--title", "--log-level", "--access-log", "--save-dir"):
        assert "Restart to change." not in blocks[name], name
    assert "filedrop reload" in text


def test_a_reload_that_changes_nothing_of_tls_keeps_the_certificate(daemon_factory, tmp_path, socket_dir):
    tls_dir = tmp_path / "tls"
    daemon, config_file, control = start(daemon_factory, tmp_path, socket_dir, "", "--tls", "auto",
                                         "--tls-dir", str(tls_dir), "--https-listen", "127.0.0.1:0")
    daemon.ca = tls_dir / "ca.crt"
    before = peer_fingerprint(daemon)
    config_file.write_text("max-upload-size = 5M\n")
    assert reload(control).returncode == 0
    assert peer_fingerprint(daemon) == before
    # A failed reload keeps it too.
    config_file.write_text("access = private\n")
    assert reload(control).returncode == 1
    assert peer_fingerprint(daemon) == before
    issued = [line for line in daemon.stderr_text().splitlines() if "HTTPS (TLS 1.2 and 1.3)" in line]
    assert len(issued) == 1, issued
