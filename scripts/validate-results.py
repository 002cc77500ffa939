#!/usr/bin/env python3
"""Validates stressbench results files against Schemas/results.schema.json.

Usage: scripts/validate-results.py RESULTS.json...
Needs jsonschema from PyPI (in a virtual environment on PEP 668 systems:
`python3 -m venv .venv && .venv/bin/pip install jsonschema`). Also accepts
NDJSON streams (--ndjson files: each line is one trials[] element, or a
hunt's line, {"kind": "hunt", "trial": ID, "hunt": {...}}).
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "Schemas" / "results.schema.json"


def definition_validator(schema, name):
    """A validator of one of the schema's $defs, its references resolved."""
    definition = dict(schema, **{"$ref": "#/$defs/" + name})
    for key in ("properties", "required", "type", "additionalProperties"):
        definition.pop(key, None)
    return jsonschema.Draft202012Validator(definition)


def line_validator(line, record_validator, hunt_line_validator):
    """An NDJSON line with the validator of its kind: a hunt's line says
    kind: hunt; a trial record has no kind."""
    is_hunt = isinstance(line, dict) and line.get("kind") == "hunt"
    return (hunt_line_validator if is_hunt else record_validator, line)


def main():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    record_validator = definition_validator(schema, "trialResult")
    hunt_line_validator = definition_validator(schema, "huntLine")
    bad = 0
    for path in sys.argv[1:]:
        text = pathlib.Path(path).read_text()
        documents = ([(validator, json.loads(text))] if not path.endswith(".ndjson")
                     else [line_validator(json.loads(line), record_validator, hunt_line_validator)
                           for line in text.splitlines() if line.strip()])
        errors = [e for v, d in documents for e in v.iter_errors(d)]
        for e in errors[:20]:
            print(f"{path}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
        bad += bool(errors)
        if not errors:
            print(f"{path}: valid ({len(documents)} document(s))")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
