"""An MQTT broker that attacks its client, for MQTTHostileBrokerTests (issue 30, item 5). It speaks
just enough MQTT (3.1.1 or 5, whichever the client's CONNECT asks for): a CONNACK that accepts,
then the attack. It never acknowledges anything the client sends; it reads and drops it.

usage: hostile_mqtt_broker.py MODE GO_FILE [options]

  qos2-flood   PUBLISH packets at QoS 2 (--count of them, --payload bytes each, all on one topic,
               packet ids 1, 2, ...) never released by a PUBREL, as fast as the client reads them
  huge-packet  one QoS 0 PUBLISH announcing the largest remaining length MQTT can say (268 435 455
               bytes), then --megabytes MiB of its payload, and nothing more
  mqtt311-only no attack: a broker too old for MQTT 5, which refuses a CONNECT for 5 as such a
               broker does (a 3.1.1 CONNACK, "unacceptable protocol version") and accepts 3.1.1;
               done once it has accepted one

Prints `listening PORT` once it listens on 127.0.0.1 (a free port), `connected N` for each client
and `level L` for its CONNECT's protocol level (4: 3.1.1, 5: MQTT 5), and `done connections=N
packets=P bytes=B` once the attack is over: its count or size sent, or
--connections clients served (each reconnection is attacked again), or --seconds passed. The first
client is attacked only once GO_FILE exists (the test measures the client before). After `done`
it holds its connections open, until killed or --seconds pass.
"""
import argparse
import os
import socket
import sys
import threading
import time

LARGEST_REMAINING_LENGTH = 268_435_455
TOPIC = b"water/ben/state"

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["qos2-flood", "huge-packet", "mqtt311-only"])
parser.add_argument("go_file")
parser.add_argument("--count", type=int, default=4096)
parser.add_argument("--payload", type=int, default=16384)
parser.add_argument("--megabytes", type=int, default=64)
parser.add_argument("--connections", type=int, default=3)
parser.add_argument("--seconds", type=float, default=60)
options = parser.parse_args()
deadline = time.monotonic() + options.seconds
sent = {"packets": 0, "bytes": 0, "accepted": 0}


def say(line):
    print(line, flush=True)


def remaining_length(count):
    encoded = bytearray()
    while True:
        byte, count = count % 128, count // 128
        encoded.append(byte | (0x80 if count else 0))
        if not count:
            return bytes(encoded)


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the client closed")
        data += chunk
    return data


def read_packet(connection):
    header = read_exactly(connection, 1)[0]
    length, shift = 0, 0
    while True:
        byte = read_exactly(connection, 1)[0]
        length += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return header, read_exactly(connection, length)


def drain(connection):
    try:
        while connection.recv(65536):
            pass
    except OSError:
        pass


def send(connection, data):
    connection.sendall(data)
    sent["bytes"] += len(data)


def qos2_flood(connection, is_v5):
    payload = b"x" * options.payload
    for index in range(options.count - sent["packets"]):
        packet_id = index % 65535 + 1
        variable = len(TOPIC).to_bytes(2, "big") + TOPIC + packet_id.to_bytes(2, "big") + (b"\x00" if is_v5 else b"")
        send(connection, b"\x34" + remaining_length(len(variable) + len(payload)) + variable + payload)
        sent["packets"] += 1
        if time.monotonic() > deadline:
            return


def huge_packet(connection, is_v5):
    variable = len(TOPIC).to_bytes(2, "big") + TOPIC + (b"\x00" if is_v5 else b"")
    send(connection, b"\x30" + remaining_length(LARGEST_REMAINING_LENGTH) + variable)
    sent["packets"] += 1
    chunk = bytes(65536)
    while sent["bytes"] < options.megabytes << 20 and time.monotonic() < deadline:
        send(connection, chunk)


def attack_is_over(connections):
    if options.mode == "mqtt311-only" and sent["accepted"]:
        return True
    if options.mode == "qos2-flood" and sent["packets"] >= options.count:
        return True
    if options.mode == "huge-packet" and sent["bytes"] >= options.megabytes << 20:
        return True
    return connections >= options.connections or time.monotonic() > deadline


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(8)
say(f"listening {listener.getsockname()[1]}")
held = []
connections = 0
while not attack_is_over(connections):
    listener.settimeout(max(deadline - time.monotonic(), 0.1))
    try:
        connection, _ = listener.accept()
    except socket.timeout:
        break
    held.append(connection)
    connections += 1
    say(f"connected {connections}")
    try:
        kind, connect = read_packet(connection)
        if kind >> 4 != 1:
            continue
        is_v5 = connect[6] == 5  # after the protocol name: 00 04 'MQTT', then its level
        say(f"level {connect[6]}")
        if options.mode == "mqtt311-only" and is_v5:
            send(connection, b"\x20\x02\x00\x01")
            connection.close()
            continue
        send(connection, b"\x20\x03\x00\x00\x00" if is_v5 else b"\x20\x02\x00\x00")
        sent["accepted"] += 1
        threading.Thread(target=drain, args=(connection,), daemon=True).start()
        while connections == 1 and not os.path.exists(options.go_file) and time.monotonic() < deadline:
            time.sleep(0.02)
        if options.mode == "qos2-flood":
            qos2_flood(connection, is_v5)
        elif options.mode == "huge-packet":
            huge_packet(connection, is_v5)
    except OSError:
        pass  # the client closed: wait for it to come back
say(f"done connections={connections} packets={sent['packets']} bytes={sent['bytes']}")
while time.monotonic() < deadline:
    time.sleep(0.1)
sys.exit(0)
