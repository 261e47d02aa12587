# The device tool's `run` for held-out set 9 (both GPUs' predictions in predictions.md) and, on an
# H100, held-out set 8 (its H100 predictions in ../run-8/predictions.md); then probe38 host. 5 files back.
export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt
SETS=heldout9; nvidia-smi -L | grep -q H100 && SETS="heldout9 heldout8"
EXPECT38_SETS="$SETS" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect ($SETS) at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
timeout 60 python3 scripts/probes/probe38.py $R/host.json host > $R/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 45 $R/expect38.log
