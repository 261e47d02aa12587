# The device tool's `run` of 2026-12-06 21:33 UTC (an H100 came; files beyond the tool's 8 were lost,
# so expect38's were taken again in a second call: ../../issue38-expect/run-4/h100/).
export PYTHONUNBUFFERED=1; s=$(date +%s); t(){ echo "$1 at $(( $(date +%s)-s )) s" >> $OUT/session.txt; }; nvidia-smi -L > $OUT/session.txt
EXPECT38_SETS="heldout4 heldout3 heldout2 heldout validation" EXPECT38_TIMEOUT=280 bash scripts/device-expect38 > $OUT/expect-tail.txt 2>&1; t expect
timeout 110 ncu --clock-control none --nvtx --nvtx-include "rows/" --csv --print-units base --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_fp64.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,sm__cycles_elapsed.avg.per_second --log-file $OUT/rowsinst.csv python3 scripts/probes/probe38.py /tmp/r.json rowsncu > $OUT/rowsinst.log 2>&1; t "rowsinst rc=$?"
CALIBRATE_TIMEOUT=190 OPMIX_TIMEOUT=80 bash scripts/device-calibrate > $OUT/calibrate-tail.txt 2>&1; t calibrate
