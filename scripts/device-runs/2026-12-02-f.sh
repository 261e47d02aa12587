#!/usr/bin/env bash
# Run f (2026-12-02): scripts/device-runs/2026-12-02-f.txt through scripts/device-measure, then
# Nsight Compute (clocks left alone) on the attention kernel at head_dim 64 and 128.
set -uo pipefail
out=${1:-/tmp/run-f}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$out" timeout 420 bash "$root/scripts/device-measure" --only "$root/scripts/device-runs/2026-12-02-f.txt" >"$out/device-measure.txt" 2>&1
export LD_LIBRARY_PATH="$root/build-device-bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
g="$root/build-device-bin/gpucalc"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
sections="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SourceCounters"
metrics="--metrics sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct"
t0=$SECONDS
timeout 120 "$ncu" --clock-control none -k regex:attention_fwd -c 1 $sections $metrics "$g" measure attention >"$out/ncu-attention64.txt" 2>&1
echo "rc=$? $((SECONDS - t0))s ncu attention d64" >>"$out/runs.txt"
t0=$SECONDS
timeout 120 "$ncu" --clock-control none -k regex:attention_fwd -c 1 $sections $metrics "$g" measure attention --batch-size 2 --heads 8 --head-dim 128 >"$out/ncu-attention128.txt" 2>&1
echo "rc=$? $((SECONDS - t0))s ncu attention d128" >>"$out/runs.txt"
cat "$out/runs.txt"
grep -A60 "^\$ gpucalc measure all" "$out/extra.txt" | grep -E "banks|tiling|attention|little|fusion|pipeline" | cut -c1-250
grep -E "row read|time / row time|time, access cost|tiled time|grid:" "$out/extra.txt" | cut -c1-220 | head -60
