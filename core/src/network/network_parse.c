/* Reads a network file (INI, through inih) into a draft: layers with their parameters and the
 * names of their inputs, templates instantiated and repetitions unrolled. The format is in
 * docs/network-format.md. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalemeter/memory.h"
#include "util/ini_reader.h"
#include "network/network_internal.h"
#include "util/escape.h"
#include "util/fnv.h"
#include "util/precision.h"

#define MAX_REPEAT 100000
#define MAX_INPUT_DIM (1 << 30)

/* ---- stage 1: the file as sections of key = value entries, with line numbers ------------- */

typedef struct entry {
    char *key;
    char *value;
    int line;
    int cont_first, cont_last; /* indented lines that continue it (inih), or 0 */
    size_t len, cap;           /* of value, once continued (grown by doubling), else 0 */
} entry;

typedef struct section {
    char *header;
    int line;
    entry *entries;
    int n, cap;
} section;

typedef struct ini_file {
    sm_ini_reader rd;
    const char *path;
    sm_status *st;
    int failed; /* out of memory, or a message in st */
    int out_of_memory;
    section *sections;
    int n, cap;
    const section **templates; /* the [template NAME] sections, by name (check_repeats) */
    int n_templates;
    char *template_used; /* by templates[]: a block uses it (check_templates_used) */
} ini_file;

static int grow(void **items, int *cap, int n, size_t size)
{
    if (n < *cap)
        return 0;
    int next = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, (size_t)next * size);
    if (!p)
        return -1;
    *items = p;
    *cap = next;
    return 0;
}

static section *add_section(ini_file *r, const char *header, int line)
{
    if (grow((void **)&r->sections, &r->cap, r->n, sizeof *r->sections))
        return NULL;
    section *s = &r->sections[r->n];
    memset(s, 0, sizeof *s);
    if (!(s->header = strdup(header)))
        return NULL;
    s->line = line;
    r->n++;
    return s;
}

/* Every header, whether keys follow or not: an empty [template] is one. */
static int on_section(void *user, const char *sect, int line)
{
    ini_file *r = user;
    if (r->failed || !add_section(r, sect, line))
        return r->failed = r->out_of_memory = 1, 0;
    return 1;
}

static int on_entry(void *user, const char *sect, const char *key, const char *value)
{
    ini_file *r = user;
    if (r->failed)
        return 0;
    if (!sect[0]) {
        r->failed = 1;
        int network_key = !strcmp(key, "name") || !strcmp(key, "input") || !strcmp(key, "source") ||
                          !strcmp(key, "description");
        return sm_fail(r->st, "%s:%d: %s comes before any [section] header: %s", r->path,
                       r->rd.line, key,
                       network_key ? "move it under [network]"
                                   : "a layer goes under [layers] or a [block NAME], and the "
                                     "file starts with [network]"),
               0;
    }
    section *s = r->n ? &r->sections[r->n - 1] : NULL;
    if (!s || strcmp(s->header, sect) != 0) /* on_section made one of every header: a net */
        if (!(s = add_section(r, sect, r->rd.section_line)))
            return r->failed = r->out_of_memory = 1, 0;
    /* inih hands an indented line to us as a continuation of the previous key */
    if (r->rd.continuation && s->n) {
        /* appended in place: the value copied whole with each line cost lines x bytes (a
         * layer continued over 40,000 lines took 26 s) */
        entry *e = &s->entries[s->n - 1];
        if (!e->cont_first)
            e->len = strlen(e->value), e->cap = e->len + 1;
        size_t add = strlen(value), need = e->len + 1 + add + 1;
        if (need > e->cap) {
            char *grown = realloc(e->value, 2 * need);
            if (!grown)
                return r->failed = r->out_of_memory = 1, 0;
            e->value = grown, e->cap = 2 * need;
        }
        e->value[e->len] = ' ';
        memcpy(e->value + e->len + 1, value, add + 1);
        e->len += 1 + add;
        if (!e->cont_first)
            e->cont_first = r->rd.line;
        e->cont_last = r->rd.line;
        return 1;
    }
    if (grow((void **)&s->entries, &s->cap, s->n, sizeof *s->entries))
        return r->failed = r->out_of_memory = 1, 0;
    s->entries[s->n++] = (entry){strdup(key), strdup(value), r->rd.line, 0, 0, 0, 0};
    return 1;
}

static void ini_file_free(ini_file *r)
{
    for (int i = 0; i < r->n; i++) {
        for (int j = 0; j < r->sections[i].n; j++) {
            free(r->sections[i].entries[j].key);
            free(r->sections[i].entries[j].value);
        }
        free(r->sections[i].entries);
        free(r->sections[i].header);
    }
    free(r->sections);
    free(r->templates);
    free(r->template_used);
}

/* Networks continue a long layer on indented lines, and name a key before any [section]
 * themselves. */
static const sm_ini_format network_format = {1, 1, on_section};

static int ini_file_read(const char *path, ini_file *r, sm_status *st)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->st = st;
    if (sm_ini_parse_format(path, &network_format, &r->rd, on_entry, r, st))
        return r->out_of_memory ? sm_fail(st, "%s: out of memory", path) : -1;
    return 0;
}

/* ---- stage 2: sections into layers ------------------------------------------------------ */

/* Values of template arguments and of the repetition index i. */
/* A block's argument names in order (strcmp), each with its index into scope_args' arrays. */
typedef struct arg_name {
    const char *name;
    int k;
} arg_name;

