#!/usr/bin/env bash
# Run e (2026-12-02, the twelfth session): what the kernels whose times do not hold spend their
# cycles on. Nsight Compute (clocks left alone) on the banks row read and a conflict-free column
# read, the tiled and the naive matmul, pipeline S = 1; nvidia-smi's SM clock sampled every 50 ms
# while measure tiling, attention and banks run without a profiler.
# Run on the device machine from the repository root: bash scripts/device-runs/2026-12-02-e.sh DIR
set -uo pipefail
out=${1:-/tmp/run-e}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export LD_LIBRARY_PATH="$root/build-device-bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
g="$root/build-device-bin/gpucalc"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
sections="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats"
metrics="--metrics sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__cycles_active.avg,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"
prof() {  # prof NAME KERNEL-REGEX SKIP COUNT gpucalc-args...
  local name=$1 k=$2 skip=$3 c=$4; shift 4
  local t0=$SECONDS
  timeout 150 "$ncu" --clock-control none --target-processes all -k "regex:$k" --launch-skip "$skip" -c "$c" $sections $metrics "$g" "$@" >"$out/ncu-$name.txt" 2>&1
  echo "rc=$? $((SECONDS - t0))s ncu $name: gpucalc $*" >>"$out/runs.txt"
}
date -u >"$out/runs.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.applications.graphics,power.limit --format=csv >>"$out/runs.txt" 2>&1
"$ncu" --version >>"$out/runs.txt" 2>&1
# clocks while the kernels run as measure runs them (no profiler)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 50 >"$out/smi-clocks.csv" 2>&1 &
smi=$!
for cmd in "measure tiling" "measure attention" "measure banks" "measure banks --width 33 --access column" "measure pipeline --stages 1,2"; do
  echo "=== $(date -u +%T.%N) $cmd" >>"$out/plain.txt"
  t0=$SECONDS
  $g $cmd >>"$out/plain.txt" 2>&1
  echo "rc=$? $((SECONDS - t0))s plain: gpucalc $cmd" >>"$out/runs.txt"
  echo "=== $(date -u +%T.%N) end" >>"$out/plain.txt"
done
kill $smi 2>/dev/null
# banks: 2 warm-ups, 7 timed, then the counting runs of the row read, then the asked access
prof banks-row banks_kernel 2 1 measure banks
prof banks-col32 banks_kernel 10 2 measure banks
prof banks-col33 banks_kernel 10 2 measure banks --width 33 --access column
prof tiled tiled_matmul 2 1 measure tiling
prof naive naive_matmul 2 1 measure tiling
prof pipeline pipeline_kernel 0 40 measure pipeline --stages 1,2
/usr/local/cuda/bin/cuobjdump -sass "$root/build-device-bin/gpucalc-measure" 2>/dev/null | gzip >"$out/sass.txt.gz"
cat "$out/runs.txt"
for f in "$out"/ncu-*.txt; do
  echo "---- $f"
  grep -E "^\s+[a-z_]+.*<|^  [A-Za-z].*\(|Duration|SM Frequency|Elapsed Cycles|sm__cycles_elapsed|Issue Slots Busy|Issued Ipc|No Eligible|Stall|shared_op_ld|hit_rate|dram__bytes|Achieved Occupancy|inst_executed.sum|pct_of_peak" "$f" | head -40
done
