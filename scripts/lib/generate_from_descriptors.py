#!/usr/bin/env python3
"""Writes what protoc-c does not: the descriptor registry in C and the Swift message types.

Input: which set (`api`: proto/*.proto; `storage`: proto/storage/*.proto), and protoc's
FileDescriptorSet of its files (with source info) in text format, as printed by
`protoc --decode=google.protobuf.FileDescriptorSet`. Output, into the two folders given:

- <registry>.h / <registry>.c: every message and service descriptor that protoc-c
  generated, and the full names of the methods that stream, so the Swift method table is
  derived from the .proto files and never typed twice.
- <file>.pb.swift: one Swift value type per message and one open enum type per enum, with the
  proto's comments, the wire names as CodingKeys, and each request type tied to its response.

Called by scripts/generate-proto. The output is never edited by hand.
"""
import sys
from pathlib import Path

from c_registry import write_registry
from proto_descriptors import BANNER, comments_by_path, namespace, one, parse_text_format
from swift_messages import swift_enum, swift_message, swift_wire_encoding


def rpc_kinds_of(files):
    kinds = {}
    for file in files:
        for service in file.get("service", []):
            for method in service.get("method", []):
                if one(method, "client_streaming") == "true":
                    raise SystemExit(f"client streaming is not supported: {one(method, 'name')}")
                streaming = one(method, "server_streaming") == "true"
                request = one(method, "input_type").rsplit(".", 1)[1]
                response = one(method, "output_type").rsplit(".", 1)[1]
                if request in kinds:
                    raise SystemExit(f"{request} is the request of two methods; give each its own")
                kinds[request] = ("ServerStreamingRPCRequest" if streaming else "UnaryRPCRequest", response)
    return kinds


def indent(lines):
    return [("    " + line) if line else line for line in lines]


def write_swift(files, swift_dir, options):
    rpc_kinds = rpc_kinds_of(files)
    names = sorted(f"{one(file, 'package')}.{one(m, 'name')}" for file in files for m in file.get("message_type", []))
    packages = sorted({one(file, "package") for file in files})
    spaces = [f"// {BANNER}", ""]
    for package in packages:
        spaces += [f"/// The Swift types of the proto package `{package}`.", f"public enum {namespace(package)} {{}}", ""]
    (swift_dir / "Namespaces.pb.swift").write_text("\n".join(spaces).rstrip("\n") + "\n")
    imports = [f"import {m}" for m in options["imports"]]
    message_imports = [i for i in imports if not i.startswith("import C")]
    prefix = options["registry"]
    index = [f"// {BANNER}", ""] + imports + ([""] if imports else [])
    index += [f"/// Every generated message type of {options['what']}, by full proto name: what decodes a payload",
              "/// when only the name is known (the fuzzer, tests, tools).",
              f"public enum {options['index']} {{",
              "    public static let byProtoName: [String: any ProtoMessage.Type] = ["]
    index += [f'        "{n}": {namespace(n.rsplit(".", 1)[0])}.{n.rsplit(".", 1)[1]}.self,' for n in names]
    index += ["    ]", "",
              "    /// protoc-c's descriptor of each of them.",
              "    package static let descriptors = DescriptorRegistry(",
              f"        count: {prefix}_message_count(), descriptor: {{ {prefix}_message($0)! }})",
              "}"]
    (swift_dir / f"{options['index']}.pb.swift").write_text("\n".join(index) + "\n")
    for file in files:
        package = one(file, "package")
        comments = comments_by_path(file)
        lines = [f"// {BANNER}", f"// Source: {options['what']}{one(file, 'name')}", ""] + message_imports
        lines += ([""] if message_imports else []) + [f"extension {namespace(package)} {{"]
        blocks = [swift_enum(package, e, i, comments) for i, e in enumerate(file.get("enum_type", []))]
        blocks += [swift_message(package, m, i, comments, rpc_kinds)
                   for i, m in enumerate(file.get("message_type", []))]
        for block in blocks:
            lines += indent(block) + [""]
        lines = lines[:-1] + ["}", ""]
        for message in file.get("message_type", []):
            lines += swift_wire_encoding(package, message, options["index"]) + [""]
        stem = one(file, "name").removesuffix(".proto")
        (swift_dir / f"{stem}.pb.swift").write_text("\n".join(lines).rstrip("\n") + "\n")


# What differs between the two sets of .proto files: the API (proto/*.proto, in WaterProtocol,
# shipped with the client) and the storage format (proto/storage/*.proto, in WaterStore only).
# Both stand on the codec runtime (WaterCodec); the store's messages owe nothing to the API's.
SETS = {
    "api": {"registry": "water_registry", "index": "GeneratedMessages", "imports": ["CWaterProto", "WaterCodec"],
            "what": "proto/"},
    "storage": {"registry": "water_archive_registry", "index": "ArchiveMessages",
                "imports": ["CWaterArchive", "WaterCodec"], "what": "proto/storage/"},
}


def main():
    kind, descriptor_text, c_dir, swift_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    options = SETS[kind]
    files = parse_text_format(Path(descriptor_text).read_text().splitlines()).get("file", [])
    headers = [p.name for p in (c_dir / "include").glob("*.pb-c.h")]
    write_registry(files, c_dir, headers, options)
    write_swift(files, swift_dir, options)


if __name__ == "__main__":
    main()
