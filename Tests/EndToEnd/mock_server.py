"""A stand-in for the filedrop daemon, just enough to develop and check web/ without Swift.

It implements the page's server contract minimally with http.server: static files from web/,
GET /config.json, POST /upload.html (multipart, `relativePath` fields before their file parts,
JSON when asked with Accept: application/json, an HTML page otherwise), GET /files/...?format=json
listings, file downloads and ?zip folders. Every answer carries the daemon's Content-Security-Policy
so the page is checked under the same rules.

Usage: python3 mock_server.py --save-dir DIR [--port 0] [--max-upload-size BYTES] [--no-config]
It prints "READY <port>" on stdout once it listens.
"""

import argparse
import hashlib
import html
import io
import json
import mimetypes
import os
import sys
import urllib.parse
import zipfile
import zlib
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
WEB_ROOT = Path(__file__).resolve().parents[2] / "web"
STATIC = {"/": "index.html", "/index.html": "index.html", "/app.js": "app.js", "/style.css": "style.css"}


class UploadRejected(Exception):
    def __init__(self, status, sentence):
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def safe_components(relative):
    parts = [p for p in relative.replace("\\", "/").split("/") if p != ""]
    if not parts or any(p in (".", "..") or "\x00" in p for p in parts):
        raise UploadRejected(400, "The file path is not allowed.")
    return parts


def free_name(directory, name):
    candidate = directory / name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    counter = 1
    while candidate.exists():
        candidate = directory / (f"{stem} ({counter}).{ext}" if ext else f"{stem} ({counter})")
        counter += 1
    return candidate


def parse_multipart(body, boundary):
    """Yields (headers dict, content bytes) for every part of a multipart/form-data body."""
    delimiter = b"--" + boundary
    for chunk in body.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, content = chunk[2:].partition(b"\r\n\r\n")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        yield headers, content[:-2] if content.endswith(b"\r\n") else content


def disposition_params(value):
    params = {}
    for piece in value.split(";")[1:]:
        key, _, raw = piece.strip().partition("=")
        if raw.startswith('"') and raw.endswith('"'):
            raw = raw[1:-1].replace('\\"', '"').replace("%22", '"')
        params[key.lower()] = raw
    return params


