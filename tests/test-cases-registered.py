#!/usr/bin/env python3
"""Every unittest case of a Python test file that meson runs is run by some
meson test: named (Class.test_case), through its class, or with the whole
file. Per-case meson tests are generated from the files (list_cases.py),
but a split (a case on its own for is_parallel or a timeout, a class in
another suite) is written by hand, and a new class or case could fall
between them.

    test-cases-registered.py SOURCE_ROOT BUILD_ROOT

reads BUILD_ROOT/meson-info/intro-tests.json (this configuration's tests)
and the test files under SOURCE_ROOT (tests/, testbed/, testlib/, bench/).
A file no meson test runs at all is reported, not failed: its feature may
be off in this configuration (-Dbpf=disabled). Exit 1 when a case of a
file that is run is not.
"""
import glob
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from list_cases import cases  # noqa: E402

NAME = re.compile(r"^[A-Za-z_]\w*(\.test\w*)?$")


def registered(intro, top):
    """{source file: set of names it is run with, "" for the whole file}."""
    runs = {}
    for t in intro:
        cmd = t.get("cmd") or []
        for i, arg in enumerate(cmd):
            path = os.path.realpath(arg) if arg.endswith(".py") else None
            if path and path.startswith(top + os.sep) and os.path.isfile(path):
                names = {a for a in cmd[i + 1:] if NAME.match(a)}
                runs.setdefault(path, set()).update(names or {""})
                break
    return runs


def main(argv):
    top, build = os.path.realpath(argv[1]), argv[2]
    with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
        runs = registered(json.load(f), top)
    files = sorted({p for d in ("tests", "testbed", "testlib", "bench")
                    for pat in ("test_*.py", "test-*.py")
                    for p in glob.glob(os.path.join(top, d, "**", pat), recursive=True)})
    missing, unrun = [], []
    for path in files:
        found = cases(path)
        rel = os.path.relpath(path, top)
        if not found:
            continue                    # not unittest (TAP, a script)
        if path not in runs:
            unrun.append(rel)
            continue
        names = runs[path]
        if "" in names:
            continue                    # the whole file
        for cls, methods in found.items():
            if cls in names:
                continue
            missing += ["%s %s.%s" % (rel, cls, m) for m in methods
                        if "%s.%s" % (cls, m) not in names]
    for rel in unrun:
        print("note: no meson test runs %s in this configuration" % rel)
    for m in missing:
        print("not run by any meson test: " + m)
    print("%d test files, %d not run here, %d cases not registered"
          % (len(files), len(unrun), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
