"""`filedrop send`, `get` and `ls` over HTTPS against the real daemon (`--tls files`), each
run verifying the certificate for real: with `--ca`, with `--fingerprint` of the CA and of
the leaf, through `known_servers`, and asked on a terminal. The refusals are tested too:
an unknown server in a script, a changed fingerprint, a wrong CA and a host name the
certificate does not name all exit 3, print the fingerprints, and send nothing.

The certificates are made here with the `openssl` command: a CA and an ECDSA P-256 leaf for
127.0.0.1 and localhost, served as a chain (leaf, then CA) as filedrop's `auto` serves it.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest

from conftest import FILEDROP_BIN, parse_listen_addresses
from test_cli import client_env, run, sha256

REFUSED = 3


def openssl(*args: str, cwd: Path) -> str:
    return subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def fingerprint(certificate: Path) -> str:
    """`AB:CD:...` as `openssl x509 -fingerprint -sha256` prints it."""
    line = openssl("x509", "-in", str(certificate), "-noout", "-fingerprint", "-sha256", cwd=certificate.parent)
    return line.strip().split("=", 1)[1]


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    key = directory / f"{name}.key"
    certificate = directory / f"{name}.crt"
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key), cwd=directory)
    openssl("req", "-x509", "-new", "-key", str(key), "-sha256", "-days", "30", "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-out", str(certificate), cwd=directory)
    return certificate, key


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("tls")
    ca, ca_key = make_ca(directory, "filedrop-test-ca")
    other_ca, _ = make_ca(directory, "another-ca")
    leaf_key = directory / "leaf.key"
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(leaf_key), cwd=directory)
    openssl("req", "-new", "-key", str(leaf_key), "-subj", "/CN=localhost", "-out", "leaf.csr", cwd=directory)
    (directory / "leaf.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "leaf.csr", "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
            "-days", "10", "-sha256", "-extfile", "leaf.ext", "-out", "leaf.crt", cwd=directory)
    chain = directory / "chain.pem"
    chain.write_text((directory / "leaf.crt").read_text() + ca.read_text())
    return {"ca": ca, "leaf": directory / "leaf.crt", "chain": chain, "key": leaf_key, "other_ca": other_ca}


class HTTPSDaemon:
    """The daemon with `--tls files` and its HTTPS addresses (from X_FILEDROP_HTTPS_LISTEN)."""

    def __init__(self, daemon):
        self.daemon = daemon
        addresses = parse_listen_addresses(daemon.notification_value("X_FILEDROP_HTTPS_LISTEN") or "")
        assert addresses, f"no X_FILEDROP_HTTPS_LISTEN in {daemon.notifications}"
        self.v4 = next(port for host, port in addresses if ":" not in host)
        self.v6 = next((port for host, port in addresses if ":" in host), None)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.v4}"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.v4}"


@pytest.fixture
def https(daemon_factory, certificates) -> HTTPSDaemon:
    daemon = daemon_factory("--tls", "files", "--tls-cert", str(certificates["chain"]),
                            "--tls-key", str(certificates["key"]),
                            "--https-listen", "127.0.0.1:0", "--https-listen", "[::1]:0")
    return HTTPSDaemon(daemon)


def random_file(path: Path, size: int) -> Path:
    path.write_bytes(os.urandom(size))
    return path


def env_for(tmp_path: Path, url: str) -> dict[str, str]:
    env = client_env(tmp_path, url)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


def known_servers(tmp_path: Path) -> Path:
    return tmp_path / "config" / "filedrop" / "known_servers"


def round_trip(tmp_path: Path, https: HTTPSDaemon, trust: list[str], name: str, size: int = 3 << 20,
               method: str = "automatic", url: str | None = None):
    env = env_for(tmp_path, url or https.url)
    source = random_file(tmp_path / name, size)
    code, out, err, _ = run(["send", str(source), "--method", method, *trust], env, tmp_path)
    assert code == 0, err
    assert f"sent {name} {size} bytes" in out
    assert sha256(https.daemon.save_dir / name) == sha256(source)
    copy = tmp_path / f"copy-{name}"
    code, out, err, _ = run(["get", name, "-o", str(copy), *trust], env, tmp_path)
    assert code == 0, err
    assert sha256(copy) == sha256(source)


@pytest.mark.parametrize("method", ["multipart", "put", "tus"])
def test_send_and_get_with_the_ca(tmp_path, https, certificates, method):
    round_trip(tmp_path, https, ["--ca", str(certificates["ca"])], f"with-ca-{method}.bin", method=method)


def test_the_ca_also_works_for_the_name_localhost(tmp_path, https, certificates):
    round_trip(tmp_path, https, ["--ca", str(certificates["ca"])], "by-name.bin", size=1 << 20,
               url=f"https://localhost:{https.v4}")


@pytest.mark.parametrize("which", ["ca", "leaf"])
@pytest.mark.parametrize("form", ["colons", "hex"])
def test_send_and_get_with_a_fingerprint(tmp_path, https, certificates, which, form):
    pin = fingerprint(certificates[which])
    if form == "hex":
        pin = pin.replace(":", "").lower()
    round_trip(tmp_path, https, ["--fingerprint", pin], f"pinned-{which}-{form}.bin")


def test_a_fingerprint_of_neither_is_refused_with_what_was_seen(tmp_path, https, certificates):
    env = env_for(tmp_path, https.url)
    source = random_file(tmp_path / "nope.bin", 1000)
    code, _, err, _ = run(["send", str(source), "--fingerprint", fingerprint(certificates["other_ca"])], env, tmp_path)
    assert code == REFUSED, err
    assert fingerprint(certificates["ca"]) in err and fingerprint(certificates["leaf"]) in err
    assert not (https.daemon.save_dir / "nope.bin").exists()


def test_an_unknown_server_in_a_script_exits_3_with_the_fingerprint(tmp_path, https, certificates):
    env = env_for(tmp_path, https.url)
    source = random_file(tmp_path / "unknown.bin", 1000)
    code, out, err, _ = run(["send", str(source)], env, tmp_path)
    assert code == REFUSED, err
    ca_print = fingerprint(certificates["ca"])
    assert ca_print in err
    assert f"--fingerprint {ca_print}" in err and "--ca FILE" in err
    assert out == ""
    assert not (https.daemon.save_dir / "unknown.bin").exists()
    assert not known_servers(tmp_path).exists(), "a script must not add a server"


@pytest.mark.parametrize("which", ["ca", "leaf"])
def test_a_known_server_needs_no_option(tmp_path, https, certificates, which):
    entry = known_servers(tmp_path)
    entry.parent.mkdir(parents=True)
    entry.write_text(f"# mine\n{https.address} {fingerprint(certificates[which])}  test server\n")
    round_trip(tmp_path, https, [], f"known-{which}.bin", size=1 << 20)
    code, out, err, _ = run(["ls"], env_for(tmp_path, https.url), tmp_path)
    assert code == 0, err
    assert f"known-{which}.bin" in out


def test_a_changed_fingerprint_is_refused_loudly(tmp_path, https, certificates):
    entry = known_servers(tmp_path)
    entry.parent.mkdir(parents=True)
    entry.write_text(f"# mine\n\n{https.address} {fingerprint(certificates['other_ca'])}\n")
    env = env_for(tmp_path, https.url)
    source = random_file(tmp_path / "changed.bin", 1000)
    code, _, err, _ = run(["send", str(source)], env, tmp_path)
    assert code == REFUSED, err
    assert "SERVER IDENTIFICATION HAS CHANGED" in err
    assert f"remove line 3 of {entry}" in err
    assert fingerprint(certificates["ca"]) in err
    assert not (https.daemon.save_dir / "changed.bin").exists()


def test_a_wrong_ca_fails_and_sends_nothing(tmp_path, https, certificates):
    env = env_for(tmp_path, https.url)
    source = random_file(tmp_path / "wrong-ca.bin", 1000)
    code, _, err, _ = run(["send", str(source), "--ca", str(certificates["other_ca"])], env, tmp_path)
    assert code == REFUSED, err
    assert "not trusted" in err
    assert not (https.daemon.save_dir / "wrong-ca.bin").exists()


def test_the_host_name_is_checked_even_with_the_right_ca(tmp_path, https, certificates):
    """The leaf names 127.0.0.1 and localhost, not ::1: the right CA is not enough."""
    if https.v6 is None:
        pytest.skip("no IPv6 loopback")
    for trust in (["--ca", str(certificates["ca"])], ["--fingerprint", fingerprint(certificates["leaf"])]):
        env = env_for(tmp_path, f"https://[::1]:{https.v6}")
        code, _, err, _ = run(["ls", *trust], env, tmp_path)
        assert code == REFUSED, err
        assert "mismatch" in err


def test_trust_options_are_for_https_only(tmp_path, https, certificates):
    env = env_for(tmp_path, https.daemon.url)
    code, _, err, _ = run(["ls", "--ca", str(certificates["ca"])], env, tmp_path)
    assert code == 2
    assert "https://" in err


def test_yes_on_a_terminal_remembers_the_server(tmp_path, https, certificates):
    """stdin and stderr on a pseudo-terminal: the question is asked, `y` pins the CA and
    appends it to known_servers (0600, in a 0700 directory); the next run asks nothing."""
    env = env_for(tmp_path, https.url)
    source = random_file(tmp_path / "asked.bin", 4096)
    controller, terminal = pty.openpty()
    process = subprocess.Popen([str(FILEDROP_BIN), "send", str(source), "--quiet"], stdin=terminal, stderr=terminal,
                               stdout=subprocess.PIPE, env=env, cwd=tmp_path)
    os.close(terminal)
    shown = b""
    deadline = time.monotonic() + 30
    while b"[y/N]" not in shown and time.monotonic() < deadline:
        if select.select([controller], [], [], 1)[0]:
            shown += os.read(controller, 4096)
    assert b"Trust this server? [y/N]" in shown, shown
    assert fingerprint(certificates["ca"]).encode() in shown
    os.write(controller, b"y\n")
    out, _ = process.communicate(timeout=30)
    os.close(controller)
    assert process.returncode == 0, shown
    assert b"sent asked.bin 4096 bytes" in out
    entry = known_servers(tmp_path)
    assert f"{https.address} {fingerprint(certificates['ca'])}" in entry.read_text()
    assert entry.stat().st_mode & 0o777 == 0o600
    assert entry.parent.stat().st_mode & 0o777 == 0o700
    code, out, err, _ = run(["ls"], env, tmp_path)
    assert code == 0, err
    assert "asked.bin" in out


def test_sending_to_the_plain_port_says_to_use_https(tmp_path, https, certificates):
    """The plain port refuses uploads while HTTPS is on: the client says so, and what to type."""
    daemon = https.daemon
    env = env_for(tmp_path, daemon.url)
    source = random_file(tmp_path / "hello.txt", 64)
    code, _, err, _ = run(["send", str(source)], env, tmp_path)
    assert code == 3, err
    assert "the server refused (403)" in err
    assert f"--to https://127.0.0.1:{daemon.https_port}" in err, err
    assert f"{daemon.url}/trust" in err, err
    assert err.count("takes uploads over HTTPS only") == 1, err
    assert not (daemon.save_dir / "hello.txt").exists()
    # Following the advice works.
    code, _, err, _ = run(["send", str(source), "--to", f"https://127.0.0.1:{daemon.https_port}",
                           "--ca", str(certificates["ca"])], env, tmp_path)
    assert code == 0, err
    assert (daemon.save_dir / "hello.txt").read_bytes() == source.read_bytes()
