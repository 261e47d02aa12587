# The device tool's `run` of 2026-12-06 22:02 UTC (no kind named; an H100 came, so only heldout5 ran).
export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt; H=0; nvidia-smi -L | grep -q H200 && H=1
if [ $H = 1 ]; then SETS="heldout5 heldout4 heldout3 heldout2 heldout validation"; else SETS="heldout5"; fi
EXPECT38_SETS="$SETS" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
if [ $H = 1 ]; then CALIBRATE_TIMEOUT=190 OPMIX_TIMEOUT=80 bash scripts/device-calibrate > /dev/null 2>&1; echo "calibrate at $(( $(date +%s)-s )) s" >> $R/session.txt; timeout 60 python3 scripts/probes/probe38.py $OUT/calibrate/host.json host > $OUT/calibrate/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt; cp $OUT/calibrate/calibrate.json $OUT/calibrate/calibrate.log $R/; cp $OUT/calibrate/gpu.txt $R/calibrate-gpu.txt; tar czf $R/extra.tgz -C $OUT/calibrate opmix.csv opmix.json opmix.log host.json host.log; fi
# then, on the same warm machine: timeout 60 python3 scripts/probes/probe38.py $OUT/host.json host > $OUT/host.log 2>&1
