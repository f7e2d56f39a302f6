#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool ARG... (check rules FILE, test rules FILE); exit 77 (skipped)
# where promtool (Debian's package prometheus) is not installed.
promtool=${PROMTOOL:-promtool}
if ! command -v "$promtool" >/dev/null 2>&1; then
  echo "promtool not found (package prometheus): skipped"
  exit 77
fi
exec "$promtool" "$@"
