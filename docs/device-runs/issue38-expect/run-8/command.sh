# The device tool's `run` for held-out set 8 (kind nvidia-h200 or nvidia-h100-x1: both GPUs'
# predictions are committed in predictions.md); on an H200 also held-out set 6 and set softmax7,
# whose H200 predictions run 7 committed. Then Nsight Compute's issue and DRAM metrics of softmax at
# the shapes predictions.md names, then probe38 host. 8 files back.

export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt
SETS=heldout8; nvidia-smi -L | grep -q H200 && SETS="heldout8 heldout6 softmax7"
EXPECT38_SETS="$SETS" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect ($SETS) at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
M=smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,gpu__time_duration.sum,smsp__average_warp_latency_per_inst_issued.ratio,smsp__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
timeout 200 ncu --clock-control none --nvtx --nvtx-include "sm/" --csv --print-units base --metrics $M --log-file $R/softmax-issue.csv python3 scripts/probes/softmax_count.py 24576x1792 44736x1500 16384x2048 9584x7000 7456x9000 4096x8000 8192x6144 65536x640 12288x5120 4096x16000 2096x32000 1328x50257 520x128256 1024x65536 768x100000 2048x40000 > $R/softmax-issue.log 2>&1; echo "ncu rc=$? at $(( $(date +%s)-s )) s" >> $R/session.txt
timeout 60 python3 scripts/probes/probe38.py $R/host.json host > $R/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 30 $R/expect38.log; tail -n 3 $R/softmax-issue.log
