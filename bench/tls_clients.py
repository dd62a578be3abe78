"""The HTTPS workload's own clients and tools: the certificates (openssl CLI), a verifying client
context, the readiness check, what `openssl s_client` negotiates, and the client that opens and
holds many TLS connections. All bounded in count and time.
"""

import os
import re
import selectors
import shutil
import socket
import ssl
import subprocess
import time

from workloads import response_complete

READY_TIMEOUT = 30.0
HANDSHAKES_IN_FLIGHT = 64


def make_certificates(directory):
    """A CA and a leaf for 127.0.0.1 and localhost it signed, all ECDSA P-256, with the openssl CLI."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    leaf, key, request = directory / "leaf.crt", directory / "leaf.key", directory / "leaf.csr"
    extensions = directory / "leaf.ext"
    extensions.write_text("subjectAltName = IP:127.0.0.1, DNS:localhost\nbasicConstraints = critical, CA:FALSE\n"
                          "keyUsage = critical, digitalSignature\nextendedKeyUsage = serverAuth\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for argv in (
        ["openssl", "req", "-x509", "-new", *ec, "-keyout", ca_key, "-out", ca, "-days", "7",
         "-subj", "/CN=filedrop bench CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ["openssl", "req", "-new", *ec, "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
        ["openssl", "x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-set_serial", "2",
         "-days", "7", "-extfile", extensions, "-out", leaf],
        ["openssl", "verify", "-CAfile", ca, leaf],
    ):
        subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=60)
    return ca, leaf, key

def client_context(ca):
    """A client that verifies the server against our CA, TLS 1.3 with the benchmark's cipher."""
    context = ssl.create_default_context(cafile=str(ca))
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context

def wait_tls_ready(port, ca, running):
    context = client_context(ca)
    deadline = time.monotonic() + READY_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(f"{running.kind.label} exited with {running.process.returncode}; "
                               f"see {running.root}/server.log")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
                with context.wrap_socket(raw, server_hostname="127.0.0.1"):
                    return
        except (OSError, ssl.SSLError) as error:
            last = str(error)
        time.sleep(0.1)
    raise RuntimeError(f"HTTPS port {port} of {running.kind.label} not ready after {READY_TIMEOUT:.0f} s ({last})")

def negotiation(port, ca):
    """What `openssl s_client` negotiates with the server by default (TLS 1.3), and as a TLS 1.2 client."""
    found = {}
    for label, extra in (("tls13", []), ("tls12", ["-tls1_2"])):
        done = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", str(ca),
                               "-verify_ip", "127.0.0.1", "-verify_return_error", *extra],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        text = done.stdout + done.stderr
        cipher = re.search(r"^New, (\S+), Cipher is (\S+)", text, re.M)
        group = re.search(r"^Server Temp Key: ([^,\n]+)", text, re.M)
        signature = re.search(r"^Peer signature type: (\S+)", text, re.M)
        verified = re.search(r"Verify return code: (\d+) \(([^)]*)\)", text)
        found[label] = {"protocol": cipher.group(1) if cipher else "?", "cipher": cipher.group(2) if cipher else "?",
                        "group": group.group(1) if group else "?", "signature": signature.group(1) if signature else "?",
                        "verify": verified.group(2) if verified else "?"}
    return found

def hold_tls(address, context, request, count, deadline):
    """Bounded in count and time: (TLS sockets that finished a handshake and got a 200 for `request`,
    how many failed, how many sessions were resumed)."""
    selector = selectors.DefaultSelector()
    states, held, failures, opened, resumed = {}, [], 0, 0, 0
    stop_at = time.monotonic() + deadline

    def fail(s):
        nonlocal failures
        failures += 1
        selector.unregister(s)
        states.pop(s)
        s.close()

    try:
        while (opened < count or states) and time.monotonic() < stop_at:
            while opened < count and len(states) < HANDSHAKES_IN_FLIGHT:
                raw = socket.socket()
                raw.setblocking(False)
                raw.connect_ex(address)
                selector.register(raw, selectors.EVENT_WRITE)
                states[raw] = ["connecting", bytearray()]
                opened += 1
            for key, _ in selector.select(timeout=0.5):
                s = key.fileobj
                state = states[s]
                if state[0] == "connecting":
                    if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        fail(s)
                        continue
                    selector.unregister(s)
                    states.pop(s)
                    s = context.wrap_socket(s, server_hostname="127.0.0.1", do_handshake_on_connect=False)
                    selector.register(s, selectors.EVENT_WRITE)
                    states[s] = state = ["handshake", bytearray()]
                try:
                    if state[0] == "handshake":
                        s.do_handshake()
                        resumed += s.session_reused
                        state[0] = "sending"
                    if state[0] == "sending":
                        s.send(request)
                        state[0] = "reading"
                        selector.modify(s, selectors.EVENT_READ)
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            fail(s)
                            break
                        state[1] += chunk
                        complete, status = response_complete(state[1])
                        if complete:
                            selector.unregister(s)
                            states.pop(s)
                            if status == 200:
                                held.append(s)
                            else:
                                failures += 1
                                s.close()
                            break
                except ssl.SSLWantReadError:
                    selector.modify(s, selectors.EVENT_READ)
                except ssl.SSLWantWriteError:
                    selector.modify(s, selectors.EVENT_WRITE)
                except (OSError, ssl.SSLError):
                    fail(s)
    finally:
        for s in list(states):
            fail(s)
        selector.close()
    return held, failures + (count - opened), resumed

def idle_and_open(tls_socket):
    """Nothing more came (no data, no close_notify, no FIN): peeked on a duplicate of the descriptor."""
    raw = socket.socket(fileno=os.dup(tls_socket.fileno()))
    try:
        raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        raw.close()
