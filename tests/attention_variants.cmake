# attention beyond self-attention on one sequence: cross-attention (a memory input), groups of
# sequences (MaxViT's windows), rel_pos and scale=dim; counts against PyTorch and by hand, CPU
# kernels against PyTorch's outputs, a direct loop and finite differences.
sm_add_c_test(test_attention_variants test_attention_variants.c)
