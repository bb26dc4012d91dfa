#!/usr/bin/env python3
"""Reads what ci/test.sh left in its log folder: prints the stage table (name, minutes:seconds,
CPU minutes:seconds, result) and the closing line `tests: N passed, M failed` over every xUnit file (XCTest and Swift
Testing, the plain and the ThreadSanitizer run). A stage that failed without a failed test case
(a crash, a sanitizer report, a fuzz finding, a lint error) counts as one failure. It also says
how many test cases of the plain run start no process: the cases of every class outside
IntegrationTests, a Swift Testing test with arguments counted once per argument (its "with N test
cases" line in tests.log), as Swift Testing counts them.

An integration test that failed in the parallel run and passed when run again alone
(`rerun.xml`) counts as passed and is named as flaky; one that failed again counts as failed.

Usage: ci/test-report.py LOG_FOLDER              the table and the closing line; exit 1 on a failure
       ci/test-report.py LOG_FOLDER --rerun-filter
           the `swift test --filter` that selects the failed integration tests to run again alone;
           exit 1 when a test other than an integration test failed (those are not run again)
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ORDER = ["setup", "python", "lint", "build", "coverage", "tests", "rerun", "tsan", "fuzz"]


def stages(folder):
    found = {}
    for path in glob.glob(os.path.join(folder, "*.stage")):
        with open(path, encoding="utf-8") as f:
            fields = f.read().split()
        name, seconds, rc = fields[:3]
        # The stage's CPU time (user + system), when ci/test.sh recorded it.
        cpu = int(fields[3]) if len(fields) > 3 else None
        found[name] = (int(seconds), int(rc), cpu)
    return sorted(found.items(), key=lambda item: ORDER.index(item[0]) if item[0] in ORDER else len(ORDER))


def read_cases(path):
    """(classname, name) → failed, for one xUnit file; None when it cannot be read."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as error:
        print(f"ci/test-report.py: {path} is not readable xUnit ({error})")
        return None
    cases = {}
    for case in root.iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        key = (case.get("classname"), case.get("name"))
        cases[key] = cases.get(key, False) or failed
    return cases


def results(folder):
    """Every case of every run, the reruns replacing the first results; and the flaky ones."""
    merged, unreadable = {}, 0
    for path in sorted(glob.glob(os.path.join(folder, "*.xml"))):
        if os.path.basename(path).startswith("rerun"):
            continue
        cases = read_cases(path)
        if cases is None:
            unreadable += 1
            continue
        for key, failed in cases.items():
            merged[(os.path.basename(path),) + key] = failed
    flaky = []
    for path in sorted(glob.glob(os.path.join(folder, "rerun*.xml"))):
        for key, failed in (read_cases(path) or {}).items():
            original = ("tests.xml",) + key
            if merged.get(original) and not failed:
                flaky.append(f"{key[0]}/{key[1]}")
            if original in merged:
                merged[original] = failed
    return merged, unreadable, flaky


def rerun_filter(folder):
    cases = read_cases(os.path.join(folder, "tests.xml")) or {}
    failed = [key for key, bad in cases.items() if bad]
    others = [key for key in failed if not (key[0] or "").startswith("IntegrationTests.")]
    for path in glob.glob(os.path.join(folder, "tests-*.xml")):
        others += [key for key, bad in (read_cases(path) or {}).items() if bad]
    names = [f"{re.escape(c)}/{re.escape(n)}" for c, n in failed if (c or "").startswith("IntegrationTests.")]
    if names:
        print("^(" + "|".join(names) + ")$")
    return 1 if others or not failed else 0


def in_process_share(folder):
    """(cases that start no process, all cases) of the plain run (tests*.xml, not the reruns or TSan)."""
    arguments = {}
    try:
        with open(os.path.join(folder, "tests.log"), encoding="utf-8", errors="replace") as log:
            for line in log:
                found = re.search(r"Test (\S+\)) with (\d+) test cases", line)
                if found:
                    arguments[found.group(1)] = int(found.group(2))
    except OSError:
        pass
    inside = total = 0
    for path in glob.glob(os.path.join(folder, "tests*.xml")):
        for (classname, name) in read_cases(path) or {}:
            count = arguments.get(name, 1) if path.endswith("-swift-testing.xml") else 1
            total += count
            if not (classname or "").startswith("IntegrationTests."):
                inside += count
    return inside, total


def main():
    folder = sys.argv[1]
    if "--rerun-filter" in sys.argv:
        return rerun_filter(folder)
    table = stages(folder)
    print()
    print("| stage | time | CPU | result |")
    print("|---|---:|---:|---|")
    for name, (seconds, rc, cpu) in table:
        used = "" if cpu is None else f"{cpu // 60}:{cpu % 60:02d}"
        print(f"| {name} | {seconds // 60}:{seconds % 60:02d} | {used} | {'ok' if rc == 0 else f'failed (exit {rc})'} |")
    print()
    merged, unreadable, flaky = results(folder)
    for name in flaky:
        print(f"flaky: {name} failed beside other tests and passed when run alone")
    total = len(merged)
    failed = sum(1 for bad in merged.values() if bad) + unreadable
    # The parallel run's exit status is superseded by the rerun of its failed tests.
    rerun = any(name == "rerun" for name, _ in table)
    failed_stages = [name for name, (_, rc, _) in table if rc != 0 and not (rerun and name == "tests")]
    if failed_stages and failed == 0:
        failed = 1
    inside, cases = in_process_share(folder)
    if cases:
        print(f"in-process: {inside} of {cases} test cases start no process ({100 * inside / cases:.1f} %)")
    print(f"tests: {total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
