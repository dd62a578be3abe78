"""The LocalSend v2.1 receiver (issue 22) against the real binary over real HTTPS on loopback,
certificates verified (the daemon's own CA, or the test CA with `tls = files`): the
specification's example requests replayed and each answer checked, a 3-file send with a 500 MiB
file arriving byte-identical, the PIN, cancel and expiry leaving nothing, every hostile case
refused with the protocol's status and nothing kept, the access modes, and the upload showing
up where other uploads do (log, metrics, the hook). Multicast discovery and third-party senders
in network namespaces have tests of their own.
"""

from __future__ import annotations

import hashlib
import os
import time
import urllib.request

import pytest

from conftest import TEMP_FILE_PREFIX
from localsend_support import (API, SPEC_PREPARE, SPEC_REGISTER, SPEC_SENDER, LocalSendClient, localsend_daemon, offer, raw_socket,
                               stored_files)
from tls_support import file_sha256, pattern_blocks, pattern_sha256, pem_fingerprint, wait_until

# The 500 MiB: about 4 s here (2 shared cores), many write-back pauses and free-space
# checks. FILEDROP_LOCALSEND_BIG_MIB changes it.
BIG = int(os.environ.get("FILEDROP_LOCALSEND_BIG_MIB", "500")) << 20


@pytest.fixture
def receiver(daemon_factory):
    return localsend_daemon(daemon_factory, fill=False)


def no_temporaries(daemon) -> bool:
    return not any(path.name.startswith(TEMP_FILE_PREFIX) for path in daemon.save_dir.rglob("*"))


# The specification's examples, in order


def test_the_specifications_example_requests_get_the_specified_answers(receiver):
    client = LocalSendClient(receiver)
    # §6.1 info: our device, its fingerprint the SHA-256 of the certificate this very connection got (§2).
    info = client.request("GET", "/info")
    assert info.status == 200 and info.headers["content-type"] == "application/json"
    device = info.json()
    assert device == {"alias": device["alias"], "version": "2.1", "deviceModel": "filedrop", "deviceType": "headless",
                      "fingerprint": client.peer_fingerprint(), "port": receiver.localsend_port, "protocol": "https",
                      "download": False}
    assert device["alias"].startswith("filedrop on ")
    # §3.2 register: the sender's device in, ours out.
    register = client.request("POST", "/register", SPEC_REGISTER)
    assert register.status == 200 and register.json() == device
    # §4.1 prepare-upload: a session id and a token per announced file id.
    prepared = client.request("POST", "/prepare-upload", SPEC_PREPARE)
    assert prepared.status == 200, prepared.body
    answer = prepared.json()
    assert set(answer) == {"sessionId", "files"} and set(answer["files"]) == {"some file id", "another file id"}
    assert len({answer["sessionId"], *answer["files"].values()}) == 3
    # §4.2 upload: each body, 200 without a body.
    contents = {"some file id": os.urandom(324242), "another file id": os.urandom(1234)}
    for file_id, content in contents.items():
        uploaded = client.upload(answer["sessionId"], file_id, answer["files"][file_id], content)
        assert (uploaded.status, uploaded.body) == (200, b"")
    assert stored_files(receiver.save_dir) == {"my image.png": contents["some file id"],
                                               "another image.jpg": contents["another file id"]}
    # §4.3 cancel: of a session in progress, 200 without a body; the finished one is gone.
    again = client.request("POST", "/prepare-upload", {"info": SPEC_SENDER, "files": offer("x", "x.bin", 3)}).json()
    assert client.cancel(again["sessionId"]).status == 200
    assert client.cancel(answer["sessionId"]).status == 403
    # §4.1 204: nothing to transfer.
    assert client.request("POST", "/prepare-upload", {"info": SPEC_SENDER, "files": {}}).status == 204


def test_three_files_with_a_big_one_arrive_byte_identical(receiver):
    client = LocalSendClient(receiver)
    small = os.urandom(1000)
    files = {**offer("big", "big.bin", BIG), **offer("small", "album/small.bin", len(small)),
             **offer("empty", "empty.txt", 0)}
    answer = client.prepare(files).json()
    session, tokens = answer["sessionId"], answer["files"]
    assert client.upload(session, "big", tokens["big"], pattern_blocks(BIG),
                         headers={"Content-Length": str(BIG)}).status == 200
    assert client.upload(session, "small", tokens["small"], small).status == 200
    assert client.upload(session, "empty", tokens["empty"], b"").status == 200
    assert file_sha256(receiver.save_dir / "big.bin") == pattern_sha256(BIG)
    assert (receiver.save_dir / "album" / "small.bin").read_bytes() == small
    assert (receiver.save_dir / "empty.txt").read_bytes() == b""
    # The session finished with its last file: a new sender is not blocked.
    assert LocalSendClient(receiver, source="127.0.0.2").prepare(offer("n", "n.txt", 1)).status == 200
    receiver.wait_for_log_lines("localsend session finished: 3 file(s) saved")


