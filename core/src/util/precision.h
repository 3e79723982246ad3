/* The arithmetic precisions a run computes in, by name: one list for every file that names one
 * (a device description's default, a network's recipe, a calibration's and a runs CSV's
 * column), so that each accepts the same four. Internal to the core. */
#ifndef SCALEMETER_UTIL_PRECISION_H
#define SCALEMETER_UTIL_PRECISION_H

typedef enum sm_precision { SM_FP32, SM_TF32, SM_FP16, SM_BF16, SM_N_PRECISIONS } sm_precision;

/* "fp32", "tf32", "fp16", "bf16" */
extern const char *const sm_precision_names[SM_N_PRECISIONS];
/* The precision named by text, or -1. */
int sm_precision_parse(const char *text);
/* 1 for fp16 and bf16: 2-byte activations, autocast's casts, NCHW transposes. */
static inline int sm_precision_is_half(sm_precision p) { return p == SM_FP16 || p == SM_BF16; }

#endif
