#!/usr/bin/env bash
# Run b (2026-12-05, issue 35), in two device calls of at most 600 s each (run a took 332 s with
# 21 lines; the cold fusion runs take longer). On the GPU machine, with carry ["build-device-bin"]:
#   bash scripts/device-runs/2026-12-05-b.sh 1   # scripts/device-measure's standard runs, then 2026-12-05-b1.txt (fusion)
#   bash scripts/device-runs/2026-12-05-b.sh 2   # 2026-12-05-b2.txt alone (tiling and attention)
set -uo pipefail
out=${OUT:-/tmp/run-b}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ "${1:-1}" = 1 ]; then
  OUT="$out" "$root/scripts/device-measure" --also "$root/scripts/device-runs/2026-12-05-b1.txt" >"$out/measure-tail.txt" 2>&1
else
  OUT="$out" "$root/scripts/device-measure" --only "$root/scripts/device-runs/2026-12-05-b2.txt" >"$out/measure-tail.txt" 2>&1
fi
rc=$?
grep -E "^rc=" "$out/runs.txt" | grep -v "^rc=0" | head -20
[ -f "$out/all.txt" ] && grep -E "in range|of the (low|high) end|bounds|^[a-z]+ +.*  [0-9.]+$" "$out/all.txt" | cut -c1-200 | head -80
echo "device-measure rc=$rc"
