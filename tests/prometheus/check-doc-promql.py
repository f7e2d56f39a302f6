#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every PromQL example of a document parses: the indented blocks after
HEADING (default "## Questions", docs/prometheus.md) become recording
rules of a temporary file that `promtool check rules` reads; fewer than
MIN (default 10) expressions is a failure (the parser lost them). Exit 77
(skipped) without promtool.

Usage: check-doc-promql.py DOC [HEADING [MIN]]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def expressions(text, heading="## Questions"):
    text = text.split(heading, 1)[1]
    exprs, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("    "):
            block.append(line[4:])
            continue
        if block:
            # One expression per line unless continued (indented further,
            # or closing a parenthesis).
            cur = []
            for b in block:
                if cur and not b.startswith((" ", ")")):
                    exprs.append("\n".join(cur))
                    cur = []
                cur.append(re.sub(r"\s+#.*$", "", b))
            exprs.append("\n".join(cur))
            block = []
    return exprs


def main():
    promtool = os.environ.get("PROMTOOL", "promtool")
    if not shutil.which(promtool):
        print("promtool not found (package prometheus): skipped")
        return 77
    heading = sys.argv[2] if len(sys.argv) > 2 else "## Questions"
    minimum = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with open(sys.argv[1]) as f:
        exprs = expressions(f.read(), heading)
    if len(exprs) < minimum:
        print("only %d expressions found: the parser lost them" % len(exprs))
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write("groups:\n  - name: doc\n    rules:\n")
        for i, e in enumerate(exprs):
            print("%d: %s" % (i, e.replace("\n", " ")))
            f.write("      - record: doc_example_%d\n        expr: |\n" % i)
            f.write("".join("          %s\n" % line for line in e.splitlines()))
    try:
        r = subprocess.run([promtool, "check", "rules", f.name])
    finally:
        os.unlink(f.name)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
