/* The parameters of dropout: parsed by dropout.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_DROPOUT_H
#define SCALEMETER_PLUGINS_DROPOUT_H

typedef struct dropout_params {
    double p;
    int inplace;
} dropout_params;

#endif /* SCALEMETER_PLUGINS_DROPOUT_H */
