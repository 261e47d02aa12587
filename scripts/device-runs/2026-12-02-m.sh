#!/usr/bin/env bash
# Run m (2026-12-02, thirteenth session): the lines of 2026-12-02-m.txt through scripts/device-measure.
set -uo pipefail
out=${OUT:-/tmp/run-m}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$out" "$root/scripts/device-measure" --only "$root/scripts/device-runs/2026-12-02-m.txt" >"$out/measure-tail.txt" 2>&1
grep -E "^\\\$ gpucalc measure fusion|speed-up, model|unfused time, model|fused time, model" "$out/extra.txt" | cut -c1-60,100-
tail -25 "$out/measure-tail.txt"
