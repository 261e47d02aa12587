#!/usr/bin/env bash
# Run l (2026-12-02, thirteenth session): the lines of 2026-12-02-l.txt through
# scripts/device-measure, then Nsight Compute (clocks left alone) on fusion's binary x4 chain at
# N = 2^22, whose unfused kernels ran 1.33x their range in run h: each kernel's duration, DRAM and
# L2 throughput, L2 hit rate, waves and achieved occupancy.
set -uo pipefail
out=${OUT:-/tmp/run-l}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$out" "$root/scripts/device-measure" --only "$root/scripts/device-runs/2026-12-02-l.txt" >"$out/measure-tail.txt" 2>&1
export LD_LIBRARY_PATH="$root/build-device-bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
g="$root/build-device-bin/gpucalc"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
t0=$SECONDS
timeout 150 "$ncu" --clock-control none -k regex:binary -c 8 --section SpeedOfLight --section LaunchStats --section Occupancy \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
  "$g" measure fusion --preset binary --ops 4 --n 2^22 >"$out/ncu-fusion-binary.txt" 2>&1
echo "rc=$? $((SECONDS - t0))s ncu fusion binary x4 2^22" >>"$out/runs-ncu.txt"
cat "$out/runs-ncu.txt"
grep -E "binary|Duration|dram__bytes|lts__t_sector_hit|Waves Per SM|Achieved Occupancy|per_second" "$out/ncu-fusion-binary.txt" | head -80
echo "---- measure"
grep -E "^\\\$ gpucalc|naive time|naive: DRAM bytes read|time \(SASS phases" "$out/extra.txt" | cut -c1-40,120-
tail -45 "$out/measure-tail.txt"
