/* The options that choose a predictor, read alike by predict and curve (predict is curve's
 * one-row case, so the same options must give the same numbers). */
#ifndef SCALEMETER_CLI_PREDICTOR_CHOICE_H
#define SCALEMETER_CLI_PREDICTOR_CHOICE_H

#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

typedef struct predictor_choice {
    const char *coeffs;    /* --coeffs: a calibration's passes and update */
    const char *device;    /* --device: alone the calibration-free model; beside --coeffs the
                              gradients' all-reduce */
    const char *precision; /* --precision: modelled by --device alone, checked by --coeffs */
    const char *framework; /* --framework (--device alone) */
    const char *collective, *algorithms, *protocols; /* (--device) */
    double bucket_mib;                               /* (--device) 0: not given */
    int overlap;
    const char *optimizer;          /* --optimizer: sgd, momentum, adam, adamw (memory); NULL: the
                                       framework's */
    const char *shard, *checkpoint; /* --shard, --checkpoint (--device alone) */
    const char *attention;          /* --attention eager|fused (--device alone) */
    const char *dispatch;           /* --dispatch queued|added (--device alone) */
    int compile;                    /* --compile (--device alone) */
    int fp8;                        /* --fp8 (--device alone) */
    const char *recipe_precision;   /* the networks' reference recipe's (sm_network.precision),
                                       which --device alone takes without --precision; NULL:
                                       none, or the networks name different ones */
} predictor_choice;

/* Why the options do not go together (a usage error's text), or NULL. */
const char *predictor_choice_problem(const predictor_choice *c);
/* --coeffs alone: the calibration; --device alone: the roofline model of the description;
 * both: the calibration's passes and update with the description's all-reduce. At least one
 * of the two must be given. -1 with a message in st; 2 where the message is an option's
 * ("--precision fp8: ..."), which the command exits with as a usage error. */
int predictor_choice_open(const predictor_choice *c, sm_predictor **out, sm_status *st);

/* Where --device alone is asked for no --precision and every one of the n networks names the
 * same recipe precision (sm_network.precision: Llama's bf16), c takes it: open the predictor
 * after this, once the networks are read. */
void predictor_choice_take_recipe(predictor_choice *c, const sm_network *const *nets, int n);

#endif