typedef struct scope_args {
    const char **names;
    int64_t *values;
    int *used;
    int n;
    int has_i;
    int64_t i;
    const arg_name *sorted; /* the n names sorted, or NULL: looked up one by one */
    /* for messages: the last name not found (missing_len 0: none; its text cut to the
     * buffer), the [template] and [block] header in use */
    size_t missing_len;
    char missing[64];
    const char *tmpl, *spec;
} scope_args;

static int by_arg_name(const void *a, const void *b)
{
    return strcmp(((const arg_name *)a)->name, ((const arg_name *)b)->name);
}

/* strcmp of s with the len bytes of name as a string of their own */
static int compare_name(const char *s, const char *name, size_t len)
{
    int c = strncmp(s, name, len);
    return c ? c : s[len] != '\0';
}

/* The index of the argument name (len bytes), or -1: found by bisection among the sorted
 * names, so that a template of many layers using a block of many arguments costs layers x
 * log arguments (one by one, 40,000 of each took 3 s) */
static int find_arg(const scope_args *a, const char *name, size_t len)
{
    if (!a->sorted) {
        for (int k = 0; k < a->n; k++)
            if (strlen(a->names[k]) == len && strncmp(a->names[k], name, len) == 0)
                return k;
        return -1;
    }
    int lo = 0, hi = a->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = compare_name(a->sorted[mid].name, name, len);
        if (c == 0)
            return a->sorted[mid].k;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int lookup_arg(void *ctx, const char *name, size_t len, int64_t *value)
{
    scope_args *a = ctx;
    int k = a ? find_arg(a, name, len) : -1;
    if (k >= 0) {
        a->used[k] = 1;
        *value = a->values[k];
        return 0;
    }
    if (a && a->has_i && len == 1 && name[0] == 'i') {
        *value = a->i;
        return 0;
    }
    if (a) { /* name lies in the expression's copy, freed after: kept here */
        a->missing_len = len;
        snprintf(a->missing, sizeof a->missing, "%.*s", (int)(len < 63 ? len : 63), name);
    }
    return -1;
}

/* Why the name args->missing is unknown, said of a block's arguments: "[block b] (line 8)
 * gives no argument 'w' (it gives width, depth)". */
static void say_missing(const scope_args *a, int block_line, char *out, size_t len)
{
    if (a->missing_len == 1 && a->missing[0] == 'i' && !a->has_i) {
        snprintf(out, len,
                 "i is the index of a repeated block, and [block %.200s] (line %d) has no {A..B}",
                 a->spec, block_line);
        return;
    }
    int at = snprintf(out, len, "[block %.200s] (line %d) gives no argument '%s'", a->spec,
                      block_line, a->missing);
    if (at < 0 || (size_t)at >= len)
        return;
    if (a->n == 0) {
        snprintf(out + at, len - (size_t)at, " (it gives none: add %s = VALUE under it)",
                 a->missing);
        return;
    }
    at += snprintf(out + at, len - (size_t)at, " (it gives");
    for (int k = 0; k < a->n && k < 4 && (size_t)at < len; k++)
        at += snprintf(out + at, len - (size_t)at, "%s %.60s", k ? "," : "", a->names[k]);
    if (a->n > 4 && (size_t)at < len)
        at += snprintf(out + at, len - (size_t)at, " and %d more", a->n - 4);
    if ((size_t)at < len)
        snprintf(out + at, len - (size_t)at, ")");
}

/* Replaces every ${expr} of text; the result is malloc'd. */
static char *substitute(const char *text, scope_args *args, char *err, size_t errlen)
{
    size_t cap = strlen(text) + 64, used = 0;
    char *out = malloc(cap);
    if (!out)
        return snprintf(err, errlen, "out of memory"), NULL;
    for (const char *p = text; *p;) {
        char piece[32];
        const char *add = p;
        size_t n = 1;
        if (p[0] == '$' && p[1] == '{') {
            const char *close = strchr(p, '}');
            if (!close) {
                snprintf(err, errlen, "'${' without '}'");
                free(out);
                return NULL;
            }
            /* as long as written: a fixed buffer would cut a long sum short, silently */
            char *expr = strndup(p + 2, (size_t)(close - p - 2));
            if (!expr) {
                free(out);
                return snprintf(err, errlen, "out of memory"), NULL;
            }
            int64_t v;
            char why[128];
            int bad = sm_expr_eval(expr, lookup_arg, args, &v, why, sizeof why);
            if (bad)
                snprintf(err, errlen, "in ${%.100s%s}: %.100s", expr,
                         strlen(expr) > 100 ? "..." : "", why);
            free(expr);
            if (bad) {
                free(out);
                return NULL;
            }
            n = (size_t)snprintf(piece, sizeof piece, "%lld", (long long)v);
            add = piece;
            p = close + 1;
        } else {
            p++;
        }
        if (used + n + 1 > cap) {
            cap = 2 * (used + n + 1);
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return snprintf(err, errlen, "out of memory"), NULL;
            }
            out = grown;
        }
        memcpy(out + used, add, n);
        used += n;
    }
    out[used] = '\0';
    return out;
}

typedef struct parse_ctx {
    const sm_registry *reg;
    const char *path;
    draft_network *d;
    ini_file *file;
    sm_status *st;
} parse_ctx;

/* Layers (and blocks) a network may expand to: repetition and templates let a few hundred bytes
 * describe millions, gigabytes of memory; the largest zoo network has under 1,000. */
#define DEFAULT_MAX_LAYERS 1000000
#define MAX_LAYERS_ENV "SCALEMETER_MAX_LAYERS"

static int max_layers(sm_status *st)
{
    const char *env = getenv(MAX_LAYERS_ENV);
    if (!env || !*env)
        return DEFAULT_MAX_LAYERS;
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno || *end || v < 1 || v > 100000000)
        return sm_fail(st, "%s=%s: expected a layer count from 1 to 100000000", MAX_LAYERS_ENV,
                       env);
    return (int)v;
}

