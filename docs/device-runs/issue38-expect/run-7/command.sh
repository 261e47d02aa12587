# The device tool's `run` for held-out set 6 (kind nvidia-h200; on an H100 it runs too: both GPUs'
# predictions are in predictions.md), then probe38 host on the same machine.

export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt
EXPECT38_SETS="heldout6" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
timeout 60 python3 scripts/probes/probe38.py $R/host.json host > $R/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 28 $R/expect38.log
