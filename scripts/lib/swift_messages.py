"""The Swift form of one message or enum of a .proto file: its value type (with the proto's comments,
the wire names as CodingKeys and proto3's JSON defaults) and its conformance to WaterCodec's
WireMessage (its fields stored into and read from protobuf-c's struct by index).

Used by scripts/lib/generate_from_descriptors.py.
"""
from proto_descriptors import doc, lower_camel, namespace, one, screaming


SCALARS = {
    "TYPE_INT32": ("Int32", "0"), "TYPE_SINT32": ("Int32", "0"), "TYPE_SFIXED32": ("Int32", "0"),
    "TYPE_INT64": ("Int64", "0"), "TYPE_SINT64": ("Int64", "0"), "TYPE_SFIXED64": ("Int64", "0"),
    "TYPE_UINT32": ("UInt32", "0"), "TYPE_FIXED32": ("UInt32", "0"),
    "TYPE_UINT64": ("UInt64", "0"), "TYPE_FIXED64": ("UInt64", "0"),
    "TYPE_BOOL": ("Bool", "false"), "TYPE_DOUBLE": ("Double", "0"), "TYPE_FLOAT": ("Float", "0"),
    "TYPE_STRING": ("String", '""'), "TYPE_BYTES": ("[UInt8]", "[]"),
}


def swift_field_type(field):
    kind = one(field, "type")
    if kind in SCALARS:
        base, default = SCALARS[kind]
    elif kind == "TYPE_ENUM":
        base = one(field, "type_name").rsplit(".", 1)[1]
        default = f"{base}(rawValue: 0)"
    elif kind == "TYPE_MESSAGE":
        base = one(field, "type_name").rsplit(".", 1)[1]
        default = None
    else:
        raise SystemExit(f"unsupported field type {kind}")
    if one(field, "label") == "LABEL_REPEATED":
        return f"[{base}]", "[]"
    if default is None:
        return f"{base}?", "nil"
    return base, default


# How one value of each field type becomes a FieldValue for protobuf-c ({v} is the value).
WIRE_VALUES = {
    "TYPE_INT32": ".signed(Int64({v}))", "TYPE_SINT32": ".signed(Int64({v}))", "TYPE_SFIXED32": ".signed(Int64({v}))",
    "TYPE_INT64": ".signed({v})", "TYPE_SINT64": ".signed({v})", "TYPE_SFIXED64": ".signed({v})",
    "TYPE_UINT32": ".unsigned(UInt64({v}))", "TYPE_FIXED32": ".unsigned(UInt64({v}))",
    "TYPE_UINT64": ".unsigned({v})", "TYPE_FIXED64": ".unsigned({v})",
    "TYPE_BOOL": ".bool({v})", "TYPE_DOUBLE": ".double({v})", "TYPE_FLOAT": ".float({v})",
    "TYPE_STRING": ".string({v})", "TYPE_BYTES": ".bytes({v})",
    "TYPE_ENUM": ".signed(Int64({v}.rawValue))",
}

# How a generated initializer reads a FieldValue `{v}` of each type.
READ_VALUES = {
    "TYPE_INT32": "{v}.int32", "TYPE_SINT32": "{v}.int32", "TYPE_SFIXED32": "{v}.int32",
    "TYPE_INT64": "{v}.int64", "TYPE_SINT64": "{v}.int64", "TYPE_SFIXED64": "{v}.int64",
    "TYPE_UINT32": "{v}.uint32", "TYPE_FIXED32": "{v}.uint32", "TYPE_UINT64": "{v}.uint64", "TYPE_FIXED64": "{v}.uint64",
    "TYPE_BOOL": "{v}.bool", "TYPE_DOUBLE": "{v}.double", "TYPE_FLOAT": "{v}.float",
    "TYPE_STRING": "{v}.string", "TYPE_BYTES": "{v}.bytes",
}

# Repeated fields of these types are copied to and from protobuf-c's array in one go: the Swift
# element type has the C type's layout.
NUMBER_TYPES = {
    "TYPE_INT32": "Int32", "TYPE_SINT32": "Int32", "TYPE_SFIXED32": "Int32",
    "TYPE_INT64": "Int64", "TYPE_SINT64": "Int64", "TYPE_SFIXED64": "Int64",
    "TYPE_UINT32": "UInt32", "TYPE_FIXED32": "UInt32", "TYPE_UINT64": "UInt64", "TYPE_FIXED64": "UInt64",
    "TYPE_DOUBLE": "Double", "TYPE_FLOAT": "Float",
}


