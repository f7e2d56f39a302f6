#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `promtool check metrics` (the exposition lint) on what COMMAND prints.
# Usage: promtool-check-metrics.sh COMMAND [ARG...]
# Exit 77 (skipped) where promtool (Debian's package prometheus) is absent;
# any finding fails.
set -eu
promtool=${PROMTOOL:-promtool}
if ! command -v "$promtool" >/dev/null 2>&1; then
  echo "promtool not found (package prometheus): skipped"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out"
cat "$out"
echo "---- $promtool check metrics"
"$promtool" check metrics <"$out"
