/* The names nearest a misspelt one, for "did you mean" (a layer type: sofplus, batchnorm,
 * conv): the fewest single-character insertions, deletions and substitutions (Levenshtein),
 * within a bound that grows with the name, so that a name far from every candidate gets none. */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Longest name compared: a layer type's is short; longer ones are nobody's misspelling. */
#define MAX_NAME 64

int sm_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > MAX_NAME || m > MAX_NAME)
        return MAX_NAME + 1;
    int row[MAX_NAME + 1];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

/* Whether names[i] is one of the candidates: at distance d from name (prefix: name begins it). */
static int candidate(const char *name, const char *other, int d, int prefix)
{
    return prefix ? strncmp(name, other, strlen(name)) == 0 : sm_edit_distance(name, other) == d;
}

void sm_near_names(const char *name, const char *const *names, int n, char *out, size_t len)
{
    if (!len)
        return;
    out[0] = '\0';
    /* a third of the name, at least 1 and at most 3: sofplus -> softplus (1), batchnorm ->
     * batchnorm2d (2), relu -> gelu (1), but not lstm -> rnn; where none is that near, the
     * names it begins (conv: conv1d, conv2d, conv3d) */
    size_t name_len = strlen(name);
    int limit = (int)name_len / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    int best = limit + 1;
    for (int i = 0; i < n; i++) {
        int d = sm_edit_distance(name, names[i]);
        best = d < best ? d : best;
    }
    int prefix = best > limit;
    if (prefix && name_len < 3)
        return;
    int total = 0;
    for (int i = 0; i < n; i++)
        total += candidate(name, names[i], best, prefix);
    int shown = total > 4 ? 3 : total, k = 0;
    for (int i = 0; i < n && k < shown; i++) {
        if (!candidate(name, names[i], best, prefix))
            continue;
        size_t used = strlen(out);
        const char *sep = k == 0 ? "" : k == shown - 1 && shown == total ? " or " : ", ";
        snprintf(out + used, len - used, "%s%s", sep, names[i]);
        k++;
    }
    if (shown < total) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, " or %d more", total - shown);
    }
}
