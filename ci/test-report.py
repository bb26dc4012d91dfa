#!/usr/bin/env python3
"""Reads what ci/test.sh left in its log folder: prints the stage table (name, minutes:seconds,
result) and the closing line `tests: N passed, M failed` over every xUnit file (XCTest and Swift
Testing, the plain and the ThreadSanitizer run). A stage that failed without a failed test case
(a crash, a sanitizer report, a fuzz finding, a lint error) counts as one failure.

Usage: ci/test-report.py LOG_FOLDER
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

ORDER = ["setup", "lint", "build", "tests", "tsan", "fuzz"]


def stages(folder):
    found = {}
    for path in glob.glob(os.path.join(folder, "*.stage")):
        with open(path, encoding="utf-8") as f:
            name, seconds, rc = f.read().split()
        found[name] = (int(seconds), int(rc))
    return sorted(found.items(), key=lambda item: ORDER.index(item[0]) if item[0] in ORDER else len(ORDER))


def cases(folder):
    total = failed = 0
    for path in sorted(glob.glob(os.path.join(folder, "*.xml"))):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as error:
            print(f"ci/test-report.py: {path} is not readable xUnit ({error})")
            failed += 1
            continue
        for case in root.iter("testcase"):
            total += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
    return total, failed


def main():
    folder = sys.argv[1]
    table = stages(folder)
    print()
    print("| stage | time | result |")
    print("|---|---:|---|")
    for name, (seconds, rc) in table:
        print(f"| {name} | {seconds // 60}:{seconds % 60:02d} | {'ok' if rc == 0 else f'failed (exit {rc})'} |")
    print()
    total, failed = cases(folder)
    failed_stages = [name for name, (_, rc) in table if rc != 0]
    if failed_stages and failed == 0:
        failed = 1
    print(f"tests: {total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
