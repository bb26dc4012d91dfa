#!/usr/bin/env python3
"""The names check (CONTRIBUTING.md, "Format and style"): fails when more than 2.5 % of the
`let`/`var` bindings of the given trees are single letters (left for indices, coordinates in maths
and one-line closures), or more than a quarter of their functions are `static` (or `class`): a
type's behaviour belongs to its instances, and a namespace of static functions hides the state they
pass around. Operator functions (`static func ==`) are left out of both counts, as Swift requires
them to be static. Strings and comments are ignored, as ci/function-length.py ignores them.

Usage: ci/naming.py [--report] PATH...
"""
import os
import re
import sys

import importlib.util

_spec = importlib.util.spec_from_file_location(
    "function_length", os.path.join(os.path.dirname(os.path.abspath(__file__)), "function-length.py")
)
_function_length = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_function_length)
strip_code = _function_length.strip_code

SINGLE_LETTER_LIMIT = 2.5
STATIC_LIMIT = 25.0
FUNC = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*((?:\w+\s+)*)func\s+([^\s(<]+)")
BINDING = re.compile(r"\b(?:let|var)\s+(\(|[A-Za-z_]\w*)")
OPERATOR = re.compile(r"^[^\w]")


def swift_files(paths):
    for root in paths:
        if os.path.isfile(root):
            yield root
            continue
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield os.path.join(dirpath, name)


def tuple_names(code, start):
    """The identifiers of a tuple pattern `(a, b, _)` opening at `start`."""
    depth = 0
    for end in range(start, len(code)):
        if code[end] == "(":
            depth += 1
        elif code[end] == ")":
            depth -= 1
            if depth == 0:
                inner = code[start + 1 : end]
                return [n.strip() for n in inner.split(",") if re.fullmatch(r"\s*[A-Za-z_]\w*\s*", n)]
    return []


def count(path):
    """(bindings, single letters, functions, static functions, the single-letter names with lines)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multiline": False}
    code = [strip_code(line, state) for line in lines]
    bindings = singles = functions = statics = 0
    found = []
    for number, line in enumerate(code, 1):
        func = FUNC.match(line)
        if func and not OPERATOR.match(func.group(2)):
            functions += 1
            if re.search(r"\b(static|class)\b", func.group(1)):
                statics += 1
        for match in BINDING.finditer(line):
            names = tuple_names(line, match.start(1)) if match.group(1) == "(" else [match.group(1)]
            for name in names:
                if name == "_":
                    continue
                bindings += 1
                if len(name) == 1:
                    singles += 1
                    found.append(f"{path}:{number}: {name}")
    return bindings, singles, functions, statics, found


def main(argv):
    report = "--report" in argv
    paths = [a for a in argv if a != "--report"] or ["Sources"]
    totals = [0, 0, 0, 0]
    found = []
    for path in swift_files(paths):
        b, s, f, st, names = count(path)
        for i, v in enumerate((b, s, f, st)):
            totals[i] += v
        found += names
    bindings, singles, functions, statics = totals
    single_share = 100 * singles / max(bindings, 1)
    static_share = 100 * statics / max(functions, 1)
    print(f"{singles} of {bindings} bindings single letters ({single_share:.1f} %, at most {SINGLE_LETTER_LIMIT} %)")
    print(f"{statics} of {functions} functions static ({static_share:.1f} %, at most {STATIC_LIMIT:.0f} %)")
    if report:
        print("\n".join(found))
    failed = single_share > SINGLE_LETTER_LIMIT or static_share > STATIC_LIMIT
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
