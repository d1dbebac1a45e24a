"""A water client written from proto/README.md alone: TLS 1.3 with ALPN water/1 and the pinned
fingerprint, frames, the handshake, a login and a drink. Run by TLSTests with Debian's python3
and python3-protobuf; prints one line, `ok <day total> <cipher>`, or fails.

usage: tls_client.py PROTO_DIR HOST PORT FINGERPRINT USERNAME PASSWORD
"""
import base64
import glob
import hashlib
import os
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import uuid

proto_dir, host, port, pinned, username, password = sys.argv[1:7]

# The generated messages, from the .proto files as the README says.
generated = tempfile.mkdtemp()
subprocess.run(["protoc", f"--python_out={generated}", f"-I{proto_dir}"] + glob.glob(f"{proto_dir}/*.proto"), check=True)
sys.path.insert(0, generated)
import accounts_pb2  # noqa: E402
import envelope_pb2  # noqa: E402
import tracker_pb2  # noqa: E402

# Section 1: TLS 1.3, ALPN water/1, the certificate's SHA-256 against the pinned fingerprint.
context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.minimum_version = ssl.TLSVersion.TLSv1_3
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
context.set_alpn_protocols(["water/1"])
tls = context.wrap_socket(socket.create_connection((host, int(port)), timeout=10), server_hostname=host)
der = tls.getpeercert(binary_form=True)
seen = "SHA256:" + base64.b64encode(hashlib.sha256(der).digest()).decode().rstrip("=")
if seen != pinned:
    sys.exit(f"the server presents {seen}, not the pinned {pinned}")
if tls.selected_alpn_protocol() != "water/1" or tls.version() != "TLSv1.3":
    sys.exit(f"negotiated {tls.version()} with ALPN {tls.selected_alpn_protocol()}")


# Section 2: frames.
def send(call_id, method, request, token=b""):
    envelope = envelope_pb2.RequestEnvelope(
        call_id=call_id, method=method, auth_token=token, payload=request.SerializeToString())
    payload = envelope.SerializeToString()
    tls.sendall(struct.pack(">BI", 0, len(payload)) + payload)


def receive_exactly(count):
    data = b""
    while len(data) < count:
        chunk = tls.recv(count - len(data))
        if not chunk:
            sys.exit("the server closed the connection")
        data += chunk
    return data


def reply(response_type):
    flags, length = struct.unpack(">BI", receive_exactly(5))
    envelope = envelope_pb2.ResponseEnvelope.FromString(receive_exactly(length))
    if envelope.status.code != 0:
        sys.exit(f"call {envelope.call_id} failed: {envelope.status.code} {envelope.status.message}")
    return response_type.FromString(envelope.payload)


# Section 4: the handshake; then a login and a drink.
send(1, "water.v1.Connection/Handshake", envelope_pb2.HandshakeRequest(protocol_version=1, client_name="python"))
hello = reply(envelope_pb2.HandshakeResponse)
send(2, "water.v1.Accounts/Login", accounts_pb2.LoginRequest(username=username, password=password))
token = reply(accounts_pb2.LoginResponse).auth_token
send(3, "water.v1.Tracker/LogWater", tracker_pb2.LogWaterRequest(entry_id=str(uuid.uuid4()), amount_ml=330), token)
logged = reply(tracker_pb2.LogWaterResponse)
print(f"ok {logged.day.amount_ml} {tls.cipher()[0]}")
