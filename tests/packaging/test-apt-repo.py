#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/apt-repo makes a repository that apt trusts through the .sources
file it writes, and only that: probe .debs named like ours, a throwaway
key, apt run offline (its own state, none of this machine's apt
configuration) on a file: copy of each suite's .sources.

- every suite updates with the key embedded in Signed-By and installs
  wlanfair and wlanfair-ap from the repository;
- a changed Packages index, a changed InRelease and a repository signed by
  another key are each refused by apt;
- the INSTALL file it writes is the README's "Installing" block with the
  URL changed (tests/packaging/readme-install runs that block in CI and
  the lab);
- a directory it did not write is refused and left as it was; its own is
  updated in place (a release adds a version).

Usage: test-apt-repo.py [unittest arguments]   (exit status 0, 1, 77)
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "testlib"))
import wftest  # noqa: E402

APT_REPO = os.path.join(TOP, "tools", "apt-repo")
README_INSTALL = os.path.join(HERE, "readme-install")
SUITES = ("bookworm", "trixie", "jammy", "noble")


def probe(dirname, name, version):
    root = os.path.join(dirname, f"{name}-{version}")
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: {name}\nVersion: {version}\nArchitecture: amd64\n"
                f"Maintainer: wlanfair tests <tests@wlanfair.invalid>\n"
                f"Section: net\nPriority: optional\nDescription: repository probe\n")
    deb = os.path.join(dirname, f"{name}_{version}_amd64.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", root, deb],
                   check=True, capture_output=True)
    return deb


class AptRepoTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wf-test-apt-repo-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.debs = [probe(self.dir, "wlanfair", "1.0"), probe(self.dir, "wlanfair-ap", "1.0")]

    def make_repo(self, name="repo", debs=None, check=True):
        out = os.path.join(self.dir, name)
        r = subprocess.run([APT_REPO, out, "--url", f"file:{out}", "--throwaway-key"]
                           + (debs or self.debs), capture_output=True, text=True, timeout=120)
        if check:
            self.assertEqual(r.returncode, 0, r.stderr)
        return out, r

    def apt(self, sources_text, tag):
        """apt-get update, then install --simulate of both packages, with
        only this source; (update ok, output)."""
        d = os.path.join(self.dir, "apt-" + tag)
        apt, env = wftest.apt_offline(d, sources_parts={"wlanfair.sources": sources_text})
        up = subprocess.run(apt + ["update"], env=env,
                            capture_output=True, text=True, timeout=120)
        # apt-get update exits 0 on some refusals (a warning, the old
        # lists kept); an error line is a refusal either way.
        ok = up.returncode == 0 and not re.search(r"^(E|W): ", up.stderr, re.M)
        if not ok:
            return False, up.stdout + up.stderr
        inst = subprocess.run(apt + ["install", "--simulate", "wlanfair", "wlanfair-ap"],
                              env=env, capture_output=True, text=True, timeout=120)
        return inst.returncode == 0, inst.stdout + inst.stderr

    def test_every_suite_installs_through_its_sources(self):
        out, _ = self.make_repo()
        for suite in SUITES:
            with open(os.path.join(out, f"wlanfair-{suite}.sources")) as f:
                text = f.read()
            self.assertIn(f"Suites: {suite}\n", text)
            self.assertIn("Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n", text)
            ok, log = self.apt(text, suite)
            self.assertTrue(ok, log)
            self.assertIn("Inst wlanfair (1.0", log)
            self.assertIn("Inst wlanfair-ap (1.0", log)

    def test_changed_packages_refused(self):
        out, _ = self.make_repo()
        base = os.path.join(out, "dists", "noble", "main", "binary-amd64")
        for name in os.listdir(base):
            path = os.path.join(base, name)
            if name == "Packages":
                with open(path, "a") as f:
                    f.write("\n")
            elif name == "Packages.gz":
                with gzip.open(path, "rb") as f:
                    data = f.read()
                with gzip.open(path, "wb") as f:
                    f.write(data + b"\n")
        with open(os.path.join(out, "wlanfair-noble.sources")) as f:
            ok, log = self.apt(f.read(), "tampered")
        self.assertFalse(ok, log)
        self.assertRegex(log, r"Hash Sum mismatch|unexpected size")

    def test_changed_inrelease_refused(self):
        out, _ = self.make_repo()
        path = os.path.join(out, "dists", "jammy", "InRelease")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("Label: wlanfair", "Label: wlanfair-changed", 1))
        with open(os.path.join(out, "wlanfair-jammy.sources")) as f:
            ok, log = self.apt(f.read(), "badsig")
        self.assertFalse(ok, log)
        self.assertRegex(log, r"BADSIG|signatures (were|couldn't be) (invalid|verified)|not signed")

    def test_other_key_refused(self):
        first, _ = self.make_repo("first")
        second, _ = self.make_repo("second")
        with open(os.path.join(first, "wlanfair-trixie.sources")) as f:
            text = f.read().replace(f"file:{first}", f"file:{second}")
        ok, log = self.apt(text, "otherkey")
        self.assertFalse(ok, log)
        self.assertRegex(log, r"NO_PUBKEY|not signed|signatures couldn't be verified")

    def test_install_file_is_the_readme_block(self):
        out, _ = self.make_repo()
        with open(os.path.join(out, "INSTALL")) as f:
            written = f.read().splitlines()
        with open(os.path.join(TOP, "README.md")) as f:
            readme = f.read()
        block = re.search(r"^<!-- install:begin -->\n(.*?)^<!-- install:end -->$", readme, re.M | re.S)
        self.assertIsNotNone(block, "README.md has no install block")
        lines = [l[4:] for l in block.group(1).splitlines() if l.startswith("    ")]
        self.assertEqual([l.replace("https://apt.wlanfair.org", f"file:{out}") for l in lines], written)
        printed = subprocess.run([README_INSTALL, "--print", "--url", "http://h:1", "--package",
                                  "wlanfair-ap"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(printed.splitlines(),
                         [lines[0].replace("sudo ", "").replace("https://apt.wlanfair.org", "http://h:1"),
                          lines[1].replace("sudo ", "").replace("install wlanfair", "install wlanfair-ap")])

    def test_foreign_directory_refused_own_updated(self):
        foreign = os.path.join(self.dir, "foreign")
        os.makedirs(foreign)
        with open(os.path.join(foreign, "keep"), "w") as f:
            f.write("mine\n")
        _, r = self.make_repo("foreign", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a repository this tool wrote", r.stderr)
        self.assertEqual(os.listdir(foreign), ["keep"])

        out, _ = self.make_repo()
        newer = [probe(self.dir, "wlanfair", "1.1")]
        _, r = self.make_repo(debs=newer)
        pool = sorted(f for _, _, fs in os.walk(os.path.join(out, "pool")) for f in fs)
        self.assertEqual(pool, ["wlanfair-ap_1.0_amd64.deb", "wlanfair_1.1_amd64.deb"])

    def test_bad_usage(self):
        deb = self.debs[0]
        for args in ([os.path.join(self.dir, "r"), "--url", "ftp://x", "--throwaway-key", deb],
                     [os.path.join(self.dir, "r"), "--url", "http://x", deb],
                     [os.path.join(self.dir, "r"), "--url", "http://x", "--throwaway-key",
                      "--sign-with", "X", deb],
                     [os.path.join(self.dir, "r"), "--url", "http://x", "--throwaway-key",
                      "--suites", "Bad Name", deb],
                     [os.path.join(self.dir, "r"), "--url", "http://x", "--throwaway-key",
                      os.path.join(self.dir, "missing.deb")]):
            r = subprocess.run([APT_REPO] + args, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertTrue(r.stderr.startswith("apt-repo: "), r.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "r")))


def requires(names):
    for tool in ("apt-get", "dpkg-deb", "reprepro", "gpg", "gpgv"):
        if shutil.which(tool) is None:
            return f"{tool} not found (tools/install-deps installs it)"
    return None


if __name__ == "__main__":
    wftest.main(requires=requires)
