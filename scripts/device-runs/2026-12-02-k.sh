#!/usr/bin/env bash
# Run k (2026-12-02, thirteenth session): the lines of 2026-12-02-k.txt through
# scripts/device-measure, then Nsight Compute (clocks left alone) on the naive matmul at 2048^3
# (B in the L2) and 4096^3: the L1's wavefronts and the sectors its misses fetch, against the
# fill count (0.25 wavefronts a warp FMA).
set -uo pipefail
out=${OUT:-/tmp/run-k}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$out" "$root/scripts/device-measure" --only "$root/scripts/device-runs/2026-12-02-k.txt" >"$out/measure-tail.txt" 2>&1
export LD_LIBRARY_PATH="$root/build-device-bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
g="$root/build-device-bin/gpucalc"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 2048 4096; do
  t0=$SECONDS
  timeout 120 "$ncu" --clock-control none -k regex:naive_matmul -c 1 --section MemoryWorkloadAnalysis_Tables \
    --section LaunchStats --metrics "regex:^l1tex__data_pipe_lsu_wavefronts(_mem_.*)?\.sum$,regex:^l1tex__m_.*sectors.*\.sum$,regex:^l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_ld(_lookup_(hit|miss))?\.sum$,sm__cycles_elapsed.max,sm__inst_executed_pipe_lsu.sum,l1tex__lsu_writeback_active.sum,regex:^smsp__average_warps_issue_stalled_(lg_throttle|long_scoreboard)_per_issue_active\.ratio$" \
    "$g" measure tiling --m $shape --n $shape --k $shape --tile 32 >"$out/ncu-naive-$shape.txt" 2>&1
  echo "rc=$? $((SECONDS - t0))s ncu naive $shape" >>"$out/runs-ncu.txt"
done
cat "$out/runs-ncu.txt"
for shape in 2048 4096; do
  echo "---- naive $shape"
  grep -E "l1tex__|sm__cycles|sm__inst|stalled" "$out/ncu-naive-$shape.txt" | awk '{print $1, $(NF)}' | head -40
done
echo "---- measure"
tail -60 "$out/measure-tail.txt"
