# Nsight Compute's view of cuBLAS's GEMM kernels at the sets' shapes (README.md), one call. 3 files back.
R=$OUT; nvidia-smi -L > $R/session.txt; s=$(date +%s)
timeout 300 ncu --clock-control none --nvtx --nvtx-include "mm/" --csv --print-units base --metrics launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg.per_second --log-file $R/gemm-kernels.csv python3 scripts/probes/gemm_kernels.py > $R/gemm-kernels.log 2>&1; echo "ncu rc=$? at $(( $(date +%s)-s )) s" >> $R/session.txt
cat $R/session.txt; tail -n 3 $R/gemm-kernels.log; grep -c launch__grid_size $R/gemm-kernels.csv
