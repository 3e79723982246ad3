# patch_merge, window_partition, window_departition (Swin's and MaxViT's data movement): shapes,
# CPU kernels against PyTorch's outputs and finite differences, refusals.
sm_add_c_test(test_window_layout test_window_layout.c)
