/*
 * test_input_counts: the host, not the plugin, enforces a type's input count. For every
 * loaded type, a layer given one input fewer than its min_inputs, or one more than its
 * max_inputs, is refused before the plugin sees it, with the line naming the layer and the
 * counts the descriptor declares; so the descriptors need not check n_in again (and the
 * shipped ones no longer do). The input is a 4x6x6 tensor every layer may read.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "net_file.h"

/* A network feeding g n copies of its input; refused, the message holds want. */
static void expect_refused(const sm_registry *reg, const char *type, int n, const char *want)
{
    char text[1024], from[512] = "";
    for (int i = 0; i < n; i++)
        strcat(from, i ? ",@input" : "@input");
    snprintf(text, sizeof text, "[network]\nname = t\ninput = 4x6x6\n[layers]\ng = %s%s%s\n", type,
             n ? " from=" : "", from);
    sm_status st = {{0}};
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK_MSG(net == NULL, "%s with %d inputs loaded", type, n);
    sm_network_free(net);
    CHECK_CONTAINS(st.msg, want);
}

int main(void)
{
    sm_status st;
    sm_registry *reg = NULL;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    int checked = 0;
    for (int i = 0; i < sm_registry_count(reg); i++) {
        const sm_layer_type *t = sm_registry_type(reg, i);
        char want[128], takes[48];
        /* "takes 1 input", "takes 1 to 2 inputs", "takes at least 2 inputs" (no maximum) */
        if (!t->max_inputs)
            snprintf(takes, sizeof takes, "at least %d inputs", t->min_inputs);
        else if (t->max_inputs == 1)
            snprintf(takes, sizeof takes, "1 input");
        else if (t->max_inputs == t->min_inputs)
            snprintf(takes, sizeof takes, "%d inputs", t->min_inputs);
        else
            snprintf(takes, sizeof takes, "%d to %d inputs", t->min_inputs, t->max_inputs);
        if (t->min_inputs > 0) {
            snprintf(want, sizeof want, "layer g (%s): takes %s, got %d", t->name, takes,
                     t->min_inputs - 1);
            /* zero inputs cannot be written (a layer without from= reads the one before) */
            if (t->min_inputs > 1) {
                expect_refused(reg, t->name, t->min_inputs - 1, want);
                checked++;
            }
        }
        if (t->max_inputs) {
            snprintf(want, sizeof want, "layer g (%s): takes %s, got %d", t->name, takes,
                     t->max_inputs + 1);
            expect_refused(reg, t->name, t->max_inputs + 1, want);
            checked++;
        }
    }
    /* 51 types: all but concat and add (any number) have a maximum; add and mul a minimum
     * of 2 */
    CHECK_EQ(sm_registry_count(reg), 51);
    CHECK_EQ(checked, 49 + 2);
    sm_registry_free(reg);
    return check_summary();
}
