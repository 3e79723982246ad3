# groupnorm (nn.GroupNorm, nn.InstanceNorm1d/2d as groups=C affine=false): its counts against
# PyTorch's, its CPU kernels against a direct loop, PyTorch's outputs and finite differences.
sm_add_c_test(test_groupnorm test_groupnorm.c)