def read_expression(field, index):
    kind = one(field, "type")
    repeated = one(field, "label") == "LABEL_REPEATED"
    full = one(field, "type_name", ".x.X").lstrip(".")
    type_name = f"{namespace(full.rsplit('.', 1)[0])}.{full.rsplit('.', 1)[1]}"
    if repeated and kind in NUMBER_TYPES:
        return f"reader.numbers(at: {index}, as: {NUMBER_TYPES[kind]}.self)"
    if kind == "TYPE_MESSAGE":
        return f"reader.{'messages' if repeated else 'message'}(at: {index}, as: {type_name}.self)"
    value = f"{type_name}(rawValue: {{v}}.int32)" if kind == "TYPE_ENUM" else READ_VALUES[kind]
    if repeated:
        return f"reader.values(at: {index}) {{ {value.format(v='$0')} }}"
    return value.format(v=f"reader.value(at: {index})")


def encode_statement(field, index):
    """The statement of encodeFields that stores one field into the builder."""
    swift_name = lower_camel(one(field, "name"))
    kind = one(field, "type")
    if one(field, "label") == "LABEL_REPEATED":
        if kind in NUMBER_TYPES:
            return f"builder.setNumbers({swift_name}, at: {index})"
        if kind == "TYPE_MESSAGE":
            return f"builder.setMessages({swift_name}, at: {index})"
        return f"builder.setValues({swift_name}, at: {index}) {{ {WIRE_VALUES[kind].format(v='$0')} }}"
    if kind == "TYPE_MESSAGE":
        return f"if let value = {swift_name} {{ builder.setMessage(value, at: {index}) }}"
    return f"builder.set({WIRE_VALUES[kind].format(v=swift_name)}, at: {index})"


def swift_wire_encoding(package, message, index_name):
    """The message's conformance to WireMessage: its fields stored into a protobuf-c struct by
    field index, with no Codable and no runtime generics on the way."""
    qualified = f"{namespace(package)}.{one(message, 'name')}"
    fields = message.get("field", [])
    by_number = sorted(fields, key=lambda f: int(one(f, "number")))
    out = [f"extension {qualified}: WireMessage {{",
           f"    package static let wireDescriptor = {index_name}.descriptors.descriptor(named: protoName)", "",
           "    public func serializedBytes() -> [UInt8] {",
           "        WireCodec.pack(self)",
           "    }", "",
           "    public init(serializedBytes bytes: some Collection<UInt8>, limits: DecodeLimits) throws(DecodeError) {",
           "        self = try WireCodec.unpack(Self.self, from: bytes, limits: limits)",
           "    }", ""]
    if not fields:
        out += ["    package init(wire reader: MessageReader) {", "        self.init()", "    }", "",
                "    package func encodeFields(into builder: MessageBuilder) {}", "}"]
        return out
    arguments = ", ".join(f"{lower_camel(one(f, 'name')).strip('`')}: {read_expression(f, by_number.index(f))}"
                          for f in fields)
    out += ["    package init(wire reader: MessageReader) {", f"        self.init({arguments})", "    }", ""]
    out.append("    package func encodeFields(into builder: MessageBuilder) {")
    out += [f"        {encode_statement(field, by_number.index(field))}" for field in fields]
    out += ["    }", "}"]
    return out


