#!/usr/bin/env python3
"""What the repository's text tells its readers, checked on the files git tracks (CI's lint stage):

1. the Markdown, all of it together, is at most 40,000 words (`wc -w`'s count): documents that
   document, not logs;
2. no docs, sources, tests or scripts speak of the sessions, attempts or issues that produced
   them ("session 49", "issue #45"): the commits hold that history, the files say what is;
3. nothing cites a file outside the repository (`../shared/…`, an absolute path of the machine):
   what the project needs from elsewhere is in `docs/` in its own words.

Usage: ci/docs.py [--words N]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
WORD_LIMIT = 40000
TEXT = (".md", ".swift", ".yaml", ".yml", ".py", ".sh", ".mustache", ".toml", ".json", ".txt", ".html", ".css")
HISTORY = re.compile(r"\b(session|issue)s?\s+#?\d+\b|\battempts?\s+#\d+", re.IGNORECASE)
OUTSIDE = re.compile(r"\.\./shared\b|(?<![\w.])/work/\w|\bshared/(reference|seeds)/")
# The scripts that hold these patterns to look for them.
SELF = {"ci/docs.py"}


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    return sorted(p for p in out.decode().split("\0") if p)


def main():
    limit = WORD_LIMIT
    if "--words" in sys.argv[1:]:
        limit = int(sys.argv[sys.argv.index("--words") + 1])
    problems = []
    words = 0
    for path in tracked():
        if not path.endswith(TEXT) or path in SELF or path.startswith("Fuzz/corpus/"):
            continue
        full = os.path.join(ROOT, path)
        if not os.path.isfile(full):
            continue
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        if path.endswith(".md"):
            words += len(text.split())
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, why in (
                (HISTORY, "speaks of the work's history; say what is, and leave history to the commits"),
                (OUTSIDE, "cites a file outside the repository; put what is needed in docs/ in our words"),
            ):
                match = pattern.search(line)
                if match:
                    problems.append(f"{path}:{number}: `{match.group(0)}` {why}")
    print(f"{words:,} words of Markdown (at most {limit:,})")
    if words > limit:
        problems.append(f"the Markdown holds {words:,} words, more than {limit:,}: cut what does not document")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
