"""Loopback HTTP listener that writes every raw request (head + body) to OUT_DIR/<n>-<method>.http."""
import socket, sys, os, threading
out_dir = sys.argv[1]; port = int(sys.argv[2])
os.makedirs(out_dir, exist_ok=True)
PAGE = b"""<!doctype html><meta charset="utf-8"><form id=f method=post action="/upload" enctype="multipart/form-data">
<input type=text name=relativePath value="photos/2024"><input type=file name="files[]" multiple id=files>
<button id=go>go</button></form>"""
count = 0
lock = threading.Lock()
def handle(conn):
    global count
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk: return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length": length = int(value.strip())
    if b"expect: 100-continue" in head.lower():
        conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk: break
        body += chunk
    method = head.split(b" ")[0].decode()
    with lock:
        count += 1
        n = count
    with open(os.path.join(out_dir, f"{n:02d}-{method}.http"), "wb") as f:
        f.write(head + b"\r\n\r\n" + body)
    reply = PAGE if method == "GET" else b"ok"
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(reply) + reply)
    conn.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(16)
while True:
    c, _ = s.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
