"""A loopback TCP proxy that cuts connections: it sits between a client and the daemon,
forwards both directions, and once the client has sent a given number of bytes in total
(counted over every connection it carried) it closes both sides, as a WiFi drop would.

Threads, no asyncio: one accept loop, two pumps per connection. `close()` stops it all.
"""

from __future__ import annotations

import socket
import threading


class CuttingProxy:
    """Forwards 127.0.0.1:`port` to `target`; cuts at each of `cut_after` (client bytes, ascending)."""

    def __init__(self, target: tuple[str, int], cut_after: list[int]):
        self.target = target
        self.cuts = sorted(cut_after)
        self.sent = 0
        self.cut_count = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self):
        self._closed = True
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                self._shut(sock)

    # Internals

    @staticmethod
    def _shut(sock: socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, server]
            threading.Thread(target=self._upstream, args=(client, server), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client), daemon=True).start()

    def _budget(self) -> int | None:
        """Bytes the client may still send before the next cut, None when no cut is left."""
        return self.cuts[0] - self.sent if self.cuts else None

    def _upstream(self, client: socket.socket, server: socket.socket):
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            with self._lock:
                budget = self._budget()
                cut = budget is not None and len(data) >= budget
                if cut:
                    data = data[:budget]
                    self.cuts.pop(0)
                    self.cut_count += 1
                self.sent += len(data)
            try:
                server.sendall(data)
            except OSError:
                break
            if cut:
                break
        self._shut(client)
        self._shut(server)

    def _downstream(self, server: socket.socket, client: socket.socket):
        while True:
            try:
                data = server.recv(65536)
                if not data:
                    break
                client.sendall(data)
            except OSError:
                break
        self._shut(client)
        self._shut(server)
