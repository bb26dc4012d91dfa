#!/usr/bin/env python3
"""Lines of Swift per target under Sources: code (without blank and comment lines) and all lines.
Prints a Markdown table (as in docs/architecture.md) and fails when a target has more than the
limit of lines in all (default 2,500).

Usage: ci/target-sizes.py [--limit N]
"""
import os
import sys


def count(path):
    code = total = 0
    block = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            total += 1
            text = line.strip()
            if block:
                if "*/" in text:
                    block = False
                continue
            if not text or text.startswith("//"):
                continue
            if text.startswith("/*"):
                block = "*/" not in text
                continue
            code += 1
    return code, total


def main():
    limit = 2500
    if "--limit" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--limit") + 1])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    sizes = []
    for target in sorted(os.listdir(root)):
        code = total = 0
        for dirpath, _, names in os.walk(os.path.join(root, target)):
            for name in names:
                if name.endswith(".swift"):
                    c, t = count(os.path.join(dirpath, name))
                    code += c
                    total += t
        if total:
            sizes.append((code, total, target))
    sizes.sort(reverse=True)
    half = (len(sizes) + 1) // 2
    print("| target | code | all | | target | code | all |")
    print("|---|---:|---:|---|---|---:|---:|")
    for i in range(half):
        left = sizes[i]
        right = sizes[i + half] if i + half < len(sizes) else None
        row = f"| `{left[2]}` | {left[0]:,} | {left[1]:,} |"
        row += f" | `{right[2]}` | {right[0]:,} | {right[1]:,} |" if right else " | | | |"
        print(row)
    over = [s for s in sizes if s[1] > limit]
    for code, total, target in over:
        print(f"{target}: {total:,} lines, over the limit of {limit:,}; split it along a seam", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