static int check_size(parse_ctx *c, int count, const char *what, int line)
{
    int limit = max_layers(c->st);
    if (limit < 0)
        return -1;
    if (count >= limit)
        return sm_fail(c->st,
                       "%s:%d: the network expands to more than %d %s; set %s to allow "
                       "more",
                       c->path, line, limit, what, MAX_LAYERS_ENV);
    return 0;
}

static int add_block(parse_ctx *c, const char *name, const char *in_name, int line)
{
    draft_network *d = c->d;
    if (check_size(c, d->n_blocks, "blocks", line))
        return -1;
    if (grow((void **)&d->blocks, &d->cap_blocks, d->n_blocks, sizeof *d->blocks))
        return sm_fail(c->st, "out of memory");
    d->blocks[d->n_blocks] = (draft_block){strdup(name), in_name ? strdup(in_name) : NULL,
                                           d->n_layers ? d->n_layers - 1 : SM_NETWORK_INPUT, line};
    return d->n_blocks++;
}

/* The loaded types nearest a type no plugin provides (sofplus: softplus), into out; "" where
 * none is near. Every plugin is loaded by then: the lookup that failed loaded them all. */
static void near_types(const sm_registry *reg, const char *type, char *out, size_t len)
{
    int n = sm_registry_count(reg);
    const char **names = malloc((size_t)(n > 0 ? n : 1) * sizeof *names);
    out[0] = '\0';
    if (!names)
        return;
    for (int i = 0; i < n; i++)
        names[i] = sm_registry_type(reg, i)->name;
    sm_near_names(type, names, n, out, len);
    free(names);
}

/* A layer's parameters by hash (open addressing over indices into l->kv, -1 free), so that a
 * layer continued over many lines is checked for a parameter given twice in time that grows
 * with its parameters, not their square (200,000 of them: 46 s). */
typedef struct kv_index {
    int *slot;
    size_t cap; /* a power of two, at least twice the parameters; 0 until there are some */
} kv_index;

static size_t kv_hash(const char *key) { return (size_t)sm_fnv1a_str(SM_FNV1A_OFFSET, key); }

/* The slot of key among l's parameters: where it is, or the free one where it goes. */
static int *kv_slot(const kv_index *x, const draft_layer *l, const char *key)
{
    for (size_t i = kv_hash(key) & (x->cap - 1);; i = (i + 1) & (x->cap - 1))
        if (x->slot[i] < 0 || strcmp(l->kv[x->slot[i]].key, key) == 0)
            return &x->slot[i];
}

/* Room for one more parameter in l->kv (grown by doubling) and in the index; -1: out of
 * memory. */
static int kv_reserve(kv_index *x, draft_layer *l, int *room)
{
    if (l->n_kv == *room) {
        int more = *room ? 2 * *room : 4;
        sm_kv *grown = realloc(l->kv, (size_t)more * sizeof *grown);
        if (!grown)
            return -1;
        l->kv = grown, *room = more;
    }
    if (2 * ((size_t)l->n_kv + 1) > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        int *slot = malloc(cap * sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < cap; i++)
            slot[i] = -1;
        free(x->slot);
        x->slot = slot, x->cap = cap;
        for (int k = 0; k < l->n_kv; k++)
            *kv_slot(x, l, l->kv[k].key) = k;
    }
    return 0;
}

static int parse_layer_tokens(parse_ctx *c, draft_layer *l, char *text, const char *where,
                              const entry *e, kv_index *x, int *room);

/* "conv2d out=64 kernel=3 from=a,b" into a draft layer. */
static int parse_layer_text(parse_ctx *c, draft_layer *l, char *text, const char *where,
                            const entry *e)
{
    kv_index x = {NULL, 0};
    int room = 0, rc = parse_layer_tokens(c, l, text, where, e, &x, &room);
    free(x.slot);
    return rc;
}

