#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Prometheus configuration examples of docs/operations.md are valid:
every ```yaml block with scrape_configs: is written to a temporary
prometheus.yml and put through `promtool check config`, with rule_files
pointing at the tree's data/prometheus/ instead of
/usr/share/wlanfair/prometheus/ (so the shipped rules are checked with it)
and the file_sd target files (the blocks that start with "- targets:")
under a temporary /etc/prometheus/targets/. Exit 77 (skipped) without
promtool.

Usage: check-doc-config.py DOC RULES_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def yaml_blocks(text):
    return re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)


def main():
    promtool = os.environ.get("PROMTOOL", "promtool")
    if not shutil.which(promtool):
        print("promtool not found (package prometheus): skipped")
        return 77
    doc, rules = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(doc) as f:
        blocks = yaml_blocks(f.read())
    configs = [b for b in blocks if "scrape_configs:" in b]
    targets = [b for b in blocks if b.startswith("- targets:")]
    if not configs or not targets:
        print("%d configurations, %d target files found: the parser lost them"
              % (len(configs), len(targets)))
        return 1
    tmp = tempfile.mkdtemp(prefix="wf-doc-config-")
    rc = 0
    try:
        tdir = os.path.join(tmp, "targets")
        os.makedirs(tdir)
        for i, t in enumerate(targets):
            for kind in ("ap", "hosts"):
                with open(os.path.join(tdir, "%s-doc%d.yml" % (kind, i)), "w") as f:
                    f.write(t)
        for i, c in enumerate(configs):
            c = c.replace("/usr/share/wlanfair/prometheus/", rules + "/")
            c = c.replace("/etc/prometheus/targets/", tdir + "/")
            path = os.path.join(tmp, "prometheus-%d.yml" % i)
            with open(path, "w") as f:
                f.write(c)
            print("---- %s\n%s" % (path, c), flush=True)
            r = subprocess.run([promtool, "check", "config", path])
            rc = rc or r.returncode
    finally:
        shutil.rmtree(tmp)
    return rc


if __name__ == "__main__":
    sys.exit(main())
