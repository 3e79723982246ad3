/* Layer parameters as plugins read them: typed, range-checked, and every key accounted for. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "network/network_internal.h"

static host_args *host(sm_args *a) { return (host_args *)a; }

/* Keeps the first failure: "WHAT KEY" or "parameter KEY=VALUE WHAT". */
static void fail_once(host_args *h, const char *what, const char *key, const char *value)
{
    if (h->error[0])
        return;
    if (value)
        snprintf(h->error, sizeof h->error, "parameter %s=%s %s", key, value, what);
    else
        snprintf(h->error, sizeof h->error, "%s %s", what, key);
}

static const char *find(host_args *h, const char *key)
{
    int seen = 0;
    for (int i = 0; i < h->n_asked && !seen; i++)
        seen = strcmp(h->asked[i], key) == 0;
    if (!seen && h->n_asked < HOST_ARGS_ASKED)
        snprintf(h->asked[h->n_asked++], HOST_ARGS_KEY_LEN, "%s", key);
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->kv[i].key, key) == 0) {
            h->kv[i].used = 1;
            return h->kv[i].value;
        }
    return NULL;
}

static int parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int in_range(host_args *h, const char *key, const char *text, int64_t v, int64_t lo,
                    int64_t hi)
{
    if (v >= lo && v <= hi)
        return 1;
    if (!h->error[0])
        snprintf(h->error, sizeof h->error, "parameter %s=%s out of range [%lld, %lld]", key, text,
                 (long long)lo, (long long)hi);
    return 0;
}

static int64_t get_int(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi)
{
    host_args *h = host(a);
    const char *s = find(h, key);
    int64_t v;
    if (!s) {
        if (dflt == SM_REQUIRED)
            fail_once(h, "missing parameter", key, NULL);
        return dflt == SM_REQUIRED ? lo : dflt;
    }
    if (parse_int(s, &v)) {
        fail_once(h, "is not an integer", key, s);
        return lo;
    }
    return in_range(h, key, s, v, lo, hi) ? v : lo;
}

static void get_pair(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                     int64_t out[2])
{
    host_args *h = host(a);
    const char *s = find(h, key);
    out[0] = out[1] = lo;
    if (!s) {
        if (dflt == SM_REQUIRED)
            fail_once(h, "missing parameter", key, NULL);
        else
            out[0] = out[1] = dflt;
        return;
    }
    char buf[64];
    /* cut at 63, "0000...13x5" read as 13x13: no pair of int64s is this long */
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf) {
        fail_once(h, "is too long for an integer or HxW pair", key, s);
        return;
    }
    char *x = strchr(buf, 'x');
    if (x)
        *x = '\0';
    int64_t v0, v1;
    if (parse_int(buf, &v0) || (x ? parse_int(x + 1, &v1) : (v1 = v0, 0))) {
        fail_once(h, "is not an integer or HxW pair", key, s);
        return;
    }
    if (in_range(h, key, s, v0, lo, hi) && in_range(h, key, s, v1, lo, hi)) {
        out[0] = v0;
        out[1] = v1;
    }
}

static int get_bool(sm_args *a, const char *key, int dflt)
{
    host_args *h = host(a);
    const char *s = find(h, key);
    if (!s)
        return dflt;
    if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1"))
        return 1;
    if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcmp(s, "0"))
        return 0;
    fail_once(h, "is not true or false", key, s);
    return dflt;
}

static double get_real(sm_args *a, const char *key, double dflt, double lo, double hi)
{
    host_args *h = host(a);
    const char *s = find(h, key);
    if (!s)
        return dflt;
    char *end;
    errno = 0;
    double v = sm_strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        fail_once(h, "is not a number", key, s);
        return dflt;
    }
    if (v < lo || v > hi) {
        if (!h->error[0])
            snprintf(h->error, sizeof h->error, "parameter %s=%s out of range [%g, %g]", key, s, lo,
                     hi);
        return dflt;
    }
    return v;
}

static int get_choice(sm_args *a, const char *key, const char *const *choices, int dflt)
{
    host_args *h = host(a);
    const char *s = find(h, key);
    if (!s) {
        if (dflt < 0)
            fail_once(h, "missing parameter", key, NULL);
        return dflt < 0 ? 0 : dflt;
    }
    for (int i = 0; choices[i]; i++)
        if (strcmp(s, choices[i]) == 0)
            return i;
    if (!h->error[0]) {
        int used = snprintf(h->error, sizeof h->error, "parameter %s=%s is not one of", key, s);
        for (int i = 0; choices[i] && used > 0 && (size_t)used < sizeof h->error; i++)
            used += snprintf(h->error + used, sizeof h->error - (size_t)used, " %s", choices[i]);
    }
    return dflt < 0 ? 0 : dflt;
}

/* The plugin's own reason, read no further than the host keeps of it; none: said so. */
static void fail(sm_args *a, const char *msg)
{
    host_args *h = host(a);
    if (!h->error[0])
        snprintf(h->error, sizeof h->error, "%.*s", (int)sizeof h->error - 1,
                 msg && msg[0] ? msg : "the plugin refused its parameters (no reason given)");
}

static const sm_args_ops ops = {get_int, get_pair, get_bool, get_real, get_choice, fail};

void host_args_init(host_args *a, sm_kv *kv, int n)
{
    memset(a, 0, sizeof *a);
    a->base.ops = &ops;
    a->kv = kv;
    a->n = n;
}

int host_args_finish(host_args *a, char *msg, size_t len)
{
    if (a->error[0]) {
        int used = snprintf(msg, len, "%s", a->error);
        /* a required key missing beside one nobody read: most likely the same, misspelt */
        for (int i = 0; i < a->n && !strncmp(a->error, "missing parameter", 17); i++)
            if (!a->kv[i].used && used > 0 && (size_t)used < len) {
                snprintf(msg + used, len - (size_t)used, " (and unknown parameter %s given)",
                         a->kv[i].key);
                break;
            }
        return -1;
    }
    for (int i = 0; i < a->n; i++)
        if (!a->kv[i].used) {
            /* what the type reads, so that a misspelt key shows its right spelling */
            int used = snprintf(msg, len, "unknown parameter %s (%s", a->kv[i].key,
                                a->n_asked ? "it takes" : "it takes no parameters");
            for (int k = 0; k < a->n_asked && used > 0 && (size_t)used < len; k++)
                used +=
                    snprintf(msg + used, len - (size_t)used, "%s %s", k ? "," : "", a->asked[k]);
            if (used > 0 && (size_t)used < len)
                snprintf(msg + used, len - (size_t)used, ")");
            return -1;
        }
    return 0;
}