class Handler(BaseHTTPRequestHandler):
    server_version = "filedrop-mock"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("mock: " + fmt % args + "\n")

    def send_body(self, status, body, content_type, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value):
        self.send_body(status, json.dumps(value).encode(), "application/json")

    def wants_json(self):
        return "application/json" in self.headers.get("Accept", "")

    def send_error_reply(self, status, sentence):
        if self.wants_json():
            self.send_json(status, {"error": sentence, "status": status})
        else:
            page = f"<!doctype html><title>Error</title><p>{html.escape(sentence)}</p>"
            self.send_body(status, page.encode(), "text/html; charset=utf-8")

    # GET

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        if path in STATIC:
            name = STATIC[path]
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if kind.startswith("text/") or name.endswith(".js"):
                kind += "; charset=utf-8"
            self.send_body(200, (WEB_ROOT / name).read_bytes(), kind)
        elif path == "/config.json" and not self.server.no_config:
            self.send_json(200, {"title": self.server.title, "maxUploadSize": self.server.max_upload_size})
        elif path == "/files" or path.startswith("/files/"):
            self.serve_files(path[len("/files"):], url.query)
        else:
            self.send_error_reply(404, "Nothing here.")

    do_HEAD = do_GET

    def serve_files(self, relative, query):
        root = self.server.save_dir
        parts = [p for p in relative.split("/") if p]
        if any(p in (".", "..") for p in parts):
            self.send_error_reply(400, "The path is not allowed.")
            return
        target = root.joinpath(*parts)
        if target.is_file():
            kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            self.send_body(200, target.read_bytes(), kind)
            return
        if not target.is_dir():
            self.send_error_reply(404, "No such file or folder.")
            return
        if not relative.endswith("/"):
            self.send_body(301, b"", "text/plain", {"Location": urllib.parse.quote(f"/files{relative}/")})
            return
        prefix = "/files/" + "".join(urllib.parse.quote(p) + "/" for p in parts)
        if query == "zip":
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                for file in sorted(target.rglob("*")):
                    if file.is_file():
                        archive.write(file, file.relative_to(target).as_posix())
            name = (parts[-1] if parts else "files") + ".zip"
            self.send_body(200, buffer.getvalue(), "application/zip",
                           {"Content-Disposition": f"attachment; filename*=UTF-8''{urllib.parse.quote(name)}"})
            return
        entries = []
        for child in sorted(target.iterdir(), key=lambda p: p.name):
            if child.name.startswith(".filedrop-"):
                continue
            if child.is_dir():
                entries.append({"name": child.name, "type": "directory",
                                "url": prefix + urllib.parse.quote(child.name) + "/"})
            else:
                stat = child.stat()
                mtime = datetime.fromtimestamp(stat.st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                entries.append({"name": child.name, "type": "file", "size": stat.st_size,
                                "mtime": mtime, "url": prefix + urllib.parse.quote(child.name)})
        if "format=json" in query:
            self.send_json(200, {"path": "".join(p + "/" for p in parts), "entries": entries})
        else:
            items = "".join(f'<li><a href="{html.escape(e["url"])}">{html.escape(e["name"])}</a></li>'
                            for e in entries)
            self.send_body(200, f"<!doctype html><title>Files</title><ul>{items}</ul>".encode(),
                           "text/html; charset=utf-8")

    # POST

    def do_POST(self):
        if urllib.parse.urlsplit(self.path).path != "/upload.html":
            self.send_error_reply(404, "Nothing here.")
            return
        length = int(self.headers.get("Content-Length", "0"))
        limit = self.server.max_upload_size
        if limit is not None and length > limit:
            self.discard(length)
            self.send_error_reply(413, f"The upload is larger than the limit of {limit} bytes.")
            return
        body = self.rfile.read(length)
        if len(body) < length:
            self.close_connection = True
            return
        kind = self.headers.get("Content-Type", "")
        marker = "boundary="
        if not kind.startswith("multipart/form-data") or marker not in kind:
            self.send_error_reply(400, "The request is not a multipart form.")
            return
        boundary = kind.split(marker, 1)[1].split(";")[0].strip('"').encode()
        saved, errors = [], []
        relative = ""
        for headers, content in parse_multipart(body, boundary):
            params = disposition_params(headers.get("content-disposition", ""))
            if params.get("name") == "relativePath":
                relative = content.decode("utf-8", "replace")
            elif params.get("name") == "file" and "filename" in params:
                try:
                    saved.append(self.store(relative or params["filename"], content))
                except UploadRejected as rejected:
                    errors.append({"name": params["filename"], "status": rejected.status,
                                   "message": rejected.sentence})
                relative = ""
        if self.wants_json():
            self.send_json(200 if saved or not errors else errors[0]["status"], {"files": saved, "errors": errors})
        else:
            items = "".join(f"<li>{html.escape(f['name'])} ({f['size']} bytes)</li>" for f in saved)
            page = f"<!doctype html><title>Saved</title><h1>Saved</h1><ul>{items}</ul><a href='/'>Back</a>"
            self.send_body(200, page.encode(), "text/html; charset=utf-8")

    def discard(self, length):
        remaining = length
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 16))
            if not chunk:
                break
            remaining -= len(chunk)

    def store(self, relative, content):
        parts = safe_components(relative)
        directory = self.server.save_dir.joinpath(*parts[:-1])
        directory.mkdir(parents=True, exist_ok=True)
        target = free_name(directory, parts[-1])
        temporary = directory / f".filedrop-{os.getpid()}-{id(content)}"
        temporary.write_bytes(content)
        os.link(temporary, target)
        temporary.unlink()
        stored = target.relative_to(self.server.save_dir).as_posix()
        return {"name": target.name, "size": len(content), "crc32": f"{zlib.crc32(content):08x}",
                "sha256": hashlib.sha256(content).hexdigest(), "url": "/files/" + urllib.parse.quote(stored)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--save-dir", required=True)
    parser.add_argument("--max-upload-size", type=int, default=None)
    parser.add_argument("--title", default="filedrop")
    parser.add_argument("--no-config", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.save_dir = Path(args.save_dir).resolve()
    server.max_upload_size = args.max_upload_size
    server.title = args.title
    server.no_config = args.no_config
    server.verbose = args.verbose
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
