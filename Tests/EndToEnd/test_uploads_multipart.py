"""Form uploads (multipart/form-data) against the real daemon from curl --form and requests:
several files in one form, each stored byte-identical."""

import pytest
import requests

from client_support import curl, random_bytes


@pytest.mark.parametrize("path", ["/upload.html", "/upload"])
def test_curl_form_uploads_several_files(daemon, tmp_path, path):
    files = {"first form file.txt": b"first\r\n--not-a-boundary\r\n", "second.bin": random_bytes(200_000)}
    args = []
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
        args += ["--form", f"file=@{tmp_path / name}"]
    result = curl(*args, "--output", "/dev/null", "--write-out", "%{http_code}", f"{daemon.url}{path}")
    assert result.returncode == 0, result.stderr
    assert result.stdout in (b"200", b"201", b"303"), result.stdout
    for name, content in files.items():
        assert (daemon.save_dir / name).read_bytes() == content


def test_requests_multipart_upload(daemon):
    content = random_bytes(10_000)
    response = requests.post(f"{daemon.url}/upload.html", files={"file": ("from requests.bin", content)},
                             headers={"Connection": "close"}, timeout=10)
    response.close()
    assert response.status_code in (200, 201, 303)
    assert (daemon.save_dir / "from requests.bin").read_bytes() == content
