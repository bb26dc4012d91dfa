#!/usr/bin/env python3
"""The module map's rules (docs/architecture.md, "Modules"), checked on Package.swift as SwiftPM
reads it (`swift package dump-package`); CI's lint stage runs it. The build itself enforces that a
target imports only what it declares (--explicit-target-dependency-import-check error); this
checks what the declarations may be:

1. at most six levels of dependencies between VitalSim's own targets, executables included;
2. the harness never depends on the reference SUT: only the command line, the fuzz targets, the
   reference SUT itself and tests may reach `ReferenceEngine` or `ReferenceSUT`;
3. transports know no payloads: `Transports` does not reach `VitalSimCore`;
4. pure modules read no clock, start no process, open no socket (their sources are searched);
5. every library module has a test target of its own, named after it (`<Module>Tests`);
6. what a run observes sits below the judge: `SUTAdapter` does not reach `Judge`;
7. only the live side reaches the HCI host: no module of generation, traffic, judging, the
   requirements or the reference engine depends on `BluetoothHost`;
8. docs/architecture.md's module table is the one this script generates from Package.swift, and
   every VitalSim target has a paragraph there saying what it owns.

A module over 4,000 lines is named as one to look at, not a failure. Prints each module's lines
(code without blank and comment lines; all lines) and each rule broken.

Usage: ci/module-map.py            check (CI's lint stage)
       ci/module-map.py --write    rewrite docs/architecture.md's module table
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MAX_DEPTH = 6
REFERENCE = {"ReferenceEngine", "ReferenceSUT"}
MAY_REACH_REFERENCE = {"vitalsim", "FuzzTargets", "vitalsim-fuzz", "ReferenceSUT", "ReferenceEngine"}
PURE = ["VitalSimCore", "Generation", "Traffic", "RunRecord", "Judge", "Requirements", "ReferenceEngine", "SUTAdapter/Profile"]
IMPURE = re.compile(
    r"\b(ContinuousClock|SuspendingClock)\s*(\(|\.now)|\bDate\(\)|\bProcess\(\)|\bsocket\(|\bURLSession\b"
    r"|\bTask\.sleep\b|\bThread\("
)
LOOK_AT = 4000
BELOW_JUDGE = ["SUTAdapter", "RunRecord", "Traffic", "Generation", "VitalSimCore"]
WITHOUT_HOST = ["VitalSimCore", "Generation", "Bluetooth", "Traffic", "RunRecord", "Judge", "Requirements", "ReferenceEngine"]
ARCHITECTURE = os.path.join(ROOT, "docs", "architecture.md")
TABLE_START = "<!-- module table: `python3 ci/module-map.py --write` writes it; CI checks it -->"
TABLE_END = "<!-- end of module table -->"


def lines(path):
    code = total = 0
    block = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            total += 1
            text = line.strip()
            if block:
                block = "*/" not in text
                continue
            if not text or text.startswith("//"):
                continue
            if text.startswith("/*"):
                block = "*/" not in text
                continue
            code += 1
    return code, total


def swift_files(directory):
    for dirpath, _, names in os.walk(directory):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(dirpath, name)


def module_table(targets, names, deps, depth):
    """The Markdown table of VitalSim's targets: depth, folders, the VitalSim modules and the
    external products each declares, deepest first."""
    rows = ["| module | depth | folders | imports (VitalSim) | external products |", "|---|---:|---|---|---|"]
    for name in sorted(names, key=lambda n: (-depth(n), n)):
        target = targets[name]
        folder = os.path.join(ROOT, target.get("path") or os.path.join("Sources", name))
        folders = sorted(
            e for e in os.listdir(folder) if os.path.isdir(os.path.join(folder, e)) and not e.startswith(".")
        ) if os.path.isdir(folder) else []
        products = []
        for d in target["dependencies"]:
            if "product" in d:
                condition = d["product"][3] if len(d["product"]) > 3 else None
                traits = (condition or {}).get("traits") or []
                products.append(d["product"][0] + (f" (trait {', '.join(traits)})" if traits else ""))
        own = ", ".join(f"`{d}`" for d in deps(name)) or "—"
        rows.append(
            f"| `{name}` | {depth(name)} | {', '.join(folders) or '—'} | {own} | {', '.join(products) or '—'} |"
        )
    return "\n".join(rows) + "\n"


def main():
    package = json.loads(
        subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    )
    targets = {t["name"]: t for t in package["targets"]}
    own = {n for n, t in targets.items() if t["type"] != "system"}

    def deps(name):
        out = []
        for d in targets[name]["dependencies"]:
            for kind in ("byName", "target"):
                if kind in d and d[kind][0] in own:
                    out.append(d[kind][0])
        return out

    depth_of = {}

    def depth(name):
        if name not in depth_of:
            depth_of[name] = 1 + max((depth(d) for d in deps(name)), default=-1)
        return depth_of[name]

    def reaches(name, goal, seen=None):
        seen = set() if seen is None else seen
        for d in deps(name):
            if d in goal or (d not in seen and not seen.add(d) and reaches(d, goal, seen)):
                return True
        return False

    broken = []
    for name in sorted(own):
        # Tests and their fixtures (under Tests/) may reach anything.
        if targets[name]["type"] == "test" or (targets[name].get("path") or "").startswith("Tests/"):
            continue
        if depth(name) > MAX_DEPTH:
            broken.append(f"{name}: {depth(name)} levels of dependencies, more than {MAX_DEPTH}")
        if name not in MAY_REACH_REFERENCE and reaches(name, REFERENCE):
            broken.append(f"{name}: depends on the reference SUT; the harness must judge any SUT alone")
    for name in BELOW_JUDGE:
        if name in targets and reaches(name, {"Judge"}):
            broken.append(f"{name}: depends on Judge; what a run observes sits below the judge")
    for name in WITHOUT_HOST:
        if name in targets and reaches(name, {"BluetoothHost"}):
            broken.append(f"{name}: depends on BluetoothHost; only the live side reaches the HCI host")
    if reaches("Transports", {"VitalSimCore"}):
        broken.append("Transports: depends on VitalSimCore; transports move bytes and know no payloads")
    for pure in PURE:
        for path in swift_files(os.path.join(ROOT, "Sources", pure)):
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    code = line.split("//", 1)[0]
                    match = IMPURE.search(code)
                    if match:
                        where = os.path.relpath(path, ROOT)
                        broken.append(f"{where}:{number}: `{match.group(0)}` in a pure module (no clock, process or socket)")
    libraries = sorted(n for n, t in targets.items() if t["type"] == "regular" and not (t.get("path") or "").startswith("Tests/"))
    for name in libraries:
        if f"{name}Tests" not in targets:
            broken.append(f"{name}: no test target {name}Tests")

    documented = [n for n, t in targets.items() if t["type"] != "test" and not (t.get("path") or "").startswith("Tests/")]
    table = module_table(targets, documented, deps, depth)
    with open(ARCHITECTURE, encoding="utf-8") as f:
        page = f.read()
    if TABLE_START not in page or TABLE_END not in page:
        broken.append(f"docs/architecture.md: no module table between {TABLE_START!r} and {TABLE_END!r}")
    else:
        head, rest = page.split(TABLE_START, 1)
        _, tail = rest.split(TABLE_END, 1)
        fresh = head + TABLE_START + "\n" + table + TABLE_END + tail
        if "--write" in sys.argv[1:]:
            with open(ARCHITECTURE, "w", encoding="utf-8") as f:
                f.write(fresh)
        elif fresh != page:
            broken.append("docs/architecture.md: the module table is stale; run `python3 ci/module-map.py --write`")
    for name in sorted(documented):
        if not re.search(r"^- \*\*`" + re.escape(name) + r"`\*\*", page, re.M):
            broken.append(f"docs/architecture.md: no paragraph `- **`{name}`** …` saying what {name} owns")

    sizes = []
    for name in libraries + sorted(n for n, t in targets.items() if t["type"] == "executable"):
        code = total = 0
        # A target's own folder when the manifest names one (Benchmarks/HotPaths), else Sources/NAME.
        for path in swift_files(os.path.join(ROOT, targets[name].get("path") or os.path.join("Sources", name))):
            c, t = lines(path)
            code += c
            total += t
        sizes.append((total, code, name))
    sizes.sort(reverse=True)
    if "--write" not in sys.argv[1:]:
        print("| module | depth | code | all |")
        print("|---|---:|---:|---:|")
        for total, code, name in sizes:
            print(f"| `{name}` | {depth(name)} | {code:,} | {total:,} |")
    for total, _, name in sizes:
        if total > LOOK_AT:
            print(f"note: {name} has {total:,} lines, over {LOOK_AT:,}: worth a look for a seam", file=sys.stderr)
    for problem in broken:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
