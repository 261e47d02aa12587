# The device tool's `run` for held-out set 6 and set softmax7 (kind nvidia-h200; on an H100 it runs
# too: both GPUs' predictions are committed), then Nsight Compute's instruction counts of softmax at
# aten-softmax-sass.md section 8's widths, then probe38 host, on the same machine. 8 files back.

export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt
EXPECT38_SETS="heldout6 softmax7" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
timeout 150 ncu --clock-control none --nvtx --nvtx-include "sm/" --csv --print-units base --metrics smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,gpu__time_duration.sum --log-file $R/softmax-count.csv python3 scripts/probes/softmax_count.py > $R/softmax-count.log 2>&1; echo "count rc=$? at $(( $(date +%s)-s )) s" >> $R/session.txt
timeout 60 python3 scripts/probes/probe38.py $R/host.json host > $R/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 45 $R/expect38.log; tail -n 3 $R/softmax-count.log