static int parse_layer_tokens(parse_ctx *c, draft_layer *l, char *text, const char *where,
                              const entry *e, kv_index *x, int *room)
{
    char *save = NULL;
    char *type = strtok_r(text, " \t", &save);
    if (!type)
        return sm_fail(c->st, "%s: layer %s has no type", where, l->name);
    sm_status why;
    int found = sm_registry_lookup(c->reg, type, &l->type, &why);
    /* a plugin of SCALEMETER_PLUGIN_PATH, loaded by this first lookup whatever its type: its
     * file and fault first, then the lookup (resnet18's conv1 was blamed for a stale .so) */
    if (found == SM_LOOKUP_USER_FAILED)
        return sm_fail(c->st,
                       "%s; the plugins of SCALEMETER_PLUGIN_PATH all load at a network's first "
                       "lookup of a layer type, here layer %s's '%s' at %s",
                       why.msg, l->name, type, where);
    if (found)
        return sm_fail(c->st, "%s: layer %s: %s", where, l->name, why.msg);
    if (!l->type) {
        char near[256], orphan[512];
        if (sm_registry_orphan_companion(c->reg, type, orphan, sizeof orphan))
            return sm_fail(c->st,
                           "%s: layer %s: unknown layer type '%s': %.300s is a companion "
                           "module (a plugin's kernels), and no %s.so beside it holds the "
                           "type; a plugin's own file is NAME.so",
                           where, l->name, type, orphan, type);
        near_types(c->reg, type, near, sizeof near);
        return sm_fail(c->st,
                       "%s: layer %s: unknown layer type '%s' (%s%s%s`scalemeter plugins` "
                       "lists the loaded types)",
                       where, l->name, type, near[0] ? "did you mean " : "", near,
                       near[0] ? "? " : "");
    }
    for (char *tok; (tok = strtok_r(NULL, " \t", &save));) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1]) {
            /* an indented line meant as a layer of its own is read as more of this one */
            char hint[96] = "";
            if (e->cont_first == e->cont_last && e->cont_first)
                snprintf(hint, sizeof hint, " (the indented line %d continues this layer)",
                         e->cont_first);
            else if (e->cont_first)
                snprintf(hint, sizeof hint, " (the indented lines %d-%d continue this layer)",
                         e->cont_first, e->cont_last);
            return sm_fail(c->st, "%s: layer %s: expected key=value, got '%s'%s", where, l->name,
                           tok, hint);
        }
        *eq = '\0';
        if (strcmp(tok, "from") == 0) {
            if (l->n_from)
                return sm_fail(c->st, "%s: layer %s: 'from' given twice", where, l->name);
            char *names = eq + 1, *s2 = NULL;
            /* strtok_r passes over empty names: from=a,,b read as a,b and from=, as no from */
            size_t len = strlen(names);
            if (names[0] == ',' || names[len - 1] == ',' || strstr(names, ",,"))
                return sm_fail(c->st,
                               "%s: layer %s: from=%s: an empty name in the list (layer names "
                               "joined by commas)",
                               where, l->name, names);
            for (char *n = strtok_r(names, ",", &s2); n; n = strtok_r(NULL, ",", &s2)) {
                char **grown = realloc(l->from, (size_t)(l->n_from + 1) * sizeof *grown);
                if (!grown)
                    return sm_fail(c->st, "out of memory");
                l->from = grown;
                l->from[l->n_from++] = strdup(n);
            }
            continue;
        }
        if (kv_reserve(x, l, room))
            return sm_fail(c->st, "out of memory");
        int *slot = kv_slot(x, l, tok);
        if (*slot >= 0)
            return sm_fail(c->st, "%s: layer %s: parameter %s given twice", where, l->name, tok);
        l->kv[l->n_kv] = (sm_kv){strdup(tok), strdup(eq + 1), 0};
        *slot = l->n_kv++;
    }
    return 0;
}

/* Adds one layer; key and value are substituted with args first (args may be NULL). */
static int add_layer(parse_ctx *c, const entry *e, const char *prefix, int block, int block_line,
                     scope_args *args)
{
    draft_network *d = c->d;
    char where[4096], err[256];
    if (check_size(c, d->n_layers, "layers", block_line ? block_line : e->line))
        return -1;
    if (block_line)
        snprintf(where, sizeof where, "%s:%d (block at line %d)", c->path, e->line, block_line);
    else
        snprintf(where, sizeof where, "%s:%d", c->path, e->line);
    if (args)
        args->missing_len = 0;
    char *local = substitute(e->key, args, err, sizeof err);
    char *text = local ? substitute(e->value, args, err, sizeof err) : NULL;
    if (!text) {
        free(local);
        int of_block = args && args->missing_len && (args->tmpl || args->missing_len == 1);
        if (of_block && (args->tmpl || args->missing[0] == 'i')) {
            /* an argument of the template the block does not give, or i in a block that does
             * not repeat: which, of which layer, template and block, and where. err is "in
             * ${EXPR}: WHY", EXPR without a '}'. */
            char why[512], tmpl[256] = "";
            say_missing(args, block_line, why, sizeof why);
            const char *expr = err + 3, *close = strchr(expr, '}');
            if (args->tmpl)
                snprintf(tmpl, sizeof tmpl, " of [template %.200s]", args->tmpl);
            return sm_fail(c->st, "%s:%d: %s %.200s%s: %.*s: %s", c->path, e->line,
                           local ? "layer" : "the layer name", e->key, tmpl,
                           close ? (int)(close - expr + 1) : (int)strlen(expr), expr, why);
        }
        if (!local)
            return sm_fail(c->st, "%s: the layer name %s: %s", where, e->key, err);
        return sm_fail(c->st, "%s: layer %s: %s", where, e->key, err);
    }
    /* a name that from= cannot spell: empty (a row with a blank name), or with a comma, which
     * from= splits at, or white space, which it trims ("from=a,b" read the layer named "a,b"
     * as the two layers a and b) */
    if (!local[0] || strpbrk(local, ", \t\r\n\v\f") || sm_has_controls(local)) {
        /* a control byte (an escape sequence) reached the terminal in --per-layer's table */
        char *shown = sm_escape_controls(local);
        int rc = sm_fail(c->st,
                         "%s: the layer name '%s': %s (from= names layers joined by commas; a "
                         "name has no comma, white space or control character)",
                         where, shown ? shown : "?",
                         local[0] ? "a name from= cannot spell" : "an empty name");
        free(shown);
        free(local);
        free(text);
        return rc;
    }
    if (local[0] == '@') {
        /* from = @input and @in name the network's and the block's input before any layer: a
         * layer so named was accepted, and a reference to it read the input instead */
        int rc = sm_fail(c->st,
                         "%s: the layer name %s: a name beginning with '@' is reserved "
                         "(@input, @in: the network's and the block's input)",
                         where, local);
        free(local);
        free(text);
        return rc;
    }
    if (grow((void **)&d->layers, &d->cap_layers, d->n_layers, sizeof *d->layers)) {
        free(local);
        free(text);
        return sm_fail(c->st, "out of memory");
    }
    draft_layer *l = &d->layers[d->n_layers];
    memset(l, 0, sizeof *l);
    if (prefix) {
        size_t len = strlen(prefix) + strlen(local) + 2;
        l->name = malloc(len);
        snprintf(l->name, len, "%s.%s", prefix, local);
        l->scope = strdup(prefix);
        free(local);
    } else {
        l->name = local;
    }
    l->block = block;
    l->line = e->line;
    l->block_line = block_line;
    l->prev = d->n_layers ? d->n_layers - 1 : SM_NETWORK_INPUT;
    d->n_layers++; /* counted now so that sm_draft_free releases it on any error below */
    int rc = parse_layer_text(c, l, text, where, e);
    free(text);
    return rc;
}