def test_a_sha256_announced_is_checked(receiver):
    client = LocalSendClient(receiver)
    content = b"checked bytes"
    wrong = hashlib.sha256(b"other bytes").hexdigest()
    answer = client.prepare({**offer("ok", "ok.txt", len(content), sha256=hashlib.sha256(content).hexdigest()),
                             **offer("bad", "bad.txt", len(content), sha256=wrong)}).json()
    assert client.upload(answer["sessionId"], "ok", answer["files"]["ok"], content).status == 200
    assert client.upload(answer["sessionId"], "bad", answer["files"]["bad"], content).status == 400
    assert stored_files(receiver.save_dir) == {"ok.txt": content}


# PIN and access modes


def test_a_wrong_or_missing_pin_is_refused_and_wrong_ones_are_throttled(daemon_factory):
    daemon = localsend_daemon(daemon_factory, "--localsend-pin", "4711", fill=False)
    client = LocalSendClient(daemon)
    files = offer("a", "a.txt", 1)
    missing = client.prepare(files)
    assert missing.status == 401 and "PIN required" in missing.json()["error"]
    assert "www-authenticate" not in missing.headers
    assert client.prepare(files, pin="0000").status == 401
    right = client.prepare(files, pin="4711")
    assert right.status == 200
    assert client.cancel(right.json()["sessionId"]).status == 200
    # LoginThrottle, as for passwords: five wrong ones are free, then the address waits (429).
    answers = [client.prepare(files, pin="0000") for _ in range(8)]
    assert [answer.status for answer in answers[:6]] == [401] * 6
    assert any(answer.status == 429 and int(answer.headers["retry-after"]) >= 1 for answer in answers[6:])
    assert LocalSendClient(daemon, source="127.0.0.2").prepare(files, pin="4711").status == 200
    assert stored_files(daemon.save_dir) == {}
    # The access log says a PIN was sent, never which.
    daemon.wait_for_log_lines("prepare-upload?pin=- 401")
    daemon.wait_for_log_lines("prepare-upload?pin=- 200")
    assert "4711" not in daemon.stderr_text()


def test_read_only_refuses_and_still_answers_discovery(daemon_factory):
    daemon = localsend_daemon(daemon_factory, "--access", "read-only", "--localsend-pin", "4711", fill=False)
    client = LocalSendClient(daemon)
    assert client.request("GET", "/info").status == 200
    assert client.request("POST", "/register", SPEC_REGISTER).status == 200
    refused = client.prepare(offer("a", "a.txt", 1), pin="4711")
    assert refused.status == 403 and "read-only" in refused.json()["error"]


def test_private_access_without_a_pin_refuses_with_a_sentence(daemon_factory):
    from test_access import password_hash
    daemon = localsend_daemon(daemon_factory, "--access", "private", "--password-hash", password_hash(), fill=False)
    refused = LocalSendClient(daemon).prepare(offer("a", "a.txt", 1))
    assert refused.status == 403 and "localsend-pin" in refused.json()["error"]


def test_drop_access_with_a_pin_takes_files_and_needs_no_password(daemon_factory):
    from test_access import password_hash
    daemon = localsend_daemon(daemon_factory, "--access", "drop", "--password-hash", password_hash(),
                              "--localsend-pin", "4711", fill=False)
    client = LocalSendClient(daemon)
    answer = client.prepare(offer("a", "a.txt", 2), pin="4711").json()
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], b"hi").status == 200
    assert stored_files(daemon.save_dir) == {"a.txt": b"hi"}


# Sessions: one at a time, cancel, expiry, replay


def test_another_sender_is_blocked_while_a_session_is_active(receiver):
    first = LocalSendClient(receiver)
    answer = first.prepare(offer("a", "a.txt", 1)).json()
    other = LocalSendClient(receiver, source="127.0.0.2")
    assert other.prepare(offer("b", "b.txt", 1)).status == 409
    # Its tokens are not the other address's to use (§4.2 "Invalid token or IP address").
    assert other.upload(answer["sessionId"], "a", answer["files"]["a"], b"x").status == 403
    assert other.cancel(answer["sessionId"]).status == 403
    assert first.cancel(answer["sessionId"]).status == 200
    assert other.prepare(offer("b", "b.txt", 1)).status == 200


