"""What the daemon opens to the network, against the real binary: a server kept on loopback
(`listen = 127.0.0.1:...`) must not open anything else to the LAN. With `--localsend`, the
LocalSend port follows `listen` (loopback only here), and no multicast group is joined or
announced on. Read from the kernel's own tables (/proc/<pid>/net/{tcp,tcp6,udp,udp6}, for
the sockets the daemon's descriptors hold).
"""

from __future__ import annotations

import os
import socket

from localsend_support import localsend_daemon

LISTEN = "0A"


def sockets_of(pid: int) -> set[str]:
    """The inodes of the sockets the process holds."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


def decode_address(text: str) -> tuple[str, int]:
    """`0100007F:1F90` (the kernel's byte order) -> ("127.0.0.1", 8080); IPv6 likewise."""
    address, port = text.split(":")
    raw = bytes.fromhex(address)
    if len(raw) == 4:
        return socket.inet_ntop(socket.AF_INET, raw[::-1]), int(port, 16)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return socket.inet_ntop(socket.AF_INET6, words), int(port, 16)


def bound(pid: int, table: str, listening_only: bool) -> list[tuple[str, int]]:
    """(address, port) of the process's sockets in /proc/<pid>/net/<table>."""
    owned = sockets_of(pid)
    found = []
    with open(f"/proc/{pid}/net/{table}") as lines:
        next(lines)
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if inode in owned and (state == LISTEN or not listening_only):
                found.append(decode_address(local))
    return found


def is_loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1")


def test_localsend_on_a_loopback_server_stays_on_loopback(daemon_factory):
    daemon = localsend_daemon(daemon_factory, fill=False, listen=["127.0.0.1:0"])
    listening = bound(daemon.pid, "tcp", True) + bound(daemon.pid, "tcp6", True)
    ports = {port for _, port in listening}
    assert daemon.localsend_port in ports and daemon.port in ports, listening
    assert all(is_loopback(address) for address, _ in listening), listening
    # No multicast group socket (224.0.0.167:53317), nothing bound beyond loopback over UDP.
    datagram = bound(daemon.pid, "udp", False) + bound(daemon.pid, "udp6", False)
    assert all(is_loopback(address) for address, _ in datagram), datagram
    daemon.wait_for_log_lines("LocalSend discovery is off")