static int parse_shape(const char *text, sm_shape *s)
{
    memset(s, 0, sizeof *s);
    const char *p = text;
    for (;;) {
        /* digits only: strtoll alone would take " 32", "+32" and, after a last 'x', nothing */
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || v < 1 || v > MAX_INPUT_DIM || s->ndim == SM_MAX_DIMS)
            return -1;
        s->dim[s->ndim++] = v;
        p = end;
        if (!*p)
            return 0;
        if (*p++ != 'x')
            return -1;
    }
}

static int parse_network_section(parse_ctx *c, const section *s)
{
    for (int k = 0; k < s->n; k++) {
        const entry *e = &s->entries[k];
        if (strcmp(e->key, "name") == 0) {
            /* the name heads every table and names the model in CSV and JSON: an empty one
             * printed " (net.ini)", one with a control byte reached the terminal */
            if (!e->value[0] || sm_has_controls(e->value))
                return sm_fail(c->st,
                               "%s:%d: name: %s (leave the key out and the file's name "
                               "stands for it)",
                               c->path, e->line,
                               e->value[0] ? "a control character in it" : "an empty name");
            free(c->d->name);
            c->d->name = strdup(e->value);
        } else if (strcmp(e->key, "input") == 0) {
            if (parse_shape(e->value, &c->d->input))
                return sm_fail(c->st,
                               "%s:%d: input = %s: expected up to %d sizes in [1, %d] "
                               "joined by 'x', such as 3x224x224",
                               c->path, e->line, e->value, SM_MAX_DIMS, MAX_INPUT_DIM);
        } else if (strcmp(e->key, "optimizer") == 0) {
            if ((c->d->optimizer = sm_optimizer_parse(e->value)) < 0)
                return sm_fail(c->st,
                               "%s:%d: optimizer = %s: expected sgd, momentum, adam or adamw "
                               "(what the network's reference recipe trains with)",
                               c->path, e->line, e->value);
        } else if (strcmp(e->key, "precision") == 0) {
            if (sm_precision_parse(e->value) < 0)
                return sm_fail(c->st,
                               "%s:%d: precision = %s: expected fp32, tf32, fp16 or bf16 (what "
                               "the network's reference recipe computes in)",
                               c->path, e->line, e->value);
            snprintf(c->d->precision, sizeof c->d->precision, "%s", e->value);
        } else if (strcmp(e->key, "source") != 0 && strcmp(e->key, "description") != 0) {
            return sm_fail(c->st,
                           "%s:%d: unknown key '%s' in [network] (name, input, source, "
                           "description, optimizer, precision)",
                           c->path, e->line, e->key);
        }
    }
    return 0;
}

/* Sections ordered by header, then by line (so the first of a header comes first). */
static int compare_sections(const void *pa, const void *pb)
{
    const section *a = *(const section *const *)pa, *b = *(const section *const *)pb;
    int c = strcmp(a->header, b->header);
    return c ? c : (a > b) - (a < b);
}

static int compare_template_name(const void *pname, const void *ps)
{
    const section *s = *(const section *const *)ps;
    return strcmp((const char *)pname, s->header + 9);
}

/* The [template NAME] of that name (check_repeats has refused a second one). */
static const section *find_template(parse_ctx *c, const char *name)
{
    const section *const *found =
        c->file->n_templates ? bsearch(name, c->file->templates, (size_t)c->file->n_templates,
                                       sizeof *c->file->templates, compare_template_name)
                             : NULL;
    if (found)
        c->file->template_used[found - c->file->templates] = 1;
    return found ? *found : NULL;
}

/* A template no block uses is never expanded, so nothing in it was ever checked: "conv9d
 * out=-4 kernal=3" in one passed, where the format promises that a typo never goes unnoticed. */
static int check_templates_used(const ini_file *f, sm_status *st)
{
    for (int k = 0; k < f->n_templates; k++)
        if (!f->template_used[k])
            return sm_fail(st,
                           "%s:%d: [%s] is used by no block (use = %s in a [block NAME]): "
                           "nothing in it is checked; use it or delete it",
                           f->path, f->templates[k]->line, f->templates[k]->header,
                           f->templates[k]->header + 9);
    return 0;
}

/* "layer1.{0..2}" into prefix "layer1.", range 0..2 and suffix "". */
static int parse_repeat(const char *spec, char *prefix, size_t len, const char **suffix,
                        long long *first, long long *last)
{
    const char *open = strchr(spec, '{');
    *first = *last = -1;
    *suffix = "";
    if (!open) {
        snprintf(prefix, len, "%s", spec);
        return 0;
    }
    char *end;
    errno = 0;
    *first = strtoll(open + 1, &end, 10);
    if (end == open + 1 || strncmp(end, "..", 2) != 0)
        return -1;
    const char *b = end + 2;
    *last = strtoll(b, &end, 10);
    if (end == b || errno == ERANGE || *end != '}' || *first < 0 || *last < *first ||
        strchr(end + 1, '{'))
        return -1;
    if (*last - *first >= MAX_REPEAT)
        return -2;
    snprintf(prefix, len, "%.*s", (int)(open - spec), spec);
    *suffix = end + 1;
    return 0;
}