def test_cancel_stops_an_upload_in_flight_and_leaves_nothing(receiver):
    client = LocalSendClient(receiver)
    size = 8 << 20
    answer = client.prepare(offer("a", "a.bin", size)).json()
    sock = raw_socket(receiver)
    try:
        target = f"{API}/upload?sessionId={answer['sessionId']}&fileId=a&token={answer['files']['a']}"
        sock.sendall(f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {size}\r\n\r\n".encode())
        sock.sendall(b"x" * (1 << 20))
        receiver.wait_for_log_lines("upload started: a.bin")
        assert client.cancel(answer["sessionId"]).status == 200
        # The next bytes meet the cancelled session: 403, and the connection ends.
        try:
            sock.sendall(b"x" * (1 << 20))
            reply = sock.recv(4096)
        except OSError:
            reply = b""
        assert reply == b"" or reply.startswith(b"HTTP/1.1 403")
    finally:
        sock.close()
    assert wait_until(lambda: no_temporaries(receiver), 10)
    assert stored_files(receiver.save_dir) == {}
    receiver.wait_for_log_lines("localsend session cancelled: 0 file(s) saved, 1 not")


def test_an_expired_session_leaves_nothing_and_its_tokens_are_refused(daemon_factory):
    daemon = localsend_daemon(daemon_factory, "--localsend-timeout", "1s", fill=False)
    client = LocalSendClient(daemon)
    answer = client.prepare({**offer("a", "a.txt", 1), **offer("b", "b.txt", 1)}).json()
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], b"a").status == 200
    daemon.wait_for_log_lines("localsend session expired: 1 file(s) saved, 1 not", timeout=10)
    assert client.upload(answer["sessionId"], "b", answer["files"]["b"], b"b").status == 403
    assert stored_files(daemon.save_dir) == {"a.txt": b"a"}
    # Another sender is no longer blocked.
    assert LocalSendClient(daemon, source="127.0.0.2").prepare(offer("c", "c.txt", 1)).status == 200


def test_a_finished_token_replayed_is_refused(receiver):
    client = LocalSendClient(receiver)
    answer = client.prepare({**offer("a", "a.txt", 1), **offer("b", "b.txt", 1)}).json()
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], b"a").status == 200
    replay = client.upload(answer["sessionId"], "a", answer["files"]["a"], b"A")
    assert replay.status == 403 and "spent" in replay.json()["error"]
    assert stored_files(receiver.save_dir) == {"a.txt": b"a"}


# Hostile input


def test_json_over_the_limit_is_413_and_invalid_or_deep_json_is_400(receiver):
    client = LocalSendClient(receiver)
    limit = 1 << 20
    assert client.request("POST", "/prepare-upload", b"{" + b" " * limit).status == 413
    # No length: http.client sends an iterable chunked, and the limit is met as it streams.
    chunks = (b" " * 65536 for _ in range(limit // 65536 + 1))
    assert client.request("POST", "/prepare-upload", chunks).status == 413
    assert client.request("POST", "/register", b"{" + b" " * (16 << 10)).status == 413
    for body in [b"not json", b'{"info": ', b"[" * 100 + b"]" * 100, b'{"info": {"alias": "a", "version": "2"}, "files": 3}',
                 b'{"info": {"alias": "a", "version": "2"}, "files": {"a": {"fileName": "a", "size": 1}}, "info": {}}']:
        answer = client.request("POST", "/prepare-upload", body)
        assert answer.status == 400 and "Invalid body" in answer.json()["error"], body
    assert client.request("POST", "/register", b'{"alias": 1}').status == 400
    assert stored_files(receiver.save_dir) == {}


@pytest.mark.parametrize("name", ["../x.txt", "a/../../x.txt", "/etc/x.txt", "a//b.txt", ".hidden", "a/.git/config"])
def test_path_components_outside_the_policy_are_refused(receiver, name):
    answer = LocalSendClient(receiver).prepare(offer("a", name, 1))
    assert answer.status == 400, (name, answer.body)
    assert stored_files(receiver.save_dir) == {}


def test_folders_in_a_file_name_are_made_through_the_name_policy(receiver):
    client = LocalSendClient(receiver)
    answer = client.prepare(offer("a", "holiday/day 1/a.txt", 2)).json()
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], b"ok").status == 200
    assert stored_files(receiver.save_dir) == {"holiday/day 1/a.txt": b"ok"}


def test_a_session_promising_a_terabyte_is_refused_up_front(daemon_factory):
    daemon = localsend_daemon(daemon_factory, fill=False)
    client = LocalSendClient(daemon)
    assert client.prepare(offer("a", "a.bin", 1 << 40)).status == 507
    # Two files that fit alone but not together: the session is judged whole.
    half = (1 << 40) // 2
    assert client.prepare({**offer("a", "a.bin", half), **offer("b", "b.bin", half)}).status == 507
    limited = localsend_daemon(daemon_factory, "--max-upload-size", "1K", fill=False)
    assert LocalSendClient(limited).prepare(offer("a", "a.bin", 1025)).status == 413
    assert LocalSendClient(limited).prepare(offer("a", "a.bin", 1024)).status == 200


