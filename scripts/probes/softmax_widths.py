"""The widths whose softmax kernels docs/device-runs/issue38-rows/aten-softmax-sass.md counted from
the SASS before any GPU had run them (section 8): every kernel PyTorch 2.11 picks and its partial
warps. Set softmax7 (expect38.py) times them; softmax_count.py and softmax_count_check.py count them."""
SOFTMAX_WIDTHS = (300, 1000, 1500, 3000, 4100, 5000, 7000, 9000, 9216, 12000, 20000, 24504, 32000, 50257, 128256)
