"""The descriptor registry in C: every message and service descriptor protoc-c generated for a set of
.proto files, and the full names of the methods that stream, so the Swift method table is derived
from the .proto files and never typed twice.

Used by scripts/lib/generate_from_descriptors.py.
"""
from proto_descriptors import BANNER, c_name, one


def write_registry(files, c_dir, headers, options):
    prefix = options["registry"]
    guard = prefix.upper() + "_H"
    messages, services, streaming = [], [], []
    for file in files:
        package = one(file, "package")
        for message in file.get("message_type", []):
            if message.get("nested_type"):
                raise SystemExit("nested messages are not supported: keep proto/ flat")
            messages.append(c_name(package, one(message, "name")) + "__descriptor")
        for service in file.get("service", []):
            services.append(c_name(package, one(service, "name")) + "__descriptor")
            for method in service.get("method", []):
                if one(method, "server_streaming") == "true":
                    streaming.append(f"{package}.{one(service, 'name')}/{one(method, 'name')}")
    messages.sort()
    services.sort()
    streaming.sort()
    header = [f"/* {BANNER} */", f"#ifndef {guard}", f"#define {guard}", "",
              "#include <stddef.h>", "#include <protobuf-c/protobuf-c.h>"]
    header += [f'#include "{h}"' for h in sorted(headers)]
    header += ["", f"/* Every message descriptor of {options['what']}, in symbol order. */",
               f"size_t {prefix}_message_count(void);",
               f"const ProtobufCMessageDescriptor *{prefix}_message(size_t index);"]
    if services:
        header += ["", f"/* Every service descriptor of {options['what']}, in symbol order. */",
                   f"size_t {prefix}_service_count(void);",
                   f"const ProtobufCServiceDescriptor *{prefix}_service(size_t index);", "",
                   '/* The full names ("package.Service/Method") of the methods that return a stream. */',
                   f"size_t {prefix}_streaming_method_count(void);",
                   f"const char *{prefix}_streaming_method(size_t index);"]
    header += ["", "#endif"]
    (c_dir / "include" / f"{prefix}.h").write_text("\n".join(header) + "\n")

    source = [f"/* {BANNER} */", f'#include "{prefix}.h"', "",
              "static const ProtobufCMessageDescriptor *const messages[] = {"]
    source += [f"    &{m}," for m in messages]
    source += ["};", ""]
    if services:
        source += ["static const ProtobufCServiceDescriptor *const services[] = {"]
        source += [f"    &{s}," for s in services]
        source += ["};", "", "static const char *const streaming_methods[] = {"]
        source += [f'    "{m}",' for m in streaming]
        source += ["};", ""]
    source += [f"size_t {prefix}_message_count(void) {{ return sizeof messages / sizeof messages[0]; }}",
               f"const ProtobufCMessageDescriptor *{prefix}_message(size_t index) {{ return messages[index]; }}"]
    if services:
        source += [
            f"size_t {prefix}_service_count(void) {{ return sizeof services / sizeof services[0]; }}",
            f"const ProtobufCServiceDescriptor *{prefix}_service(size_t index) {{ return services[index]; }}",
            f"size_t {prefix}_streaming_method_count(void) {{",
            "    return sizeof streaming_methods / sizeof streaming_methods[0];", "}",
            f"const char *{prefix}_streaming_method(size_t index) {{ return streaming_methods[index]; }}"]
    (c_dir / f"{prefix}.c").write_text("\n".join(source) + "\n")
