# Nsight Compute's DRAM bytes of ATen's norms at the shapes README.md predicts, one call. 3 files back.
R=$OUT; nvidia-smi -L > $R/session.txt; s=$(date +%s)
timeout 200 ncu --clock-control none --nvtx --nvtx-include "nm/" --csv --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size --log-file $R/norm-count.csv python3 scripts/probes/norm_count.py rms:12288x5120 layer:8192x5120 rms:16384x4096 rms:6144x8192 layer:16384x2560 rms:24576x2560 rms:10240x6144 layer:49152x1536 rms:32768x2048 > $R/norm-count.log 2>&1; echo "ncu rc=$? at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 3 $R/norm-count.log
