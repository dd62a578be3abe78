"""tuspy (the tus project's Python client) uploading over HTTPS with the test CA as its only
trust, cut mid-upload by a proxy (tcp_cutter.py) in front of the HTTPS port, resumed by a
new client from the stored upload URL, and landing byte-identical.

How tuspy is told the CA: `verify_tls_cert` reaches requests for the POST and HEAD, but
tuspy's TusRequest turns it into a bool for the PATCH (tusclient/request.py:
`bool(uploader.verify_tls_cert)`), so the PATCH falls back to requests' default trust, which
REQUESTS_CA_BUNDLE sets. Both are set to the test CA; nothing turns verification off, and the
first test shows that a client without the CA is refused.
"""

from __future__ import annotations

import http.client
import os

import pytest
from tusclient import client as tus_client
from tusclient.exceptions import TusCommunicationError, TusUploadFailed
from tusclient.storage import filestorage

from tcp_cutter import CuttingProxy
from test_tus import tus_files
from tls_support import client_context

CHUNK = 1024 * 1024


@pytest.fixture
def trust_only_the_test_ca(monkeypatch, tls_pki):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tls_pki.ca))
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)


def uploader(url: str, path, ca, **options):
    client = tus_client.TusClient(url)
    return client.uploader(str(path), metadata={"filename": path.name}, chunk_size=CHUNK,
                           verify_tls_cert=str(ca), upload_checksum=True, **options)


def test_tuspy_without_the_ca_is_refused(https_daemon, tmp_path, monkeypatch):
    daemon = https_daemon()
    source = tmp_path / "refused.bin"
    source.write_bytes(os.urandom(1000))
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    client = tus_client.TusClient(daemon.https_url + "/files/")
    with pytest.raises((TusCommunicationError, TusUploadFailed)) as refused:
        client.uploader(str(source), metadata={"filename": source.name}, chunk_size=CHUNK).upload()
    assert "CERTIFICATE_VERIFY_FAILED" in repr(refused.value.__context__) + repr(refused.value), refused.value
    assert not (daemon.save_dir / "refused.bin").exists()


def test_tuspy_uploads_over_https_in_chunks(https_daemon, tls_pki, tmp_path, trust_only_the_test_ca):
    daemon = https_daemon()
    source = tmp_path / "photo.jpg"
    source.write_bytes(os.urandom(3 * CHUNK + 17))
    upload = uploader(daemon.https_url + "/files/", source, tls_pki.ca)
    upload.upload()
    assert upload.url.startswith(f"https://127.0.0.1:{daemon.https_port}/files/"), upload.url
    assert upload.offset == source.stat().st_size
    assert (daemon.save_dir / "photo.jpg").read_bytes() == source.read_bytes()
    assert tus_files(daemon) == []


def test_tuspy_resumes_over_https_after_the_connection_is_cut(https_daemon, tls_pki, tmp_path, trust_only_the_test_ca):
    daemon = https_daemon()
    content = os.urandom(8 * CHUNK + 5)
    source = tmp_path / "video.mp4"
    source.write_bytes(content)
    # Cut once the client has sent 40% of the file (TLS records and all) through the proxy.
    proxy = CuttingProxy(("127.0.0.1", daemon.https_port), [int(len(content) * 0.4)])
    storage = filestorage.FileStorage(str(tmp_path / "tus-urls.json"))
    try:
        endpoint = f"https://127.0.0.1:{proxy.port}/files/"
        first = uploader(endpoint, source, tls_pki.ca, store_url=True, url_storage=storage)
        with pytest.raises(TusUploadFailed):
            first.upload()
        assert proxy.cut_count == 1
        assert not (daemon.save_dir / "video.mp4").exists()

        # A new client, as after the phone's app restarted: the stored URL and a HEAD tell it where to go on.
        second = uploader(endpoint, source, tls_pki.ca, store_url=True, url_storage=storage)
        assert second.url == first.url
        assert 0 < second.offset < len(content) * 0.4, second.offset
        second.upload()
    finally:
        proxy.close()
    assert (daemon.save_dir / "video.mp4").read_bytes() == content
    assert tus_files(daemon) == []


@pytest.mark.parametrize("host", ["localhost", "[::1]"])
def test_location_is_an_absolute_https_url(https_daemon, host):
    daemon = https_daemon()
    port = daemon.https_port if host == "localhost" else daemon.https_port6
    connection = http.client.HTTPSConnection(host.strip("[]"), port, context=client_context(daemon.ca), timeout=10)
    try:
        connection.request("POST", "/files/", headers={"Tus-Resumable": "1.0.0", "Upload-Length": "5",
                                                       "Upload-Metadata": "filename YS5iaW4="})
        reply = connection.getresponse()
        assert reply.status == 201
        assert reply.getheader("Location").startswith(f"https://{host}:{port}/files/.tus/"), reply.getheader("Location")
    finally:
        connection.close()