def swift_message(package, message, index, comments, rpc_kinds):
    name = one(message, "name")
    full = f"{package}.{name}"
    out = doc(comments.get((4, index)), "")
    if out:
        out.append("///")
    out.append(f"/// The Swift form of `{full}`.")
    protocol, response = rpc_kinds.get(name, ("ProtoMessage", None))
    out.append(f"public struct {name}: {protocol} {{")
    out.append(f'    public static let protoName = "{full}"')
    if response:
        out.append(f"    public typealias Response = {response}")
        out.append("    public static let method = MethodTable.shared.method(calledBy: protoName)")
    fields = message.get("field", [])
    params = []
    for f_index, field in enumerate(fields):
        swift_name = lower_camel(one(field, "name"))
        swift_type, default = swift_field_type(field)
        out.append("")
        out += doc(comments.get((4, index, 2, f_index)), "    ")
        out.append(f"    public var {swift_name}: {swift_type}")
        params.append((swift_name, swift_type, default))
    out.append("")
    out.append(f"    /// Creates a `{name}`; omitted fields take the proto3 defaults.")
    signature = ", ".join(f"{n.strip('`')}: {t} = {d}" for n, t, d in params)
    out.append(f"    public init({signature}) {{")
    for n, _, _ in params:
        out.append(f"        self.{n.strip('`')} = {n.strip('`')}")
    out.append("    }")
    if fields:
        # The int value of each key is the field's index in protoc-c's descriptor, whose
        # fields are sorted by number: the same index the WireMessage code stores and reads by,
        # so a test can check the generator's indexes against the descriptor by name.
        by_number = sorted(fields, key=lambda f: int(one(f, "number")))
        out.append("")
        out.append("    enum CodingKeys: String, CodingKey {")
        for field in fields:
            out.append(f'        case {lower_camel(one(field, "name"))} = "{one(field, "name")}"')
        out.append("")
        out.append("        var intValue: Int? {")
        out.append("            switch self {")
        for field in fields:
            out.append(f'            case .{lower_camel(one(field, "name")).strip("`")}: {by_number.index(field)}')
        out.append("            }")
        out.append("        }")
        out.append("")
        out.append("        init?(intValue: Int) {")
        out.append("            switch intValue {")
        for field in by_number:
            out.append(f'            case {by_number.index(field)}: self = .{lower_camel(one(field, "name")).strip("`")}')
        out.append("            default: return nil")
        out.append("            }")
        out.append("        }")
        out.append("    }")
        # proto3's JSON form leaves a default value out, and a message written before a field
        # was added lacks it: either way the field takes its default (synthesized decoding
        # would refuse the whole message, and an old export would never import again).
        out.append("")
        out.append("    /// Decodes the JSON form; a field that is left out takes its proto3 default.")
        out.append("    public init(from decoder: any Decoder) throws {")
        out.append("        let container = try decoder.container(keyedBy: CodingKeys.self)")
        out.append("        self.init(")
        reads = []
        for n, t, d in params:
            key = n.strip("`")
            if t.endswith("?"):
                reads.append(f"            {key}: try container.decodeIfPresent({t[:-1]}.self, forKey: .{key})")
            else:
                reads.append(f"            {key}: try container.decodeIfPresent({t}.self, forKey: .{key}) ?? {d}")
        out += [read + ("," if i < len(reads) - 1 else ")") for i, read in enumerate(reads)]
        out.append("    }")
    out.append("}")
    return out


def swift_enum(package, enum, index, comments):
    name = one(enum, "name")
    prefix = screaming(name) + "_"
    out = doc(comments.get((5, index)), "")
    if out:
        out.append("///")
    out.append(f"/// The Swift form of `{package}.{name}`. Open, as proto3 enums are: a value this")
    out.append("/// version does not know survives decoding, and `isKnown` tells it apart.")
    out.append(f"public struct {name}: ProtoEnum {{")
    out.append("    public var rawValue: Int32")
    out.append("")
    out.append("    public init(rawValue: Int32) {")
    out.append("        self.rawValue = rawValue")
    out.append("    }")
    cases = []
    for v_index, value in enumerate(enum.get("value", [])):
        proto_name = one(value, "name")
        short = proto_name[len(prefix):] if proto_name.startswith(prefix) else proto_name
        swift_name = lower_camel(short)
        cases.append((swift_name, proto_name, one(value, "number")))
        out.append("")
        out += doc(comments.get((5, index, 2, v_index)), "    ")
        out.append(f"    public static let {swift_name} = {name}(rawValue: {one(value, 'number')})")
    out.append("")
    out.append("    /// Every value this version knows, in the proto's order.")
    out.append(f"    public static let knownValues: [{name}] = [{', '.join('.' + c[0].strip('`') for c in cases)}]")
    out.append("")
    out.append("    /// The value's name in the proto file, or nil for a value this version does not know.")
    out.append("    public var protoName: String? {")
    out.append("        switch rawValue {")
    for _, proto_name, number in cases:
        out.append(f'        case {number}: "{proto_name}"')
    out.append("        default: nil")
    out.append("        }")
    out.append("    }")
    out.append("}")
    return out