static int parse_block_section(parse_ctx *c, const section *s, const char *spec)
{
    char prefix[512];
    const char *suffix;
    long long first, last;
    int bad = parse_repeat(spec, prefix, sizeof prefix, &suffix, &first, &last);
    if (bad == -2)
        return sm_fail(c->st, "%s:%d: [block %s]: %lld..%lld is more than %d repetitions", c->path,
                       s->line, spec, first, last, MAX_REPEAT);
    if (bad || !*spec)
        return sm_fail(c->st,
                       "%s:%d: [block %s]: expected a name, optionally with one {A..B} "
                       "repetition (0 <= A <= B)",
                       c->path, s->line, spec);
    const char *use = NULL, *from = NULL;
    int n_args = 0;
    for (int k = 0; k < s->n; k++) {
        if (strcmp(s->entries[k].key, "use") == 0)
            use = s->entries[k].value;
        else if (strcmp(s->entries[k].key, "from") == 0)
            from = s->entries[k].value;
        else
            n_args++;
    }
    const section *tmpl = NULL;
    if (use && !(tmpl = find_template(c, use)))
        return sm_fail(c->st, "%s:%d: [block %s]: no [template %s] in this file", c->path, s->line,
                       spec, use);
    if (tmpl && tmpl->n == 0)
        return sm_fail(c->st,
                       "%s:%d: [block %s]: [template %s] (line %d) is empty: write the layers "
                       "it stands for under its header",
                       c->path, s->line, spec, use, tmpl->line);
    if (!use && n_args == 0)
        return sm_fail(c->st,
                       "%s:%d: [block %s] has no layers: give use = TEMPLATE or write its "
                       "layers under it",
                       c->path, s->line, spec);
    /* a template's arguments, on the heap: an inline block's layers count as keys too, and
     * 10^6 of them on the stack (20 bytes each) overflowed it */
    size_t room = tmpl ? (size_t)n_args + 1 : 1;
    const char **names = malloc(room * sizeof *names);
    int64_t *values = malloc(room * sizeof *values);
    int *used = malloc(room * sizeof *used);
    arg_name *sorted = malloc(room * sizeof *sorted);
    int rc = names && values && used && sorted ? 0 : sm_fail(c->st, "%s: out of memory", c->path);
    /* the arguments' names, the same in every repetition, sorted once for lookup_arg */
    int n_sorted = 0;
    for (int k = 0; rc == 0 && tmpl && k < s->n; k++)
        if (strcmp(s->entries[k].key, "use") && strcmp(s->entries[k].key, "from"))
            sorted[n_sorted] = (arg_name){s->entries[k].key, n_sorted}, n_sorted++;
    if (rc == 0)
        qsort(sorted, (size_t)n_sorted, sizeof *sorted, by_arg_name);
    /* in a repeated block ${i} is the repetition's index: an argument named i took its place
     * in the template without a word */
    for (int k = 0; rc == 0 && tmpl && first >= 0 && k < s->n; k++)
        if (!strcmp(s->entries[k].key, "i"))
            rc = sm_fail(c->st,
                         "%s:%d: [block %s]: an argument named i in a repeated block: ${i} is "
                         "the repetition's index (%lld..%lld); name the argument otherwise",
                         c->path, s->entries[k].line, spec, first, last);
    /* counted, not compared with last: i <= last would wrap past LLONG_MAX */
    for (long long n = 0; n <= last - first && rc == 0; n++) {
        long long i = first + n;
        char name[600];
        if (first >= 0)
            snprintf(name, sizeof name, "%s%lld%s", prefix, i, suffix);
        else
            snprintf(name, sizeof name, "%s", prefix);
        scope_args args = {names, values, used, 0, first >= 0, i, NULL, 0, "", use, spec};
        /* a block that uses a template gives arguments; evaluate them (they may use i) */
        for (int k = 0; tmpl && k < s->n; k++) {
            const entry *e = &s->entries[k];
            if (!strcmp(e->key, "use") || !strcmp(e->key, "from"))
                continue;
            char why[256];
            scope_args index_only = {NULL, NULL, NULL, 0, first >= 0, i, NULL, 0, "", use, spec};
            int64_t v;
            const char *dots = strlen(e->value) > 100 ? "..." : "";
            if (!e->value[0]) {
                rc = sm_fail(c->st,
                             "%s:%d: [block %s]: argument %s of [template %s] is empty: give "
                             "it an integer expression (%s = 64)",
                             c->path, e->line, spec, e->key, use, e->key);
                break;
            }
            if (strstr(e->value, "${")) {
                /* ${...} is the template's way to a value; an argument is an expression already */
                rc = sm_fail(c->st,
                             "%s:%d: [block %s]: argument %s = %.100s%s: write it without "
                             "${...}, which only [template %s]'s layers use (%s = i, %s = 2 * i)",
                             c->path, e->line, spec, e->key, e->value, dots, use, e->key, e->key);
                break;
            }
            if (sm_expr_eval(e->value, lookup_arg, &index_only, &v, why, sizeof why)) {
                if (index_only.missing_len &&
                    !(index_only.missing_len == 1 && index_only.missing[0] == 'i'))
                    snprintf(why, sizeof why,
                             "'%s' is not known here: an argument is an integer expression of "
                             "numbers%s",
                             index_only.missing,
                             first >= 0 ? " and i, the repetition's index" : "");
                else if (index_only.missing_len)
                    say_missing(&index_only, s->line, why, sizeof why);
                rc = sm_fail(c->st, "%s:%d: [block %s]: argument %s = %.100s%s: %s", c->path,
                             e->line, spec, e->key, e->value, dots, why);
                break;
            }
            names[args.n] = e->key;
            values[args.n] = v;
            used[args.n++] = 0;
        }
        args.sorted = args.n == n_sorted && tmpl ? sorted : NULL;
        int block = rc ? -1 : add_block(c, name, from, s->line);
        if (block < 0) {
            rc = -1;
            break;
        }
        const section *body = tmpl ? tmpl : s;
        for (int k = 0; k < body->n && rc == 0; k++) {
            const entry *e = &body->entries[k];
            if (!tmpl && !strcmp(e->key, "from"))
                continue;
            rc = add_layer(c, e, name, block, s->line, &args);
        }
        for (int k = 0; k < args.n && rc == 0; k++)
            if (!args.used[k])
                rc = sm_fail(c->st,
                             "%s:%d: [block %s]: argument '%s' is not used by "
                             "[template %s]",
                             c->path, s->line, spec, args.names[k], use);
    }
    free(names), free(values), free(used), free(sorted);
    return rc;
}

