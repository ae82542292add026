"""copa-validate: checks copa's JSON documents against the JSON Schemas in schemas/ (draft 2020-12).
A document names its schema in its "schema" field ("copa-result/1" -> schemas/copa-result-1.schema.json);
directories are searched for *.json recursively. Documents without a "schema" field are skipped
(counted), or refused with --strict. Exit status: 0 every document valid, 1 a document is invalid,
2 bad input (a path, a malformed JSON file, a schema copa does not know)."""
import argparse
import json
import os

from . import metadata
from .errors import EXIT_CHECK_FAILED, EXIT_OK, InputError
from .resultset import load_json

SCHEMAS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "schemas")


def schema_file(name):
    """'copa-result/1' -> .../schemas/copa-result-1.schema.json"""
    return os.path.join(SCHEMAS, name.replace("/", "-") + ".schema.json")


def load_validator(name, cache={}):  # noqa: B006 -- one validator per schema for the whole run
    if name not in cache:
        import jsonschema
        path = schema_file(name)
        if not os.path.isfile(path):
            raise InputError(f"schema {name!r}: no {os.path.relpath(path, os.path.dirname(SCHEMAS))}")
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        cache[name] = jsonschema.Draft202012Validator(schema)
    return cache[name]


def json_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for n in sorted(files):
                    if n.endswith(".json"):
                        yield os.path.join(root, n)
        elif os.path.isfile(p):
            yield p
        else:
            raise InputError(f"{p}: no such file or directory")


def validate_file(path, strict=False):
    """[] when valid, else the error messages; None when skipped (no schema field)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = load_json(f, path)
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None
    name = doc.get("schema") if isinstance(doc, dict) else None
    if not isinstance(name, str):
        if strict:
            return ["no \"schema\" field naming a copa schema"]
        return None
    validator = load_validator(name)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message}"
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))]


def main(argv):
    p = argparse.ArgumentParser(prog="copa-validate", description="Validate copa JSON documents against schemas/.",
                                epilog="Exit status: 0 all valid, 1 a document is invalid, 2 bad input.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="JSON files or directories (searched recursively)")
    p.add_argument("--strict", action="store_true", help="a *.json without a \"schema\" field is invalid")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-validate"))
    args = p.parse_args(argv)
    counts, invalid = {}, 0
    skipped = 0
    for path in json_files(args.paths):
        errors = validate_file(path, args.strict)
        if errors is None:
            skipped += 1
            continue
        counts[path] = len(errors)
        if errors:
            invalid += 1
            print(f"INVALID {path}")
            for e in errors[:20]:
                print(f"  {e}")
    print(f"copa-validate: {len(counts) - invalid} of {len(counts)} documents valid, {invalid} invalid, "
          f"{skipped} without a schema field skipped")
    if not counts and not skipped:
        raise InputError("no *.json found in " + ", ".join(args.paths))
    return EXIT_CHECK_FAILED if invalid else EXIT_OK

