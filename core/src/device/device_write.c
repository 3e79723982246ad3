/* Writing a device description as a copy of another with some keys replaced: what `fit
 * --device-out` and `fit-comm --device-out` write. Every key the writer does not replace, and
 * every comment, comes from the base as it stands, so a key added to the format later is kept
 * without the writers knowing of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "device/device_file.h"
#include "network/network_internal.h"
#include "scalemeter/device.h"
#include "util/ini_reader.h"

/* "  key = value ; comment" -> the key, or ""; "key: value" too, as inih reads it (a key
 * left unmatched would be written twice, and the description refused) */
static void line_key(const char *line, char *key, size_t len)
{
    const char *p = line + strspn(line, " \t");
    size_t n = strcspn(p, " \t=:;#\r\n");
    char after = p[n + strspn(p + n, " \t")];
    if ((after != '=' && after != ':') || n >= len)
        n = 0;
    memcpy(key, p, n);
    key[n] = '\0';
}

static void write_key(FILE *out, const sm_device_key *k)
{
    fprintf(out, "%s = %s%s%s\n", k->key, k->value, k->comment ? "  ; " : "",
            k->comment ? k->comment : "");
}

/* The header's comment lines, each cut to what the readers take: a long path of the runs or
 * the base in one made the description written unreadable ("line longer than 198
 * characters"). A long line goes on in more comment lines, cut at a space or after a '/'. */
static void write_header(FILE *out, const char *header)
{
    const char *p = header;
    while (*p) {
        size_t n = strcspn(p, "\n"), max = SM_INI_MAX_LINE;
        while (n > max) {
            size_t cut = max;
            while (cut > max / 2 && p[cut] != ' ' && p[cut - 1] != '/')
                cut--;
            if (cut == max / 2)
                cut = max;
            fprintf(out, "%.*s\n; ", (int)cut, p);
            size_t skip = cut + (p[cut] == ' ');
            p += skip;
            n -= skip;
            max = SM_INI_MAX_LINE - 2; /* after "; " */
        }
        fprintf(out, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* The keys of `section` not written yet (they were not in the base's section). */
static void write_rest(FILE *out, const char *section, const sm_device_key *keys, int n,
                       int *written)
{
    for (int i = 0; i < n; i++)
        if (!written[i] && !strcmp(keys[i].section, section))
            write_key(out, &keys[i]), written[i] = 1;
}

int sm_device_write_replacing(const char *base, const sm_device_key *keys, int n,
                              const char *header, const char *path, sm_status *st)
{
    char base_path[4096];
    if (sm_device_find(base, base_path, sizeof base_path, st))
        return -1;
    FILE *in = fopen(base_path, "r");
    if (!in)
        return sm_fail(st, "%s: %s", base_path, strerror(errno));
    int *written = calloc((size_t)(n ? n : 1), sizeof *written);
    char tmp[4200];
    FILE *out = written ? sm_atomic_open(path, tmp, sizeof tmp, NULL, st) : NULL;
    if (!out) {
        fclose(in);
        free(written);
        return written ? -1 : sm_fail(st, "out of memory");
    }
    write_header(out, header);
    char *line = NULL, section[64] = "";
    size_t cap = 0;
    ssize_t got;
    for (int first = 1; (got = getline(&line, &cap, in)) != -1; first = 0) {
        /* the base's byte-order mark (which the reader skips) would land after the header,
         * mid-file, where it is a syntax error */
        if (first && got >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
            memmove(line, line + 3, (size_t)(got -= 3) + 1);
        const char *p = line + strspn(line, " \t");
        if (*p == '[') {
            write_rest(out, section, keys, n, written);
            size_t len = strcspn(p + 1, "]");
            snprintf(section, sizeof section, "%.*s", (int)(len < 63 ? len : 63), p + 1);
        }
        char key[64];
        line_key(line, key, sizeof key);
        int replaced = 0;
        for (int i = 0; i < n && key[0]; i++)
            if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key)) {
                /* a section given twice: its first part's end took the key already */
                if (!written[i])
                    write_key(out, &keys[i]);
                written[i] = replaced = 1;
            }
        /* a last line without its newline: the keys written after it would join it (a
         * fitted key inside a comment, a text key inside another's value) */
        if (!replaced)
            fprintf(out, "%s%s", line, got > 0 && line[got - 1] != '\n' ? "\n" : "");
    }
    free(line);
    write_rest(out, section, keys, n, written);
    /* sections the base does not have, in the order the keys name them */
    for (int i = 0; i < n; i++)
        if (!written[i]) {
            fprintf(out, "\n[%s]\n", keys[i].section);
            write_rest(out, keys[i].section, keys, n, written);
        }
    free(written);
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        fclose(out);
        remove(tmp);
        return sm_fail(st, "%s: read error", base_path);
    }
    /* what is written reads back, or is not put in place: a writer's mistake is said here,
     * not by the prediction that loads it later, or by none */
    sm_device back;
    sm_status why = {""};
    if (fflush(out) == 0 && sm_device_load(tmp, &back, &why)) {
        fclose(out);
        remove(tmp);
        return sm_fail(st,
                       "%s: not written: the description made from %s does not read back "
                       "(%s); please report it",
                       path, base_path, why.msg);
    }
    return sm_atomic_commit(out, tmp, path, st);
}