static int parse_layers_section(parse_ctx *c, const section *s)
{
    for (int k = 0; k < s->n; k++) {
        int block = add_block(c, s->entries[k].key, NULL, s->entries[k].line);
        if (block < 0 || add_layer(c, &s->entries[k], NULL, block, 0, NULL))
            return -1;
    }
    return 0;
}

static char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    const char *dot = strrchr(b, '.');
    return strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

/* Entries ordered by key, then by line. */
static int compare_entries(const void *pa, const void *pb)
{
    const entry *a = *(const entry *const *)pa, *b = *(const entry *const *)pb;
    int c = strcmp(a->key, b->key);
    return c ? c : (a > b) - (a < b);
}

/* The first key of s given again, by the line of the repetition: 0 with *first and *again, or
 * 1 for none; -1 out of memory. Sorted, so n log n: compared pairwise, a [block] of 80,000
 * layers took seconds. */
static int repeated_key(const section *s, const entry **first, const entry **again)
{
    if (s->n < 2)
        return 1;
    const entry **by = malloc((size_t)s->n * sizeof *by);
    if (!by)
        return -1;
    for (int k = 0; k < s->n; k++)
        by[k] = &s->entries[k];
    qsort(by, (size_t)s->n, sizeof *by, compare_entries);
    *again = NULL;
    /* each key's first entry, then its second: the second that comes first in the file */
    for (int k = 1; k < s->n; k++)
        if (!strcmp(by[k]->key, by[k - 1]->key) && (k < 2 || strcmp(by[k]->key, by[k - 2]->key)) &&
            (!*again || by[k] < *again)) {
            *first = by[k - 1];
            *again = by[k];
        }
    free(by);
    return *again ? 0 : 1;
}

/* A key given twice in [network] or in a [block], or two sections of one [network] or
 * [template NAME]: one would silently win over the other. (A layer name given twice is
 * refused when the layers are added, wherever it comes from.) The first in the file is
 * reported: the sections in order, each header before its keys. Leaves f->templates sorted
 * by name for find_template. */
static int check_repeats(const char *path, ini_file *f, sm_status *st)
{
    const section **named = malloc((size_t)(f->n ? f->n : 1) * sizeof *named);
    int *again_of = malloc((size_t)(f->n ? f->n : 1) * sizeof *again_of);
    if (!named || !again_of) {
        free(named);
        free(again_of);
        return sm_fail(st, "%s: out of memory", path);
    }
    int n_named = 0;
    for (int i = 0; i < f->n; i++) {
        const section *s = &f->sections[i];
        again_of[i] = -1;
        if (strncmp(s->header, "template ", 9) == 0 || !strcmp(s->header, "network"))
            named[n_named++] = s;
    }
    /* sorted by header, then line: each section that repeats the one before it repeats the
     * first of its run */
    qsort(named, (size_t)n_named, sizeof *named, compare_sections);
    for (int k = 1, run = 0; k < n_named; k++) {
        if (strcmp(named[k]->header, named[k - 1]->header) != 0)
            run = k;
        else
            again_of[named[k] - f->sections] = (int)(named[run] - f->sections);
    }
    int rc = 0;
    for (int i = 0; i < f->n && rc == 0; i++) {
        const section *s = &f->sections[i];
        /* [block  b1] and [block b1 ] named blocks " b1" and "b1 ", two rows of one name in
         * --per-block, and [template  t1] no template that use = t1 finds */
        const char *name = !strncmp(s->header, "block ", 6)      ? s->header + 6
                           : !strncmp(s->header, "template ", 9) ? s->header + 9
                                                                 : NULL;
        size_t len = name ? strlen(name) : 0;
        if (len && (isspace((unsigned char)name[0]) || isspace((unsigned char)name[len - 1]))) {
            size_t lead = 0;
            while (isspace((unsigned char)name[lead]))
                lead++;
            while (len > lead && isspace((unsigned char)name[len - 1]))
                len--;
            if (len == lead)
                rc = sm_fail(st, "%s:%d: [%s]: expected a name", path, s->line, s->header);
            else
                rc = sm_fail(st,
                             "%s:%d: [%s]: a space before or after the name would be part of "
                             "it; write [%.*s%.*s]",
                             path, s->line, s->header, (int)(name - s->header), s->header,
                             (int)(len - lead), name + lead);
            break;
        }
        if (again_of[i] >= 0) {
            rc = sm_fail(st, "%s:%d: [%s] given twice (first at line %d)", path, s->line, s->header,
                         f->sections[again_of[i]].line);
            break;
        }
        if (strcmp(s->header, "network") && strncmp(s->header, "block ", 6))
            continue;
        const entry *first, *again;
        int found = repeated_key(s, &first, &again);
        if (found < 0)
            rc = sm_fail(st, "%s: out of memory", path);
        else if (found == 0)
            rc = sm_fail(st, "%s:%d: %s given twice in [%s] (first at line %d)", path, again->line,
                         again->key, s->header, first->line);
    }
    free(again_of);
    /* the templates, one of each name now, for find_template */
    int n_templates = 0;
    for (int k = 0; k < n_named; k++)
        if (strncmp(named[k]->header, "template ", 9) == 0)
            named[n_templates++] = named[k];
    f->templates = named;
    f->n_templates = n_templates;
    f->template_used = calloc((size_t)n_templates + 1, 1);
    if (!f->template_used && rc == 0)
        rc = sm_fail(st, "%s: out of memory reading its templates", path);
    return rc;
}

