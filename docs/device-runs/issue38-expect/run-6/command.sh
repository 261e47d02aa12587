# The device tool's `run` for issue 38's H200 check (kind nvidia-h200). On any other card it records
# the card and stops: the check is the H200's. Scored against the committed tables
# (run-4/predictions-counted.md's and run-5/predictions.md's H200 sections, equal to main's model).
export PYTHONUNBUFFERED=1; R=$OUT; export OUT=/tmp/w; mkdir -p $OUT; s=$(date +%s); nvidia-smi -L > $R/session.txt
nvidia-smi -L | grep -q H200 || { echo "not an H200: stopped" >> $R/session.txt; cat $R/session.txt; exit 3; }
EXPECT38_SETS="heldout5 heldout4 heldout3 heldout2 heldout validation" EXPECT38_TIMEOUT=300 bash scripts/device-expect38 > /dev/null 2>&1; echo "expect at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/expect38/expect38.json $OUT/expect38/expect38.log $OUT/expect38/gpu.txt $R/
CALIBRATE_TIMEOUT=170 OPMIX_TIMEOUT=70 bash scripts/device-calibrate > /dev/null 2>&1; echo "calibrate at $(( $(date +%s)-s )) s" >> $R/session.txt
timeout 40 python3 scripts/probes/probe38.py $OUT/calibrate/host.json host > $OUT/calibrate/host.log 2>&1; echo "host at $(( $(date +%s)-s )) s" >> $R/session.txt
cp $OUT/calibrate/calibrate.json $OUT/calibrate/calibrate.log $R/; cp $OUT/calibrate/gpu.txt $R/calibrate-gpu.txt
tar czf $R/extra.tgz -C $OUT/calibrate opmix.csv opmix.json opmix.log host.json host.log
cat $R/session.txt; tail -n 25 $R/expect38.log
