#!/usr/bin/env bash
# Run g (2026-12-02): where the attention, tiled and naive kernels stall. Nsight Compute (clocks
# left alone) with every warp-stall reason per issue and the source counters, then the per-SASS-
# instruction stall samples of each report as CSV.
set -uo pipefail
out=${1:-/tmp/run-g}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export LD_LIBRARY_PATH="$root/build-device-bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
g="$root/build-device-bin/gpucalc"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
date -u >"$out/runs.txt"
prof() {  # prof NAME KERNEL-REGEX SKIP gpucalc-args...
  local name=$1 k=$2 skip=$3; shift 3
  local t0=$SECONDS
  timeout 150 "$ncu" --clock-control none -k "regex:$k" --launch-skip "$skip" -c 1 --section WarpStateStats --section SourceCounters \
    --section SchedulerStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__cycles_elapsed.max,smsp__inst_executed.sum" \
    -o "$out/$name" "$g" "$@" >"$out/ncu-$name.log" 2>&1
  echo "rc=$? $((SECONDS - t0))s ncu $name: gpucalc $*" >>"$out/runs.txt"
  "$ncu" -i "$out/$name.ncu-rep" --page details --print-details all >"$out/ncu-$name.txt" 2>&1
  "$ncu" -i "$out/$name.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip >"$out/source-$name.csv.gz"
  rm -f "$out/$name.ncu-rep"
}
prof attention64 attention_fwd 0 measure attention
prof tiled32 tiled_matmul 2 measure tiling --m 2048 --n 2048 --k 4096 --tile 32
prof naive naive_matmul 0 measure tiling --m 2048 --n 2048 --k 4096 --tile 32
prof bankrow banks_kernel 2 measure banks
cat "$out/runs.txt"
for f in "$out"/ncu-*.txt; do
  echo "---- $f"
  grep -E "stalled_.*ratio" "$f" | awk '$NF+0 > 0.05' | sort -k3 -nr | head -12
done
ls -la "$out"
