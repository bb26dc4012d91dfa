#!/usr/bin/env python3
"""Fails when a Swift function, initializer, closure-valued property or computed property body is
longer than the limit (default 80 lines: one screen). Counts lines from the declaration to its
closing brace; braces inside string literals and comments are ignored.

Usage: ci/function-length.py [--limit N] [--report] PATH...
"""
import os
import re
import sys

DECL = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|open|static|class|final|override|mutating|"
    r"nonisolated|convenience|required|async|lazy|dynamic)\s+)*"
    r"(?:func\s+[^\s(<]+|init[?!]?|deinit|subscript|var\s+\w+\s*:[^={]*\{)"
)


def strip_code(line, state):
    """Returns the line without strings and comments; `state` carries block comments and
    multi-line strings across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"] = False
            i = end + 2
            continue
        if state["multiline"]:
            end = line.find('"""', i)
            if end < 0:
                return "".join(out)
            state["multiline"] = False
            i = end + 3
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state["multiline"] = True
            i += 3
            continue
        if c == '"':
            i += 1
            depth = 0
            while i < len(line):
                if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "(":
                    depth += 1
                    i += 2
                    continue
                if depth and line[i] == "(":
                    depth += 1
                elif depth and line[i] == ")":
                    depth -= 1
                elif not depth and line[i] == "\\":
                    i += 1
                elif not depth and line[i] == '"':
                    break
                i += 1
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(path):
    """Yields (name, first line, length) for each declaration with a body."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multiline": False}
    code = [strip_code(line, state) for line in lines]
    for index, text in enumerate(code):
        m = DECL.match(text)
        if not m:
            continue
        depth = 0
        opened = False
        for end in range(index, len(code)):
            for c in code[end]:
                if c == "{":
                    depth += 1
                    opened = True
                elif c == "}":
                    depth -= 1
            if opened and depth <= 0:
                break
            if not opened and end > index + 8:
                break
        if opened:
            yield m.group(0).strip(), index + 1, end - index + 1


def main():
    args = sys.argv[1:]
    limit = 80
    report = False
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i : i + 2]
    if "--report" in args:
        report = True
        args.remove("--report")
    found = []
    for root in args:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = os.path.join(dirpath, name)
                    for decl, line, length in functions(path):
                        if length > limit:
                            found.append((length, path, line, decl))
    for length, path, line, decl in sorted(found, reverse=True):
        print(f"{path}:{line}: {length} lines (limit {limit}): {decl}")
    if found and not report:
        print(f"{len(found)} declaration(s) longer than {limit} lines; split them into named phases.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
