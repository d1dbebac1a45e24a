#!/usr/bin/env python3
"""An HTTP endpoint that speaks ntfy's publish API, for the reminder tests (ntfy itself is not
packaged in Debian). Listens on 127.0.0.1 (a free port, printed on the first line), takes
POST /TOPIC with the message as the body and Title, Priority, Tags and Authorization headers,
answers as ntfy does (200 and the message as JSON), and appends each request it got to LOG as one
JSON line. With --token T, a request without "Authorization: Bearer T" gets 403, as ntfy's access
control answers. POST /hang is never answered (a dead endpoint); POST /fail gets 500 (a broken one,
worth trying again). Runs until it is killed.

Usage: ntfy_endpoint.py LOG [--token T]
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_path = sys.argv[1]
token = sys.argv[sys.argv.index("--token") + 1] if "--token" in sys.argv else None
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 65536)
        body = self.rfile.read(length).decode("utf-8", "replace")
        topic = self.path.strip("/")
        entry = {
            "topic": topic,
            "title": self.headers.get("Title", ""),
            "priority": self.headers.get("Priority", ""),
            "tags": self.headers.get("Tags", ""),
            "authorization": self.headers.get("Authorization", ""),
            "message": body,
            "at": time.time(),
        }
        with lock, open(log_path, "a") as log:
            log.write(json.dumps(entry) + "\n")
        if topic == "hang":
            time.sleep(60)
            return
        if topic == "fail":
            self.send_response(500)
            self.end_headers()
            return
        if token is not None and entry["authorization"] != "Bearer " + token:
            self.send_response(403)
            self.end_headers()
            self.wfile.write(b'{"code":40301,"http":403,"error":"forbidden"}')
            return
        reply = json.dumps({"id": "x", "time": int(time.time()), "event": "message", "topic": topic,
                            "title": entry["title"], "message": body}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
