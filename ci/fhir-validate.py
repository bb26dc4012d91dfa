#!/usr/bin/env python3
"""An independent check of the FHIR bodies VitalSim sends: each line of a `wire.jsonl` (written by
`vitalsim generate --sut PROFILE`) whose content type is FHIR JSON is parsed by fhir.resources
(6.5.0, with pydantic 1) as the Bundle or Observation it claims to be, and every decimal of it must
be a JSON number (a parser that reads "38.5" as a decimal would let through what R4's JSON format
forbids). A request sent valid must pass; one sent corrupt on purpose must fail exactly when its
corruption is of the structure level (what R4 itself declares invalid), and pass when it is of the
terminology or plausibility level (valid R4 that an RPM backend should still refuse).

Usage: fhir-validate.py WIRE.jsonl...   (run with .venv-fhir/bin/python, ci/setup-debian.sh --python)
Prints one line per disagreement and a summary; exits 1 when there is any.
"""
import json
import sys

from fhir.resources.bundle import Bundle
from fhir.resources.observation import Observation
from pydantic import ValidationError

# R4 elements of type decimal that VitalSim writes (Quantity.value, SampledData's origin, period,
# factor and limits): their JSON form is a number, never a string.
DECIMAL_KEYS = {"value", "period", "factor", "lowerLimit", "upperLimit"}
QUANTITY_KEYS = {"valueQuantity", "origin", "low", "high"}


def string_decimals(node, path="", parent=""):
    """The paths of decimals written as JSON strings under `node`."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}" if path else key
            decimal = key in DECIMAL_KEYS and (key != "value" or parent in QUANTITY_KEYS)
            if decimal and isinstance(value, str):
                found.append(here)
            found += string_decimals(value, here, key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += string_decimals(value, f"{path}[{i}]", parent)
    return found


def problems(body):
    """Why `body` is not valid FHIR R4 JSON (empty when it is)."""
    try:
        document = json.loads(body)
    except ValueError as error:
        return [f"not JSON: {error}"]
    if not isinstance(document, dict):
        return ["not a JSON object"]
    model = {"Bundle": Bundle, "Observation": Observation}.get(document.get("resourceType"))
    if model is None:
        return [f"resourceType {document.get('resourceType')!r} is not checked here"]
    found = [f"decimal as a JSON string at {p}" for p in string_decimals(document)]
    try:
        model.parse_obj(document)
    except ValidationError as error:
        found += [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:3]]
    return found


def main(paths):
    checked, disagreements = 0, 0
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                request = json.loads(line)
                if "fhir" not in request.get("contentType", ""):
                    continue
                checked += 1
                found = problems(request.get("body", ""))
                corrupt = request.get("corrupt")
                if corrupt is None:
                    wrong = f"sent valid, but {found}" if found else None
                elif corrupt.get("level") == "structure":
                    wrong = None if found else f"sent as a {corrupt.get('corruption')} of R4's structure, but it validates"
                else:
                    wrong = f"a {corrupt.get('level')} corruption is valid R4, but {found}" if found else None
                if wrong:
                    disagreements += 1
                    print(f"{path}:{number}: request {request['i']} ({', '.join(request['readings'])}): {wrong}")
    print(f"{checked} FHIR request(s) checked, {disagreements} disagreement(s)")
    return 1 if disagreements or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
