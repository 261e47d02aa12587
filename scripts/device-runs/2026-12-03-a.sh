#!/usr/bin/env bash
# Run a (2026-12-03, issue 35): scripts/device-measure's standard runs, then the lines of
# 2026-12-03-a.txt (the held-back predictions). On the GPU machine, with carry ["build-device-bin"]:
#   bash scripts/device-runs/2026-12-03-a.sh
set -uo pipefail
out=${OUT:-/tmp/run-a}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$out" "$root/scripts/device-measure" --also "$root/scripts/device-runs/2026-12-03-a.txt" >"$out/measure-tail.txt" 2>&1
rc=$?
grep -E "^rc=" "$out/runs.txt" | grep -v "^rc=0" | head -20
grep -E "in range|of the (low|high) end|bounds|^[a-z]+ +.*  [0-9.]+$" "$out/all.txt" | cut -c1-200 | head -80
echo "device-measure rc=$rc"
