"""A JSON-Schema validator for the subset docs/stats-schema.json uses
(draft 2020-12 keywords: type, const, enum, required, properties,
additionalProperties: false, items, minItems, minimum, maximum, pattern,
$ref to #/$defs/..., if/then/else).  No pip packages: the tests run on
Debian's python3 as installed.  An unknown keyword is an error, so the
schema cannot silently use more than this checks."""
import re

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum", "required",
         "properties", "additionalProperties", "items", "minItems", "minimum", "maximum",
         "pattern", "$ref", "$defs", "if", "then", "else"}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


class SchemaError(Exception):
    pass


def _resolve(root, ref):
    if not ref.startswith("#/"):
        raise SchemaError(f"unsupported $ref {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def errors(instance, schema, root=None, path="$"):
    """All violations, as 'path: message' strings (empty list = valid)."""
    root = root if root is not None else schema
    unknown = set(schema) - KNOWN
    if unknown:
        raise SchemaError(f"schema at {path} uses unsupported keywords {sorted(unknown)}")
    out = []
    if "$ref" in schema:
        out += errors(instance, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](instance) for t in types):
            return out + [f"{path}: {instance!r:.60} is not of type {'/'.join(types)}"]
    if "const" in schema and instance != schema["const"]:
        out.append(f"{path}: {instance!r:.60} is not {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        out.append(f"{path}: {instance!r:.60} is not one of {schema['enum']}")
    if TYPES["number"](instance):
        if "minimum" in schema and instance < schema["minimum"]:
            out.append(f"{path}: {instance} < minimum {schema['minimum']}")
        if "maximum" in schema and instance > schema["maximum"]:
            out.append(f"{path}: {instance} > maximum {schema['maximum']}")
    if isinstance(instance, str) and "pattern" in schema and not re.search(schema["pattern"], instance):
        out.append(f"{path}: {instance!r:.60} does not match {schema['pattern']}")
    if isinstance(instance, dict):
        for k in schema.get("required", []):
            if k not in instance:
                out.append(f"{path}: missing required key {k!r}")
        props = schema.get("properties", {})
        for k, v in instance.items():
            if k in props:
                out += errors(v, props[k], root, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: unexpected key {k!r}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(instance):
                out += errors(v, schema["items"], root, f"{path}[{i}]")
    if "if" in schema:
        branch = "then" if not errors(instance, schema["if"], root, path) else "else"
        if branch in schema:
            out += errors(instance, schema[branch], root, path)
    return out
