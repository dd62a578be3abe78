"""An outside TLS audit: testssl.sh (Debian's `testssl`) against the daemon's HTTPS port,
verifying our chain with the test CA (`--add-ca`), its JSON findings parsed and checked
against what issue 16 asks: nothing below TLS 1.2 (SSLv2, SSLv3, TLS 1.0, 1.1 not offered),
TLS 1.2 and 1.3 offered; no NULL, anonymous, EXPORT, LOW (DES, RC2, RC4), 3DES/IDEA or CBC
cipher; forward secrecy for every cipher offered; not vulnerable to Heartbleed, CCS,
Ticketbleed, ROBOT, CRIME, POODLE, SWEET32, FREAK, DROWN, LOGJAM, BEAST, LUCKY13, RC4;
secure renegotiation (RFC 5746) and no client-initiated renegotiation.

Only the check groups that matter run (protocols, cipher categories, forward secrecy,
server preferences and defaults, vulnerabilities): about 40 s on this 2-core machine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

TESTSSL = shutil.which("testssl") or shutil.which("testssl.sh")
AUDIT_SECONDS = 240

# Findings about the throwaway test certificate, not about the daemon: it lives two days and
# has no CRL or OCSP URI on purpose; nobody publishes CAA records for localhost.
CERTIFICATE_FINDINGS = {"cert_expirationStatus", "cert_notAfter", "cert_revocation", "DNS_CAArecord"}
# BREACH (compression of a response that reflects attacker input beside a secret): testssl
# sees gzip on "/" and says "potentially vulnerable" for any server that compresses. The page
# is static, the same bytes for everyone, with no token or secret in it, and no response
# reflects request input beside one: not applicable here. It is reported, not asserted.
NOTED_NOT_APPLICABLE = {"BREACH"}
# testssl's own environment: Debian's openssl has no GOST engine; it says so as a warning.
TOOL_NOTES = {"engine_problem"}

MUST_BE_OK = ["heartbleed", "CCS", "ticketbleed", "ROBOT", "secure_renego", "secure_client_renego", "CRIME_TLS",
              "POODLE_SSL", "fallback_SCSV", "SWEET32", "FREAK", "DROWN", "LOGJAM", "BEAST", "LUCKY13", "RC4",
              "cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW", "PFS",
              "cert_chain_of_trust", "cert_trust", "SSLv2", "SSLv3", "TLS1_2", "TLS1_3"]
OLD_PROTOCOLS = ["SSLv2", "SSLv3", "TLS1", "TLS1_1"]
# testssl's categories: AVERAGE is the obsolete CBC ciphers (AES-CBC, ARIA, Camellia...).
WEAK_CIPHER_CATEGORIES = ["cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW",
                          "cipherlist_3DES_IDEA", "cipherlist_AVERAGE"]

# The module's first test waits for the whole audit in its setup.
# Long: started first when the tests run in parallel (conftest.py).
pytestmark = [pytest.mark.timeout(AUDIT_SECONDS + 60), pytest.mark.long]


@pytest.fixture(scope="module")
def audit(tmp_path_factory, tls_pki):
    if TESTSSL is None:
        pytest.fail("testssl.sh is not installed: install Debian's testssl.sh (make deps)")
    yield from _audit(tmp_path_factory, tls_pki)


def _audit(tmp_path_factory, tls_pki):
    # One daemon for the module, on 127.0.0.1 only: `--ip one` takes localhost's first address.
    from conftest import Daemon
    workdir = tmp_path_factory.mktemp("audit")
    daemon = Daemon(workdir, ["--tls", "files", "--tls-cert", str(tls_pki.leaf), "--tls-key", str(tls_pki.key),
                              "--https-listen", "127.0.0.1:0"], listen=["127.0.0.1:0"])
    try:
        daemon.start()
        # A probe of testssl's own can fail on a loaded machine: its session-resumption check runs
        # `openssl s_client </dev/null`, which may quit before a TLS 1.3 ticket arrives, and then
        # reports "check failed because of connect problem" (seen in clean-clone `make test`s).
        # The server writes its ticket in the loop turn that reads the client's Finished (strace);
        # the client's close_notify is already on its way, and 8 of 30 such `s_client` runs here
        # saved no session, so two runs in a row failed once. Such a run says nothing about the
        # server: up to three runs, no more.
        for attempt in (1, 2, 3):
            findings, seconds, status = run_testssl(workdir / f"testssl-{attempt}.json", daemon, tls_pki)
            failed_probes = {key for key, entry in findings.items() if "connect problem" in entry["finding"]}
            if not failed_probes:
                break
        print(f"testssl took {seconds:.0f} s, exit {status}, attempt {attempt}; "
              f"BREACH: {findings.get('BREACH', {}).get('finding')}")
        assert daemon.process.poll() is None, daemon.stderr_tail()
        yield findings
        daemon.stop()
    finally:
        daemon.cleanup()


def run_testssl(report: Path, daemon, tls_pki) -> tuple[dict, float, int]:
    """One testssl run: its findings by id, how long it took, its exit status."""
    started = time.monotonic()
    result = subprocess.run(
        [TESTSSL, "--jsonfile", str(report), "--warnings", "batch", "--color", "0", "--ip", "one",
         "--add-ca", str(tls_pki.ca), "--connect-timeout", "10", "--openssl-timeout", "10",
         "-p", "-s", "-f", "-U", "-S", "-P", f"https://localhost:{daemon.https_port}/"],
        capture_output=True, text=True, timeout=AUDIT_SECONDS, stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    # testssl 3.0's exit status is the sum of its checks' return values, and on a loaded
    # machine one of them can return 1 with every finding OK (seen in a clean-clone
    # `make test`). Its own errors are 242 and above. The findings are what the tests judge.
    assert result.returncode < 242 and report.exists(), \
        f"testssl failed ({result.returncode})\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
    findings = {entry["id"]: entry for entry in json.loads(report.read_text())}
    problems = {key: entry["finding"] for key, entry in findings.items() if key.startswith("scanProblem")}
    assert not problems, f"testssl could not run every check: {problems}"
    return findings, seconds, result.returncode


def finding(findings, key: str) -> str:
    assert key in findings, f"testssl reported no {key}: {sorted(findings)}"
    return findings[key]["finding"]


def test_only_tls12_and_tls13_are_offered(audit):
    for key in OLD_PROTOCOLS:
        assert finding(audit, key).startswith("not offered"), (key, audit[key])
    assert finding(audit, "TLS1_2") == "offered"
    assert finding(audit, "TLS1_3").startswith("offered")
    assert finding(audit, "protocol_negotiated") == "Default protocol TLS1.3"
    assert finding(audit, "ALPN") == "http/1.1"


def test_no_weak_cipher_and_forward_secrecy_for_all(audit):
    for key in WEAK_CIPHER_CATEGORIES:
        assert finding(audit, key) == "not offered", (key, audit[key])
    assert finding(audit, "cipherlist_STRONG") == "offered"
    assert finding(audit, "PFS") == "offered"
    forward_secret = set(finding(audit, "PFS_ciphers").split())
    offered = {"TLSv1_2": finding(audit, "cipherorder_TLSv1_2").split(),
               "TLSv1_3": finding(audit, "cipherorder_TLSv1_3").split()}
    assert offered["TLSv1_3"][0] == "TLS_AES_128_GCM_SHA256"
    for version, ciphers in offered.items():
        assert ciphers, f"no cipher listed for {version}"
        for cipher in ciphers:
            assert cipher in forward_secret, f"{cipher} ({version}) without forward secrecy"
            # AEAD only: no CBC (so LUCKY13 has nothing to work on), no RC4, no 3DES.
            assert "GCM" in cipher or "CHACHA20-POLY1305" in cipher or "CHACHA20_POLY1305" in cipher, cipher
            if version == "TLSv1_2":
                assert cipher.startswith("ECDHE-"), cipher
    assert finding(audit, "cipher_negotiated").startswith("TLS_AES_128_GCM_SHA256")


def test_no_known_vulnerability(audit):
    for key in MUST_BE_OK:
        assert audit.get(key, {}).get("severity") == "OK", (key, audit.get(key))
    assert finding(audit, "secure_renego") == "supported"
    assert finding(audit, "secure_client_renego") == "not vulnerable"
    assert "BREACH" in audit  # noted, see NOTED_NOT_APPLICABLE


def test_nothing_else_is_flagged(audit):
    flagged = {key: (entry["severity"], entry["finding"]) for key, entry in audit.items()
               if entry["severity"] not in ("OK", "INFO")
               and key not in CERTIFICATE_FINDINGS | NOTED_NOT_APPLICABLE | TOOL_NOTES}
    assert not flagged, flagged