/* Blocks ordered by name, then by index (file order). */
static const draft_block *sorting_blocks;
static int compare_blocks(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    int c = strcmp(sorting_blocks[a].name, sorting_blocks[b].name);
    return c ? c : (a > b) - (a < b);
}

/* Two blocks of one name ([block b] twice, a [layers] layer named as a block, a repetition that
 * makes a block written beside it) printed two rows of one name in --per-block, neither saying
 * which is which. The one that repeats a name first in the file is named, n log n. Two [layers]
 * layers of one name are left to the layers' own check, which names them as layers. */
static int check_block_names(const char *path, const draft_network *d, sm_status *st)
{
    size_t n = (size_t)(d->n_blocks ? d->n_blocks : 1);
    int *by = malloc(n * sizeof *by);
    char *own = calloc(n, 1); /* a [layers] layer's block, of the layer's own name */
    if (!by || !own) {
        free(by);
        free(own);
        return sm_fail(st, "%s: out of memory", path);
    }
    for (int i = 0; i < d->n_blocks; i++)
        by[i] = i;
    for (int k = 0; k < d->n_layers; k++)
        if (!d->layers[k].block_line)
            own[d->layers[k].block] = 1;
    sorting_blocks = d->blocks;
    qsort(by, (size_t)d->n_blocks, sizeof *by, compare_blocks);
    int first = -1, again = -1;
    for (int run = 0, end; run < d->n_blocks; run = end) {
        int all_own = own[by[run]];
        for (end = run + 1;
             end < d->n_blocks && !strcmp(d->blocks[by[end]].name, d->blocks[by[run]].name); end++)
            all_own &= own[by[end]];
        if (end - run > 1 && !all_own && (again < 0 || by[run + 1] < again))
            first = by[run], again = by[run + 1];
    }
    free(by);
    free(own);
    if (again < 0)
        return 0;
    return sm_fail(st,
                   "%s:%d: block %s is named twice (first at line %d): a [block] is written "
                   "once, and a [layers] layer is a block of its own name",
                   path, d->blocks[again].line, d->blocks[again].name, d->blocks[first].line);
}

int sm_draft_parse(const sm_registry *reg, const char *path, draft_network *d, sm_status *st)
{
    memset(d, 0, sizeof *d);
    d->registry = reg;
    d->path = path;
    d->optimizer = -1;
    ini_file file;
    int rc = ini_file_read(path, &file, st);
    if (rc == 0)
        rc = check_repeats(path, &file, st);
    parse_ctx c = {reg, path, d, &file, st};
    int seen_network = 0;
    for (int i = 0; rc == 0 && i < file.n; i++) {
        const section *s = &file.sections[i];
        if (strcmp(s->header, "network") == 0) {
            seen_network = 1;
            rc = parse_network_section(&c, s);
        } else if (strcmp(s->header, "layers") == 0) {
            rc = parse_layers_section(&c, s);
        } else if (strncmp(s->header, "block ", 6) == 0) {
            rc = parse_block_section(&c, s, s->header + 6);
        } else if (strncmp(s->header, "template ", 9) != 0) {
            char other[160];
            rc = sm_fail(st,
                         "%s:%d: unknown section [%s]: expected [network], [layers], "
                         "[template NAME] or [block NAME]%s",
                         path, s->line, s->header,
                         sm_ini_other_kind(s->header, "a network file", other, sizeof other));
        }
    }
    if (rc == 0 && (!seen_network || d->input.ndim == 0))
        rc = sm_fail(st, "%s: no [network] section with an input shape (input = 3x224x224)", path);
    if (rc == 0 && d->n_layers == 0)
        rc = sm_fail(st, "%s: the network has no layers", path);
    if (rc == 0)
        rc = check_templates_used(&file, st);
    if (rc == 0)
        rc = check_block_names(path, d, st);
    if (rc == 0 && !d->name)
        d->name = base_name(path);
    ini_file_free(&file);
    return rc;
}

void sm_draft_free(draft_network *d)
{
    for (int i = 0; i < d->n_layers; i++) {
        draft_layer *l = &d->layers[i];
        free(l->name);
        free(l->scope);
        for (int k = 0; k < l->n_kv; k++) {
            free(l->kv[k].key);
            free(l->kv[k].value);
        }
        free(l->kv);
        for (int k = 0; k < l->n_from; k++)
            free(l->from[k]);
        free(l->from);
    }
    for (int i = 0; i < d->n_blocks; i++) {
        free(d->blocks[i].name);
        free(d->blocks[i].in_name);
    }
    free(d->layers);
    free(d->blocks);
    free(d->name);
    memset(d, 0, sizeof *d);
}
