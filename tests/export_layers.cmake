# The layer types the PyTorch exporter needed for ordinary models (issue 35): conv1d, conv3d,
# conv_transpose2d, upsample, pixel_shuffle, mean; counts and outputs against PyTorch's,
# gradients against finite differences, refusals.
sm_add_c_test(test_export_layers test_export_layers.c)
