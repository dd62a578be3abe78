"""LocalSend's multicast discovery on the real socket (LocalSend protocol v2.1 §3.1), with raw
datagrams from the other namespace of a two-namespace LAN (localsend_lan.py): what filedrop
answers to what, that a flood gets a bounded number of answers, that junk is ignored without
harming the answers that follow, and that an interface added after start is joined and
announced on. The decisions themselves are unit-tested (LocalSendDiscoveryTests); this checks
the socket carries them out.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from localsend_lan import RECEIVER_ADDRESS, delete_lan, ip, make_lan, require_root_and_tools

GROUP = "224.0.0.167"
PORT = 53317

# Runs in the sender namespace: joins the group, sends each datagram of argv[1] (a JSON list of
# strings, latin-1 encoded so any byte can be sent), then collects for argv[2] seconds what
# arrives on the group from someone else and prints it as a JSON list of {source, body}.
PROBE = r'''
import json, socket, struct, sys, time
datagrams = [text.encode("latin-1") for text in json.loads(sys.argv[1])]
listen_for = float(sys.argv[2])
own = sys.argv[3]
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("224.0.0.167", 53317))
sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4s", socket.inet_aton("224.0.0.167"), socket.inet_aton(own)))
sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(own))
for datagram in datagrams:
    sock.sendto(datagram, ("224.0.0.167", 53317))
heard = []
deadline = time.monotonic() + listen_for
while (left := deadline - time.monotonic()) > 0:
    sock.settimeout(left)
    try:
        data, (source, _) = sock.recvfrom(65536)
    except socket.timeout:
        break
    if source != own:
        heard.append({"source": source, "body": data.decode("latin-1")})
print(json.dumps(heard))
'''


def device(fingerprint: str, announce: bool | None = True) -> str:
    body = {"alias": "probe", "version": "2.0", "deviceModel": None, "deviceType": "mobile",
            "fingerprint": fingerprint, "port": 53317, "protocol": "https", "download": False}
    if announce is not None:
        body["announce"] = announce
    return json.dumps(body)


@pytest.fixture
def lan():
    require_root_and_tools("LocalSend discovery test")
    network = make_lan("disc")
    try:
        yield network
    finally:
        delete_lan(network)


@pytest.fixture
def receiver(lan, daemon_factory):
    return daemon_factory("--localsend", "--mdns=false", "--log-level", "debug", fill=False,
                          # LocalSend follows listen: every address of the namespace the test made.
                          listen=["0.0.0.0:0"],
                          command_prefix=["ip", "netns", "exec", lan.receiver])


def probe(namespace: str, datagrams: list[str], listen_for: float, own: str = "10.231.0.2") -> list[dict]:
    result = subprocess.run(["ip", "netns", "exec", namespace, sys.executable, "-c", PROBE, json.dumps(datagrams),
                             str(listen_for), own], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def answers(heard: list[dict], source: str = RECEIVER_ADDRESS) -> list[dict]:
    """filedrop's datagrams among what was heard, parsed."""
    return [json.loads(item["body"]) for item in heard if item["source"] == source]


def test_an_announcement_gets_our_device_with_announce_false(lan, receiver):
    # The start-up burst is over after 3 s; what comes later is an answer.
    receiver.wait_for_log_lines("LocalSend discovery on")
    heard = answers(probe(lan.sender, [device("PROBE-1")], listen_for=4.5))
    replies = [body for body in heard if body.get("announce") is False]
    assert len(replies) == 1, heard
    assert replies[0]["deviceType"] == "headless" and replies[0]["port"] == PORT
    assert replies[0]["alias"].startswith("filedrop on ")
    # The announcements of the start-up burst carry announce: true and the same device.
    assert all(body["fingerprint"] == replies[0]["fingerprint"] for body in heard)


def test_junk_answers_and_our_own_get_nothing_and_the_next_announcement_still_does(lan, receiver):
    receiver.wait_for_log_lines("LocalSend discovery on")
    first = answers(probe(lan.sender, [], listen_for=3.5))  # the start-up burst, to learn the fingerprint
    assert first and all(body["announce"] is True for body in first), first
    own = first[0]["fingerprint"]
    junk = ["{", "[]", "null", '{"alias": "x"}', "\xff\xfe", "x" * 5000,
            '{"alias":"a","version":"2.0","fingerprint":"J","announce":true,' + '"pad":"' + "y" * 5000 + '"}',
            device("PROBE-2", announce=False), device("PROBE-3", announce=None), device(own)]
    heard = answers(probe(lan.sender, junk + [device("PROBE-4")], listen_for=1.5))
    assert len(heard) == 1 and heard[0]["announce"] is False, heard
    reasons = "\n".join(receiver.wait_for_log_lines("LocalSend discovery ignored a datagram"))
    assert "longer than 4096 bytes" in reasons or "not a JSON object" in reasons, reasons


def test_a_flood_of_announcements_gets_a_bounded_number_of_answers(lan, receiver):
    receiver.wait_for_log_lines("LocalSend discovery on")
    probe(lan.sender, [], listen_for=3.5)  # let the start-up burst pass
    same = answers(probe(lan.sender, [device("SAME")] * 200, listen_for=1.0))
    # One device is answered once per 2 s, however often it announces.
    assert len(same) == 1, same
    many = answers(probe(lan.sender, [device(f"FLOOD-{n}") for n in range(200)], listen_for=1.0))
    # 8 at once, then one more each 250 ms: 200 devices at once get a handful, not 200.
    assert 1 <= len(many) <= 16, len(many)


def test_an_interface_added_after_start_is_joined_and_announced_on(lan, receiver):
    receiver.wait_for_log_lines("LocalSend discovery on")
    ip("link", "add", "fdr2nd", "netns", lan.receiver, "type", "veth", "peer", "name", "fds2nd", "netns", lan.sender)
    for namespace, name, address in ((lan.receiver, "fdr2nd", "10.232.0.1"), (lan.sender, "fds2nd", "10.232.0.2")):
        ip("-n", namespace, "addr", "add", f"{address}/24", "dev", name)
        ip("-n", namespace, "link", "set", name, "up")
    # Multicast from the sender's side now leaves by the new link (its route replaces the old).
    ip("-n", lan.sender, "route", "replace", "224.0.0.0/4", "dev", "fds2nd")
    heard = probe(lan.sender, [], listen_for=4.5, own="10.232.0.2")
    announced = answers(heard, source="10.232.0.1")
    assert announced and all(body["announce"] is True for body in announced), heard
    # And an announcement that arrives by the new link is answered there.
    replies = answers(probe(lan.sender, [device("PROBE-NEW")], listen_for=1.5, own="10.232.0.2"), source="10.232.0.1")
    # (The last announcement of the new link's burst may come in this window too.)
    assert len([body for body in replies if body["announce"] is False]) == 1, replies


def test_a_new_address_on_a_joined_interface_is_announced_to(lan, receiver):
    """Another network on the same interface (a new DHCP lease) has devices that never heard us."""
    receiver.wait_for_log_lines("LocalSend discovery on")
    probe(lan.sender, [], listen_for=3.5)  # let the start-up burst pass
    assert answers(probe(lan.sender, [], listen_for=1.0)) == [], "announcing without a reason"
    ip("-n", lan.receiver, "addr", "add", "10.231.0.11/24", "dev", lan.receiver_link)
    announced = answers(probe(lan.sender, [], listen_for=4.5))
    assert announced and all(body["announce"] is True for body in announced), announced
