#!/usr/bin/env python3
"""Validates stressbench results files against Schemas/results.schema.json.

Usage: scripts/validate-results.py RESULTS.json...
Needs jsonschema from PyPI (in a virtual environment on PEP 668 systems:
`python3 -m venv .venv && .venv/bin/pip install jsonschema`). Also accepts
NDJSON streams (--ndjson files: each line is one trials[] element).
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "Schemas" / "results.schema.json"


def main():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    record = dict(schema, **{"$ref": "#/$defs/trialResult"})
    for key in ("properties", "required", "type", "additionalProperties"):
        record.pop(key, None)
    record_validator = jsonschema.Draft202012Validator(record)
    bad = 0
    for path in sys.argv[1:]:
        text = pathlib.Path(path).read_text()
        documents = ([(validator, json.loads(text))] if not path.endswith(".ndjson")
                     else [(record_validator, json.loads(line)) for line in text.splitlines() if line.strip()])
        errors = [e for v, d in documents for e in v.iter_errors(d)]
        for e in errors[:20]:
            print(f"{path}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
        bad += bool(errors)
        if not errors:
            print(f"{path}: valid ({len(documents)} document(s))")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
