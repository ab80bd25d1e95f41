#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (Debian's
python3-jsonschema, draft 2020-12). Prints each failure; exits 1 on any.
Usage: validate_json.py SCHEMA FILE...
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for f in sys.argv[2:]:
    try:
        doc = json.load(open(f))
    except ValueError as e:
        print("%s: not JSON: %s" % (f, e))
        bad += 1
        continue
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:3]:
        print("%s: %s at %s" % (f, e.message[:200], "/".join(map(str, e.path))))
    bad += bool(errs)
sys.exit(1 if bad else 0)
