/* Integer expressions of template arguments: ${width*4}, ${stride==1}. Recursive descent over
 *   cmp  := sum (("=="|"!="|"<"|"<="|">"|">=") sum)?
 *   sum  := prod (("+"|"-") prod)*
 *   prod := unary (("*"|"/"|"%") unary)*
 *   unary:= "-" unary | number | name | "(" cmp ")"
 * with overflow and division by zero reported, never wrapped, and nesting bounded so that a
 * hostile file cannot exhaust the stack. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

/* Brackets and unary minuses nested deeper than any network needs (each level is a C frame). */
#define MAX_DEPTH 200

typedef struct parser {
    const char *s;
    sm_lookup_fn lookup;
    void *ctx;
    char *err;
    size_t errlen;
    int failed;
    int depth;
} parser;

static int64_t parse_cmp(parser *p);

static void skip_space(parser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static int64_t error(parser *p, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->errlen, "%s", what);
    p->failed = 1;
    return 0;
}

static int64_t parse_unary(parser *p)
{
    skip_space(p);
    if ((*p->s == '-' || *p->s == '(') && p->depth >= MAX_DEPTH)
        return error(p, "nested more than 200 deep");
    if (*p->s == '-') {
        p->s++;
        p->depth++;
        int64_t v = parse_unary(p);
        p->depth--;
        return v == INT64_MIN ? error(p, "overflow") : -v;
    }
    if (*p->s == '(') {
        p->s++;
        p->depth++;
        int64_t v = parse_cmp(p);
        p->depth--;
        skip_space(p);
        if (*p->s != ')')
            return error(p, "missing ')'");
        p->s++;
        return v;
    }
    if (isdigit((unsigned char)*p->s)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*p->s)) {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p->s - '0', &v))
                return error(p, "number too large");
            p->s++;
        }
        return v;
    }
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        const char *start = p->s;
        while (isalnum((unsigned char)*p->s) || *p->s == '_')
            p->s++;
        int64_t v;
        if (p->lookup(p->ctx, start, (size_t)(p->s - start), &v)) {
            char msg[128];
            snprintf(msg, sizeof msg, "no argument '%.*s'", (int)(p->s - start), start);
            return error(p, msg);
        }
        return v;
    }
    return error(p, *p->s ? "unexpected character" : "unexpected end");
}

static int64_t parse_prod(parser *p)
{
    int64_t v = parse_unary(p);
    for (;;) {
        skip_space(p);
        char op = *p->s;
        if (op != '*' && op != '/' && op != '%')
            return v;
        p->s++;
        int64_t r = parse_unary(p);
        if (op == '*') {
            if (__builtin_mul_overflow(v, r, &v))
                return error(p, "overflow");
        } else if (r == 0) {
            return error(p, "division by zero");
        } else if (v == INT64_MIN && r == -1) {
            return error(p, "overflow"); /* the one quotient that does not fit; x % -1 traps too */
        } else {
            v = op == '/' ? v / r : v % r;
        }
    }
}

static int64_t parse_sum(parser *p)
{
    int64_t v = parse_prod(p);
    for (;;) {
        skip_space(p);
        char op = *p->s;
        if (op != '+' && op != '-')
            return v;
        p->s++;
        int64_t r = parse_prod(p);
        if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
            return error(p, "overflow");
    }
}

static int64_t parse_cmp(parser *p)
{
    int64_t v = parse_sum(p);
    skip_space(p);
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(p->s, ops[i], n) == 0) {
            p->s += n;
            int64_t r = parse_sum(p);
            switch (i) {
            case 0:
                return v == r;
            case 1:
                return v != r;
            case 2:
                return v <= r;
            case 3:
                return v >= r;
            case 4:
                return v < r;
            default:
                return v > r;
            }
        }
    }
    return v;
}

int sm_expr_eval(const char *text, sm_lookup_fn lookup, void *ctx, int64_t *value, char *err,
                 size_t errlen)
{
    parser p = {text, lookup, ctx, err, errlen, 0, 0};
    int64_t v = parse_cmp(&p);
    skip_space(&p);
    if (!p.failed && *p.s)
        error(&p, "unexpected text after expression");
    if (p.failed)
        return -1;
    *value = v;
    return 0;
}
