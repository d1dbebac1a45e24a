#!/usr/bin/env python3
"""Opens URL in headless Chromium and waits, in order, for each TEXT to be in the page's text
(document.body.innerText, read through the DevTools protocol every 200 ms), printing
"seen TEXT" for each, or "timeout TEXT: <the page's text>" after 30 s. The page is never
reloaded: what changes in it, its own script changed. Stdlib only (a minimal WebSocket client).

Usage: wall_browser.py URL TEXT...
"""
import base64, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request


def websocket(url):
    host, port, path = re.match(r"ws://([^:/]+):(\d+)(/.*)", url).groups()
    sock = socket.create_connection((host, int(port)), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    assert b" 101 " in answer.split(b"\r\n")[0], answer
    return sock, answer.split(b"\r\n\r\n", 1)[1]


def send(sock, text):
    data = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(data) < 126:
        header += bytes([0x80 | len(data)])
    else:
        header += bytes([0x80 | 126]) + len(data).to_bytes(2, "big")
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def receive(sock, buffered):
    def read(count):
        nonlocal buffered
        while len(buffered) < count:
            buffered += sock.recv(65536)
        out, buffered = buffered[:count], buffered[count:]
        return out
    first, second = read(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(read(2), "big")
    elif length == 127:
        length = int.from_bytes(read(8), "big")
    payload = read(length)
    return first & 0x0F, payload, buffered


def main():
    url, wanted = sys.argv[1], sys.argv[2:]
    profile = tempfile.mkdtemp(prefix="wall-browser-")
    browser = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.time() + 60
        while port is None and time.time() < deadline:
            line = browser.stderr.readline()
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            port = found and found.group(1)
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        sock, buffered = websocket(page["webSocketDebuggerUrl"])
        number = 0
        for text in wanted:
            deadline = time.time() + 30
            seen = ""
            while time.time() < deadline:
                number += 1
                send(sock, json.dumps({"id": number, "method": "Runtime.evaluate",
                                       "params": {"expression": "document.body ? document.body.innerText : ''"}}))
                while True:
                    opcode, payload, buffered = receive(sock, buffered)
                    if opcode == 1 and json.loads(payload).get("id") == number:
                        seen = json.loads(payload)["result"]["result"].get("value", "")
                        break
                if text in seen:
                    break
                time.sleep(0.2)
            if text not in seen:
                print(f"timeout {text}: {seen!r}", flush=True)
                return 1
            print(f"seen {text}", flush=True)
        return 0
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


# A test that gives up sends SIGTERM: the browser goes too (the finally above).
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
sys.exit(main())
