/* The one place where predict and curve turn --coeffs, --device and their companions into a
 * predictor, so that the two commands cannot come to mean different things by them again. */
#include <string.h>
#include "predictor_choice.h"

#include <stddef.h>

#include "scalemeter/device.h"
#include "output.h"
#include "scalemeter/memory.h"

const char *predictor_choice_problem(const predictor_choice *c)
{
    if (!c->coeffs && !c->device)
        return "give --coeffs FILE, --device NAME, or both (fitted passes, the description's "
               "all-reduce)";
    if (!c->device &&
        (c->bucket_mib > 0 || c->framework || c->collective || c->algorithms || c->protocols))
        return "--bucket-mib, --framework, --collective, --algorithm and --protocol apply to "
               "--device; fitted coefficients already hold what was measured (add --device "
               "NAME for its all-reduce)";
    if (c->coeffs && c->framework)
        return "--framework applies to --device alone: with --coeffs the passes are the "
               "calibration's, as measured";
    if (c->attention && c->coeffs)
        return "--attention applies to --device alone: a calibration measured its attention "
               "as it ran";
    if (c->attention && strcmp(c->attention, "eager") && strcmp(c->attention, "fused"))
        return "--attention: expected eager or fused";
    if (c->compile && c->coeffs)
        return "--compile applies to --device alone: a calibration measured the code as it ran";
    if (c->fp8 && c->coeffs)
        return "--fp8 applies to --device alone: a calibration measured its products at the "
               "precision it ran";
    if (c->dispatch && c->coeffs)
        return "--dispatch applies to --device alone: a calibration measured the host and the "
               "GPU together";
    if (c->dispatch && strcmp(c->dispatch, "queued") && strcmp(c->dispatch, "added"))
        return "--dispatch: expected queued or added";
    if (c->shard && c->checkpoint && c->coeffs)
        return "--shard and --checkpoint apply to --device alone: a calibration measured DDP "
               "without checkpointing";
    if (c->shard && c->coeffs)
        return "--shard applies to --device alone: a calibration measured DDP, whose states "
               "every device holds whole";
    if (c->checkpoint && c->coeffs)
        return "--checkpoint applies to --device alone: a calibration measured steps without "
               "checkpointing";
    if (c->shard && sm_shard_parse(c->shard) < 0)
        return "--shard: expected none, optimizer, gradients or full";
    /* both were taken, said in the header and the JSON, and changed nothing */
    if (c->shard && sm_shard_parse(c->shard) == SM_SHARD_FULL && (c->overlap || c->bucket_mib > 0))
        return "--overlap and --bucket-mib apply to DDP's buckets: --shard full runs its "
               "collectives by FSDP unit, overlapped with the passes already (docs/scaling.md)";
    if (c->checkpoint && sm_checkpoint_parse(c->checkpoint) < 0)
        return "--checkpoint: expected none, selective or full";
    if (c->optimizer && sm_optimizer_parse(c->optimizer) < 0)
        return "--optimizer: expected sgd, momentum, adam or adamw";
    return NULL;
}

int predictor_choice_open(const predictor_choice *c, sm_predictor **out, sm_status *st)
{
    sm_device_options opt = {c->precision,  c->bucket_mib,      c->overlap,   c->framework,
                             c->collective, c->algorithms,      c->protocols, c->shard,
                             c->checkpoint, c->attention,       c->dispatch,  c->compile,
                             c->fp8,        c->recipe_precision};
    *out = NULL;
    output_reads("configs/calibrations", c->coeffs); /* files -o may not replace */
    output_reads("configs/devices", c->device);
    output_reads("configs/frameworks", c->framework);
    if (!c->coeffs  ? sm_predictor_from_device_opts(c->device, &opt, out, st)
        : c->device ? sm_predictor_from_coeffs_device(c->coeffs, c->device, &opt, out, st)
                    : sm_predictor_from_coeffs_opts(c->coeffs, c->overlap, out, st)) {
        /* the library's "precision P: ..." (unknown, or not the device's) is --precision's */
        size_t n = c->precision ? strlen(c->precision) : 0;
        if (n && !strncmp(st->msg, "precision ", 10) && !strncmp(st->msg + 10, c->precision, n) &&
            st->msg[10 + n] == ':' && strlen(st->msg) + 2 < sizeof st->msg) {
            memmove(st->msg + 2, st->msg, strlen(st->msg) + 1);
            memcpy(st->msg, "--", 2);
        }
        /* the library names the option (--collective, --algorithm, --protocol) */
        return strncmp(st->msg, "--", 2) == 0 ? 2 : -1;
    }
    if (c->coeffs && sm_predictor_check_precision(*out, c->precision, st)) {
        sm_predictor_free(*out);
        *out = NULL;
        return -1;
    }
    if (c->optimizer)
        sm_predictor_set_optimizer(*out, (sm_optimizer)sm_optimizer_parse(c->optimizer));
    return 0;
}

void predictor_choice_take_recipe(predictor_choice *c, const sm_network *const *nets, int n)
{
    c->recipe_precision = NULL;
    if (c->precision || c->coeffs || !c->device || n < 1)
        return; /* a calibration computed at its own precision */
    const sm_network *named = NULL, *other = NULL;
    for (int k = 0; k < n && !named; k++)
        named = nets[k]->precision[0] ? nets[k] : NULL;
    for (int k = 0; named && k < n && !other; k++)
        other = strcmp(nets[k]->precision, named->precision) ? nets[k] : NULL;
    if (named && !other) {
        c->recipe_precision = named->precision;
    } else if (named) {
        /* one predictor prices them all: said, as the header's precision would hide it */
        say_warning("%s's recipe computes in %s, %s's %s%s: the networks are priced at the "
                    "description's precision; give --precision to choose",
                    named->name, named->precision, other->name,
                    other->precision[0] ? "in " : "names none", other->precision);
    }
}
