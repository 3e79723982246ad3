/*
 * scalemeter check-plugin: the conformance harness (calibrate/conformance.h) on one plugin of
 * a user's, so that an out-of-tree type gets the checks the shipped ones get: its counts and
 * refusals against its cases, and its backward pass against finite differences of its forward
 * pass (bench times a wrong gradient without complaint). In the cpu module, with the executor.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "conformance.h"
#include "executor.h"
#include "output.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: scalemeter check-plugin PLUGIN.so [--cases FILE]\n\n"
            "Loads PLUGIN.so beside the shipped layer types and runs its conformance cases\n"
            "(default: cases.ini beside it; --cases - reads them from the standard input;\n"
            "docs/plugin-abi.md, \"Conformance cases\"): each case's output shape, counts and\n"
            "saved tensors against the values given, each refusal's message, and where the type\n"
            "has CPU kernels its gradients against central finite differences. Prints one line\n"
            "per case; exits 1 when one fails, or when a type of the plugin has no case (or\n"
            "CPU kernels and no gradient-checked case).\n");
}

/* Checks that the types [first, end) of reg have cases; prints why not. */
static int coverage(const sm_registry *reg, int first, int end, const sm_conformance_tally *t,
                    const char *cases)
{
    int bad = 0;
    for (int i = first; i < end; i++) {
        const sm_layer_type *type = sm_registry_type(reg, i);
        const struct sm_cpu_kernels *cpu = NULL;
        sm_status st;
        if (sm_registry_cpu_kernels(reg, type, &cpu, &st)) {
            printf("FAIL %s\n", st.msg);
            bad++;
        } else if (!t->cases_of[i]) {
            printf("FAIL %s: no case of type %s (add [case NAME] with layer = %s ...)\n", cases,
                   type->name, type->name);
            bad++;
        } else if (cpu && !t->gradients_of[i]) {
            printf("FAIL %s: type %s has CPU kernels and no gradient-checked case\n", cases,
                   type->name);
            bad++;
        }
    }
    return bad;
}

/* The index of the type that plugin gave reg already (its folder is in SCALEMETER_PLUGIN_PATH,
 * or it is a shipped one), or -1. */
static int already_loaded(const sm_registry *reg, const char *plugin)
{
    char want[PATH_MAX], have[PATH_MAX];
    if (!realpath(plugin, want))
        return -1; /* sm_registry_load_file says why */
    for (int i = 0; i < sm_registry_count(reg); i++)
        if (realpath(sm_registry_path(reg, i), have) && !strcmp(want, have))
            return i;
    return -1;
}

int cmd_check_plugin(int argc, char **argv)
{
    static const struct option opts[] = {
        {"cases", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'}, {0}};
    const char *cases = NULL;
    char msg[512];
    /* the conventions of every command (output.h): getopt_long's own two lines ("check-plugin:
     * unrecognized option", then "see --help") were the only usage error not in one line */
    for (int c; (c = next_option(argc, argv, "h", opts, msg, sizeof msg)) != -1;) {
        if (c == 'c') {
            cases = optarg;
        } else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            return usage_error("check-plugin", msg);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "scalemeter check-plugin: expected one PLUGIN.so (see --help)\n");
        return 2;
    }
    const char *plugin = argv[optind];
    char beside[4096], here[4096];
    if (!strchr(plugin, '/')) { /* dlopen would search the library path for a bare name */
        snprintf(here, sizeof here, "./%s", plugin);
        plugin = here;
    }
    if (!cases) { /* cases.ini in the plugin's folder */
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", plugin);
        snprintf(beside, sizeof beside, "%s/cases.ini", dirname(copy));
        cases = beside;
    }
    sm_status st;
    sm_registry *reg = NULL;
    if (sm_registry_open(&reg, &st) || sm_registry_load_all(reg, &st)) {
        fprintf(stderr, "scalemeter check-plugin: %s\n", st.msg);
        sm_registry_free(reg);
        return 1;
    }
    int first = already_loaded(reg, plugin), end = first + 1, rc = 1;
    sm_conformance_tally t = {0};
    if (first < 0) {
        first = sm_registry_count(reg);
        if (sm_registry_load_file(reg, plugin, &st)) {
            fprintf(stderr, "scalemeter check-plugin: %s\n", st.msg);
            goto done;
        }
        end = sm_registry_count(reg);
    }
    int n = sm_registry_count(reg);
    t.cases_of = calloc((size_t)n, sizeof(int));
    t.gradients_of = calloc((size_t)n, sizeof(int));
    if (!t.cases_of || !t.gradients_of) {
        fprintf(stderr, "scalemeter check-plugin: out of memory\n");
        goto done;
    }
    sm_cpu_set_threads(1); /* the same sums, so the same errors, on every machine */
    if (sm_conformance_run(reg, cases, stdout, &t, &st)) {
        fprintf(stderr, "scalemeter check-plugin: %s%s\n", st.msg,
                cases == beside && access(cases, F_OK)
                    ? " (without --cases FILE, check-plugin reads cases.ini beside the plugin)"
                    : "");
        goto done;
    }
    int uncovered = coverage(reg, first, end, &t, cases);
    printf("%s: %d case%s, %d refusal%s, %d gradient check%s: ", sm_registry_type(reg, first)->name,
           t.cases, t.cases == 1 ? "" : "s", t.refusals, t.refusals == 1 ? "" : "s", t.gradients,
           t.gradients == 1 ? "" : "s");
    if (t.failures + uncovered)
        printf("%d failed\n", t.failures + uncovered);
    else
        printf("all passed\n");
    rc = t.failures + uncovered ? 1 : 0;
done:
    free(t.cases_of);
    free(t.gradients_of);
    sm_registry_free(reg);
    return rc;
}
