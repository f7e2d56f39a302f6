#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The resolver check (tests/packaging/resolver) can fail, and fails for
the right reason: probe .debs (dpkg-deb -b, no files, only Depends) run
against the recorded Ubuntu table.

- the Depends the statically linked build has resolve on jammy and noble
  (noble's GLib and libelf only through their t64 packages' Provides);
- 0.3.0's Depends (libbpf1, dynamic) do not resolve on jammy, and apt's
  line names libbpf1;
- a package no release has, and glibc newer than jammy's, are refused;
- without the Provides lines noble refuses GLib: they are what the table
  must record.

Usage: test-resolver.py [unittest arguments]   (exit status 0, 1, 77)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "testlib"))
import wftest  # noqa: E402

RESOLVER = os.path.join(HERE, "resolver")
TABLE = os.path.join(HERE, "ubuntu.tsv")

# What dpkg-shlibdeps writes for the statically linked build (Debian 12).
STATIC = ("libc6 (>= 2.34), libglib2.0-0 (>= 2.72), libjson-glib-1.0-0 (>= 1.6), "
          "libnl-3-200 (>= 3.2.7), libnl-genl-3-200 (>= 3.2.7), "
          "libnl-route-3-200 (>= 3.5.0), libnm0 (>= 1.36), libelf1 (>= 0.144), "
          "zlib1g (>= 1:1.2.3.3)")


class ResolverTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wf-test-resolver-")
        self.addCleanup(shutil.rmtree, self.dir)

    def probe(self, depends, name="wfprobe"):
        root = os.path.join(self.dir, name)
        os.makedirs(os.path.join(root, "DEBIAN"))
        with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
            f.write(f"Package: {name}\nVersion: 1.0\nArchitecture: amd64\n"
                    f"Maintainer: wlanfair tests <tests@wlanfair.invalid>\n"
                    f"Depends: {depends}\nDescription: resolver probe\n")
        deb = os.path.join(self.dir, f"{name}_1.0_amd64.deb")
        subprocess.run(["dpkg-deb", "--root-owner-group", "-b", root, deb],
                       check=True, capture_output=True)
        return deb

    def resolve(self, *debs, table=TABLE):
        r = subprocess.run([RESOLVER, "--json", "--table", table] + list(debs),
                           capture_output=True, text=True, timeout=300)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        out = json.loads(r.stdout)["releases"]
        self.assertEqual(r.returncode, 0 if all(v["resolves"] for v in out.values()) else 1)
        return out

    def test_static_build_installs_everywhere(self):
        out = self.resolve(self.probe(STATIC))
        for rel in ("jammy", "noble"):
            self.assertTrue(out[rel]["resolves"], f"{rel}: {out[rel]['lines']}")
        inst = " ".join(out["noble"]["lines"])
        self.assertIn("libglib2.0-0t64", inst)
        self.assertIn("libelf1t64", inst)

    def test_dynamic_libbpf_refused_on_jammy(self):
        out = self.resolve(self.probe(STATIC + ", libbpf1 (>= 1:0.8.0)"))
        self.assertFalse(out["jammy"]["resolves"])
        self.assertTrue(any("libbpf1" in l for l in out["jammy"]["lines"]), out["jammy"])
        self.assertTrue(out["noble"]["resolves"], out["noble"])

    def test_missing_package_refused(self):
        out = self.resolve(self.probe("libdoesnotexist1"))
        for rel in ("jammy", "noble"):
            self.assertFalse(out[rel]["resolves"])
            self.assertTrue(any("libdoesnotexist1" in l for l in out[rel]["lines"]), out[rel])

    def test_newer_glibc_refused_on_jammy(self):
        out = self.resolve(self.probe("libc6 (>= 2.36)"))
        self.assertFalse(out["jammy"]["resolves"])
        self.assertTrue(out["noble"]["resolves"], out["noble"])

    def test_noble_needs_the_t64_provides(self):
        stripped = os.path.join(self.dir, "no-provides.tsv")
        with open(TABLE) as src, open(stripped, "w") as dst:
            for line in src:
                cells = line.rstrip("\n").split("\t")
                if len(cells) == 7 and not line.startswith("#") and cells[0] != "release":
                    cells[3] = "-"
                dst.write("\t".join(cells) + "\n")
        out = self.resolve(self.probe("libglib2.0-0 (>= 2.72)"), table=stripped)
        self.assertTrue(out["jammy"]["resolves"], out["jammy"])
        self.assertFalse(out["noble"]["resolves"])

    def test_bad_input(self):
        bad = os.path.join(self.dir, "bad.tsv")
        with open(bad, "w") as f:
            f.write("release\tpackage\n")
        deb = self.probe("libc6")
        for args in (["--table", bad, deb], ["--release", "bionic", deb],
                     [os.path.join(self.dir, "missing.deb")]):
            r = subprocess.run([RESOLVER] + args, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertTrue(r.stderr.startswith("resolver: "), r.stderr)
            self.assertEqual(r.stdout, "")


def requires(names):
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            return f"{tool} not found"
    return None


if __name__ == "__main__":
    wftest.main(requires=requires)