def test_unknown_session_token_and_unannounced_file_are_403(receiver):
    client = LocalSendClient(receiver)
    answer = client.prepare(offer("a", "a.txt", 1)).json()
    session, token = answer["sessionId"], answer["files"]["a"]
    assert client.upload("no-such-session", "a", token, b"x").status == 403
    assert client.upload(session, "a", "wrong-token", b"x").status == 403
    assert client.upload(session, "never-announced", token, b"x").status == 403
    missing = client.request("POST", f"/upload?sessionId={session}&fileId=a", b"x")
    assert missing.status == 400 and "Missing parameters" in missing.json()["error"]
    assert client.cancel("no-such-session").status == 403
    assert stored_files(receiver.save_dir) == {}
    # None of that spent the real token.
    assert client.upload(session, "a", token, b"x").status == 200


def test_a_body_longer_than_announced_is_refused_and_nothing_is_kept(receiver):
    client = LocalSendClient(receiver)
    answer = client.prepare(offer("a", "a.txt", 4)).json()
    session, token = answer["sessionId"], answer["files"]["a"]
    assert client.upload(session, "a", token, b"12345").status == 413
    chunked = client.upload(session, "a", token, iter([b"12", b"345"]))
    assert chunked.status == 413
    assert client.upload(session, "a", token, b"123").status == 400
    assert wait_until(lambda: no_temporaries(receiver), 5)
    assert stored_files(receiver.save_dir) == {}
    # A failed file may be sent again with its token.
    assert client.upload(session, "a", token, b"1234").status == 200


# The LocalSend port and the rest of the daemon


def test_the_localsend_port_serves_only_localsend_and_the_page_port_no_localsend(receiver):
    client = LocalSendClient(receiver)
    assert client.request("GET", "/").status == 404
    assert client.request("GET", "/files/").status == 404
    assert client.request("POST", "/api/localsend/v2/prepare-download").status == 404
    assert client.request("POST", "/info").status == 405
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(receiver.url + API + "/info", timeout=10)
    assert refused.value.code == 404


def test_a_localsend_upload_shows_up_in_the_status_log_listing_and_metrics(receiver):
    client = LocalSendClient(receiver)
    answer = client.prepare(offer("a", "seen.txt", 5)).json()
    assert wait_until(lambda: "LocalSend session from Nice Orange: 0 of 1 file(s)" in (receiver.notification_value("STATUS") or ""), 10)
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], b"hello").status == 200
    receiver.wait_for_log_lines("upload finished: seen.txt (5 bytes)")
    assert answer["files"]["a"] not in receiver.stderr_text()
    receiver.wait_for_log_lines("localsend session from Nice Orange: 1 file(s)")
    assert wait_until(lambda: "1 file(s) received since start" in (receiver.notification_value("STATUS") or ""), 10)
    listing = urllib.request.urlopen(urllib.request.Request(receiver.url + "/files/", headers={"Accept": "application/json"}),
                                     timeout=10).read().decode()
    assert "seen.txt" in listing
    metrics = urllib.request.urlopen(receiver.url + "/metrics", timeout=10).read().decode()
    assert 'filedrop_uploads_total{method="localsend",result="stored"} 1' in metrics
    assert 'route="localsend_upload"' in metrics


def test_with_tls_files_the_announced_fingerprint_is_the_served_certificate(daemon_factory, tls_pki):
    daemon = localsend_daemon(daemon_factory, "--tls", "files", "--tls-cert", str(tls_pki.leaf), "--tls-key", str(tls_pki.key),
                              "--https-listen", "127.0.0.1:0", fill=False)
    client = LocalSendClient(daemon, ca=tls_pki.ca, host="localhost")
    device = client.request("GET", "/info").json()
    assert device["fingerprint"] == pem_fingerprint(tls_pki.leaf).upper() == client.peer_fingerprint()


def test_a_localsend_upload_runs_the_hook_with_method_localsend(daemon_factory, tmp_path):
    from test_events import RECORDING_HOOK, records, write_hook
    hook = write_hook(tmp_path, RECORDING_HOOK)
    daemon = localsend_daemon(daemon_factory, "--on-upload", str(hook), fill=False)
    client = LocalSendClient(daemon)
    content = b"from a phone\n"
    answer = client.prepare(offer("a", "phone/photo.jpg", len(content))).json()
    assert client.upload(answer["sessionId"], "a", answer["files"]["a"], content).status == 200
    [record] = records(tmp_path, 1)
    env = record["env"]
    assert env["FILEDROP_METHOD"] == "localsend"
    assert env["FILEDROP_PATH"] == str(daemon.save_dir.resolve() / "phone" / "photo.jpg")
    assert env["FILEDROP_SHA256"] == hashlib.sha256(content).hexdigest()
