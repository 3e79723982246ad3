# window_attention (torchvision's Swin ShiftedWindowAttention and V2): its counts against
# PyTorch's and by hand, its CPU kernels against PyTorch's outputs and finite differences.
sm_add_c_test(test_window_attention test_window_attention.c)
