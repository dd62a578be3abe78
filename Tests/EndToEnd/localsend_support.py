"""LocalSend test support: a daemon with the LocalSend receiver on (`--localsend`, port 0) and
a raw protocol client over verified HTTPS. With `tls = off` the daemon issues the LocalSend
port's certificate from its own CA in tls-dir (as `tls = auto` does); the client trusts that
CA and nothing else, checks the name, and compares the peer certificate's SHA-256 with the
fingerprint the daemon announces (LocalSend protocol v2.1 §2). No check is switched off.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

from conftest import parse_listen_addresses

API = "/api/localsend/v2"

# The specification's example device of `register` (§3.2) and request of `prepare-upload`
# (§4.1), as JSON (its comments and trailing commas removed).
SPEC_REGISTER = {"alias": "Secret Banana", "version": "2.0", "deviceModel": "Windows", "deviceType": "desktop",
                 "fingerprint": "random string", "port": 53317, "protocol": "https", "download": True}
SPEC_SENDER = {"alias": "Nice Orange", "version": "2.0", "deviceModel": "Samsung", "deviceType": "mobile",
               "fingerprint": "random string", "port": 53317, "protocol": "https", "download": True}
SPEC_PREPARE = {
    "info": SPEC_SENDER,
    "files": {
        "some file id": {"id": "some file id", "fileName": "my image.png", "size": 324242, "fileType": "image/jpeg",
                         "sha256": None, "preview": "*preview data*",
                         "metadata": {"modified": "2021-01-01T12:34:56Z", "accessed": "2021-01-01T12:34:56Z"}},
        "another file id": {"id": "another file id", "fileName": "another image.jpg", "size": 1234,
                            "fileType": "image/jpeg", "sha256": None, "preview": "*preview data*"},
    },
}


def localsend_daemon(daemon_factory, *args: str, **options):
    """A daemon with the receiver on a free port; `.localsend_port` and `.localsend_ca` set."""
    daemon = daemon_factory("--localsend", "--localsend-port", "0", "--mdns=false", *args, **options)
    listen = parse_listen_addresses(daemon.notification_value("X_FILEDROP_LOCALSEND_LISTEN") or "")
    assert listen, f"no X_FILEDROP_LOCALSEND_LISTEN in {daemon.notifications}"
    daemon.localsend_port = listen[0][1]
    daemon.localsend_ca = daemon.workdir / "filedrop-tls" / "ca.crt"
    return daemon


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


class LocalSendClient:
    """Requests to one daemon's LocalSend port from `source` (a loopback address: 127.0.0.2
    is another sender), each on a new verified TLS connection."""

    def __init__(self, daemon, ca: Path | None = None, source: str = "127.0.0.1", host: str = "127.0.0.1"):
        self.port = daemon.localsend_port
        self.context = ssl.create_default_context(cafile=str(ca or daemon.localsend_ca))
        self.source = source
        self.host = host

    def connect(self, timeout: float = 30.0) -> http.client.HTTPSConnection:
        connection = http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=timeout,
                                                 source_address=(self.source, 0))
        connection.connect()
        return connection

    def request(self, method: str, path: str, body=None, headers: dict[str, str] | None = None,
                timeout: float = 30.0) -> Answer:
        connection = self.connect(timeout)
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body).encode()
            connection.request(method, API + path if path.startswith("/") else path, body=body, headers=headers or {})
            response = connection.getresponse()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def peer_fingerprint(self) -> str:
        connection = self.connect()
        try:
            return hashlib.sha256(connection.sock.getpeercert(binary_form=True)).hexdigest().upper()
        finally:
            connection.close()

    def prepare(self, files: dict, pin: str | None = None, sender: dict | None = None) -> Answer:
        query = f"?pin={pin}" if pin is not None else ""
        return self.request("POST", f"/prepare-upload{query}", {"info": sender or SPEC_SENDER, "files": files})

    def upload(self, session: str, file_id: str, token: str, body, headers: dict[str, str] | None = None) -> Answer:
        from urllib.parse import urlencode
        query = urlencode({"sessionId": session, "fileId": file_id, "token": token})
        return self.request("POST", f"/upload?{query}", body, headers)

    def cancel(self, session: str) -> Answer:
        return self.request("POST", f"/cancel?sessionId={session}")


def offer(file_id: str, name: str, size: int, **extra) -> dict:
    """One entry of `prepare-upload`'s files map."""
    return {file_id: {"id": file_id, "fileName": name, "size": size, "fileType": "application/octet-stream", **extra}}


def stored_files(save_dir: Path) -> dict[str, bytes]:
    """Every regular file under save-dir by its relative path (temporaries included, so a
    leftover shows)."""
    return {str(path.relative_to(save_dir)): path.read_bytes() for path in sorted(save_dir.rglob("*")) if path.is_file()}


def raw_socket(daemon, source: str = "127.0.0.1") -> ssl.SSLSocket:
    """A verified TLS socket to the LocalSend port, for bodies sent piece by piece."""
    context = ssl.create_default_context(cafile=str(daemon.localsend_ca))
    raw = socket.create_connection(("127.0.0.1", daemon.localsend_port), 10, source_address=(source, 0))
    return context.wrap_socket(raw, server_hostname="127.0.0.1")
