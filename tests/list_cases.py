#!/usr/bin/env python3
"""The test cases of Python test files, so that nobody types them twice
(power-profiles-daemon's unittest_inspector.py does this for its tests).

    list_cases.py FILE [CLASS ...]
    list_cases.py --short FILE CLASS

prints one `Class.test_name` a line: every unittest case of FILE, or of
the classes named; --short: one class's case names without "test_" (what
a foreach of tests/meson.build appends to its prefix). The file is read (ast), not run: it may need root,
D-Bus or a build that is not there when meson configures. Cases a class
inherits from another class of the same file count as its own.
tests/meson.build builds its per-case tests from this (run_command at
setup; meson reconfigures when the file changes), and
test-cases-registered.py uses cases() to find a case no meson test runs.
"""
import ast
import sys


def cases(path):
    """{class name: [test method names]} of the file, in file order; only
    classes with at least one test_* method (own or inherited in-file)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    own, bases, order = {}, {}, []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            order.append(node.name)
            own[node.name] = [n.name for n in node.body
                              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                              and n.name.startswith("test")]
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]

    def all_of(name, seen=()):
        out = []
        for b in bases.get(name, []):
            if b in own and b not in seen:
                out += [m for m in all_of(b, seen + (name,)) if m not in out]
        return out + [m for m in own[name] if m not in out]

    return {c: all_of(c) for c in order if all_of(c)}


def main(argv):
    short = argv[1:2] == ["--short"]
    args = argv[2:] if short else argv[1:]
    if not args or (short and len(args) != 2):
        sys.exit("usage: list_cases.py FILE [CLASS ...] | --short FILE CLASS")
    found = cases(args[0])
    for c in args[1:] or list(found):
        if c not in found:
            sys.exit("list_cases.py: %s has no test class %s" % (args[0], c))
        for m in found[c]:
            print(m[len("test_"):] if short else "%s.%s" % (c, m))


if __name__ == "__main__":
    main(sys.argv)
