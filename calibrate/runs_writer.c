/* The append-only measurement CSV: one write() per row, fsync after each, resume by key. */
#include "runs_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/fnv.h"

struct sm_runs_writer {
    char *path;
    int fd;
    int n_cols, n_key;
    int n_newer; /* the last n_cols of the header that a file written before them lacks */
    int key_cols[16];
    char **keys; /* "v1\x1fv2..." of every row held */
    int n_keys, cap_keys, rows;
    /* keys[] by hash, open addressing: slots (a power of two, at most half full) hold an index
     * into keys[] or -1; a file of R rows answers has() in constant time, not R (a resumed job
     * of C configurations over R rows cost C x R) */
    int *slots;
    size_t n_slots;
};

#define SEP "\x1f" /* joins key values: a byte no field holds */

static size_t key_hash(const char *key) { return (size_t)sm_fnv1a_str(SM_FNV1A_OFFSET, key); }

/* The slot of key: where it is, or the free slot where it would go. */
static int *key_slot(const sm_runs_writer *w, const char *key)
{
    for (size_t i = key_hash(key) & (w->n_slots - 1);; i = (i + 1) & (w->n_slots - 1))
        if (w->slots[i] < 0 || strcmp(w->keys[w->slots[i]], key) == 0)
            return &w->slots[i];
}

/* keys[k] into the table, grown first where it would be over half full; -1: out of memory. */
static int index_key(sm_runs_writer *w, int k)
{
    if (2 * ((size_t)w->n_keys + 1) > w->n_slots) {
        size_t n = w->n_slots ? 2 * w->n_slots : 128;
        int *slots = malloc(n * sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < n; i++)
            slots[i] = -1;
        free(w->slots);
        w->slots = slots, w->n_slots = n;
        for (int j = 0; j < k; j++) {
            int *slot = key_slot(w, w->keys[j]);
            if (*slot < 0)
                *slot = j;
        }
    }
    int *slot = key_slot(w, w->keys[k]);
    if (*slot < 0)
        *slot = k;
    return 0;
}

/* Splits one CSV line in place ("..." quotes, "" a quote inside); returns the field count or -1
 * for an unterminated quote. */
static int split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return n;
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            for (p++;; p++) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"')
                    *out++ = *p++;
                else if (*p == '"')
                    break;
                else
                    *out++ = *p;
            }
            p++;
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        int more = *p == ',';
        if (more)
            p++;
        *out = '\0';
        if (!more)
            return n;
    }
}

static int add_key(sm_runs_writer *w, char **fields, int n)
{
    size_t len = 1;
    for (int k = 0; k < w->n_key; k++)
        len += (w->key_cols[k] < n ? strlen(fields[w->key_cols[k]]) : 0) + 1;
    char *key = malloc(len);
    if (!key)
        return -1;
    key[0] = '\0';
    for (int k = 0; k < w->n_key; k++) {
        if (k)
            strcat(key, SEP);
        if (w->key_cols[k] < n)
            strcat(key, fields[w->key_cols[k]]);
    }
    if (w->n_keys == w->cap_keys) {
        int cap = w->cap_keys ? 2 * w->cap_keys : 64;
        char **keys = realloc(w->keys, (size_t)cap * sizeof *keys);
        if (!keys) {
            free(key);
            return -1;
        }
        w->keys = keys;
        w->cap_keys = cap;
    }
    /* has() compares the first n_key values: a value read from a file may hold the separator
     * (an edited file; bench refuses to write one), and what follows that many is not compared */
    char *end = key;
    for (int k = 1; k < w->n_key && end; k++)
        if ((end = strstr(end, SEP)))
            end++;
    if (end && (end = strstr(end, SEP)))
        *end = '\0';
    w->keys[w->n_keys] = key;
    if (index_key(w, w->n_keys)) {
        free(key);
        return -1;
    }
    w->n_keys++;
    return 0;
}

/* The whole file into memory (measurement files are small: one line per configuration). */
static char *slurp(int fd, size_t *len)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            return NULL;
        if (used + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                return NULL;
            }
            buf = b;
        }
        ssize_t r = read(fd, buf + used, cap - used - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        used += (size_t)r;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Whether fields are cols less the newer ones: the header of a file written before them, which
 * the rows then append without (and the key columns among them are not compared). */
static int older_header(sm_runs_writer *w, const char *const *cols, char **fields)
{
    int n = w->n_cols - w->n_newer;
    for (int c = 0; c < n; c++)
        if (strcmp(fields[c], cols[c]) != 0)
            return 0;
    w->n_cols = n;
    while (w->n_key && w->key_cols[w->n_key - 1] >= n)
        w->n_key--;
    return 1;
}

/* Checks the header and collects the keys of the rows of an existing file's text. */
static int read_rows(sm_runs_writer *w, char *text, const char *const *cols, sm_status *st)
{
    char *fields[256];
    char *line = text, *next;
    int lineno = 0, header = 0;
    for (; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        lineno++;
        if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3)) /* a spreadsheet's CSV UTF-8, */
            line += 3; /* which fit and validate read past too: the rows append under it */
        if (!line[0] || line[0] == '#')
            continue;
        int nf = split(line, fields, 256);
        if (nf < 0)
            return sm_fail(st, "%s:%d: unterminated quote", w->path, lineno);
        if (lineno != 1 && !header)
            return sm_fail(st,
                           "%s:%d: a row before bench's header, which must be line 1; "
                           "write to another file (-o)",
                           w->path, lineno);
        if (lineno == 1) {
            if (w->n_newer && nf == w->n_cols - w->n_newer && older_header(w, cols, fields)) {
                header = 1;
                continue;
            }
            for (int c = 0; c < w->n_cols || c < nf; c++)
                if (c >= nf || c >= w->n_cols || strcmp(fields[c], cols[c]) != 0)
                    return sm_fail(st,
                                   "%s:1: the header differs from bench's at column %d ('%s' "
                                   "where bench writes '%s'); write to another file (-o)",
                                   w->path, c + 1, c < nf ? fields[c] : "",
                                   c < w->n_cols ? cols[c] : "");
            header = 1;
            continue;
        }
        if (add_key(w, fields, nf))
            return sm_fail(st, "%s: out of memory", w->path);
        w->rows++;
    }
    /* a file with text but no header (blank or comment lines alone) would get rows appended
     * that no reader takes as a measurement CSV */
    if (!header && lineno)
        return sm_fail(st, "%s: has no header line (bench's columns); write to another file (-o)",
                       w->path);
    return 0;
}

/* Whether a last line's fields end as bench ends a row: a CPU row's last column is its status,
 * ok or oom, and a line cut inside it ("o") has every column; kept, its configuration was
 * never measured again, nor fitted (its status says not measured). */
static int whole_status(const char *const *cols, int n_cols, char **fields)
{
    for (int c = 0; c < n_cols; c++)
        if (!strcmp(cols[c], "status"))
            return !strcmp(fields[c], "ok") || !strcmp(fields[c], "oom");
    return 1;
}

/* A file whose last line has no newline (each row is one write, so not bench's doing: an
 * editor's, or a write cut short). Nothing is changed before the rest is known to be bench's:
 * then a last line of every column is a row, ended with its newline, and a shorter one is cut
 * off, lest the next row glue onto it. A file of one such line is its header, or not bench's. */
static int last_line(sm_runs_writer *w, char *text, size_t *len, const char *const *cols,
                     const char **note, sm_status *st)
{
    char *nl = strrchr(text, '\n');
    size_t keep = nl ? (size_t)(nl - text + 1) : 0;
    char *tail = strdup(text + keep), *fields[256];
    if (!tail)
        return sm_fail(st, "%s: out of memory", w->path);
    if (keep) { /* the tail apart from the rows before it */
        text[keep] = '\0';
        *len = keep;
    }
    int rc = read_rows(w, text, cols, st);
    size_t n = strlen(tail);
    if (n && tail[n - 1] == '\r') /* as read_rows reads a line */
        tail[--n] = '\0';
    /* kept and ended: the header alone (read above), a comment, or a row of every column whose
     * status is whole */
    int comment = tail[0] == '#', row = keep && !comment && split(tail, fields, 256) == w->n_cols &&
                                        whole_status(cols, w->n_cols, fields);
    if (rc == 0 && (!keep || comment || row)) {
        if (write_all(w->fd, "\n", 1))
            rc = sm_fail(st, "%s: cannot end its %s line: %s", w->path, keep ? "last" : "header",
                         strerror(errno));
        else if (row && add_key(w, fields, w->n_cols))
            rc = sm_fail(st, "%s: out of memory", w->path);
        w->rows += rc == 0 && row;
        if (row)
            *note = "ended its last row, which had no newline";
    } else if (rc == 0) {
        if (ftruncate(w->fd, (off_t)keep) != 0)
            rc = sm_fail(st, "%s: cannot cut off its incomplete last line: %s", w->path,
                         strerror(errno));
        *note = "dropped an incomplete last line (cut short of a row bench writes)";
    }
    free(tail);
    return rc;
}

int sm_runs_writer_open(const char *path, const char *const *cols, int n_cols, int n_newer,
                        const int *key_cols, int n_key, sm_runs_writer **out, const char **note,
                        sm_status *st)
{
    *out = NULL;
    *note = NULL;
    sm_runs_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return sm_fail(st, "%s: out of memory", path);
    }
    w->n_cols = n_cols;
    w->n_newer = n_newer > 0 && n_newer < n_cols ? n_newer : 0;
    w->n_key = n_key < 16 ? n_key : 16;
    memcpy(w->key_cols, key_cols, (size_t)w->n_key * sizeof *key_cols);
    /* O_NONBLOCK: a FIFO must not wait for a reader (it is refused below) */
    w->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
    if (w->fd < 0) {
        sm_fail(st, "%s: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return -1;
    }
    /* the file is read back whole, to resume and to check its header: a pipe, a terminal or
     * /dev/zero would hang or never end, so only a regular file will do */
    struct stat sb;
    if (fstat(w->fd, &sb) != 0 || !S_ISREG(sb.st_mode) || fcntl(w->fd, F_SETFL, O_APPEND) != 0) {
        sm_fail(st, "%s: not a regular file (-o names the CSV file bench appends its rows to)",
                path);
        sm_runs_writer_close(w);
        return -1;
    }
    /* one writer at a time: two benchmarks appending to one file would measure the same
     * configurations twice (a POSIX lock, released when the file is closed or the process dies) */
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(w->fd, F_SETLK, &lock) != 0) {
        if (errno == EACCES || errno == EAGAIN)
            sm_fail(st, "%s: another process is appending to it (a benchmark still running?)",
                    path);
        else
            sm_fail(st, "%s: cannot lock it: %s", path, strerror(errno));
        sm_runs_writer_close(w);
        return -1;
    }
    size_t len = 0;
    char *text = slurp(w->fd, &len);
    int rc = text ? 0 : sm_fail(st, "%s: cannot read: %s", path, strerror(errno));
    /* a NUL would end the text early and the rows after it would be measured again */
    const char *nul = rc == 0 ? memchr(text, '\0', len) : NULL;
    if (nul) {
        int line = 1;
        for (const char *c = text; c < nul; c++)
            line += *c == '\n';
        rc = sm_fail(st, "%s:%d: a NUL byte: not a measurement CSV; write to another file (-o)",
                     path, line);
    }
    if (rc == 0 && len && text[len - 1] != '\n')
        rc = last_line(w, text, &len, cols, note, st);
    else if (rc == 0 && len)
        rc = read_rows(w, text, cols, st);
    if (rc == 0 && !len) {
        char header[4096];
        size_t used = 0;
        for (int c = 0; c < n_cols && used < sizeof header; c++)
            used += (size_t)snprintf(header + used, sizeof header - used, "%s%s", c ? "," : "",
                                     cols[c]);
        if (used + 1 < sizeof header) {
            header[used++] = '\n';
            if (write_all(w->fd, header, used) || fsync(w->fd))
                rc = sm_fail(st, "%s: cannot write the header: %s", path, strerror(errno));
        }
    }
    free(text);
    if (rc) {
        sm_runs_writer_close(w);
        return -1;
    }
    *out = w;
    return 0;
}

int sm_runs_writer_has(const sm_runs_writer *w, const char *const *key_values)
{
    if (!w->n_slots)
        return 0;
    char small[1024], *key = small;
    size_t len = 1;
    for (int j = 0; j < w->n_key; j++) {
        if (strstr(key_values[j], SEP))
            return 0; /* no value held has the separator */
        len += strlen(key_values[j]) + 1;
    }
    if (len > sizeof small && !(key = malloc(len)))
        return 0;
    size_t used = 0;
    for (int j = 0; j < w->n_key; j++) {
        size_t n = strlen(key_values[j]);
        if (j)
            key[used++] = SEP[0];
        memcpy(key + used, key_values[j], n);
        used += n;
    }
    key[used] = '\0';
    int held = *key_slot(w, key) >= 0;
    if (key != small)
        free(key);
    return held;
}

int sm_runs_writer_rows(const sm_runs_writer *w) { return w->rows; }

int sm_runs_writer_columns(const sm_runs_writer *w) { return w->n_cols; }

int sm_runs_writer_holds(const sm_runs_writer *w, const char *value)
{
    size_t n = strlen(value);
    for (int k = 0; k < w->n_keys; k++)
        if (!strncmp(w->keys[k], value, n) && (!w->keys[k][n] || w->keys[k][n] == SEP[0]))
            return 1;
    return 0;
}

int sm_runs_writer_spelling(const sm_runs_writer *w, const char *value,
                            int (*same)(const char *held, const char *value), char **out)
{
    *out = NULL;
    if (sm_runs_writer_holds(w, value))
        return 0; /* held as written */
    const char *prev = NULL;
    size_t prev_len = 0;
    for (int k = 0; k < w->n_keys; k++) {
        size_t len = strcspn(w->keys[k], SEP);
        if (prev && len == prev_len && !strncmp(prev, w->keys[k], len))
            continue; /* the rows of one model come together: each spelling asked once */
        prev = w->keys[k], prev_len = len;
        char *held = strndup(w->keys[k], len);
        if (!held)
            return -1;
        if (same(held, value)) {
            *out = held;
            return 0;
        }
        free(held);
    }
    return 0;
}

/* Appends field to line as CSV: quoted when it holds a comma or a quote, or starts with '#'
 * (a line of a comment otherwise). */
static size_t put_field(char *line, size_t used, size_t cap, const char *f)
{
    int quote = strpbrk(f, ",\"") != NULL || f[0] == '#';
    if (quote && used < cap)
        line[used++] = '"';
    for (; *f && used + 2 < cap; f++) {
        if (*f == '"')
            line[used++] = '"';
        line[used++] = *f;
    }
    if (quote && used < cap)
        line[used++] = '"';
    return used;
}

int sm_runs_writer_append(sm_runs_writer *w, const char *const *fields, sm_status *st)
{
    char line[8192];
    size_t used = 0, cap = sizeof line - 1;
    for (int c = 0; c < w->n_cols; c++) {
        /* a row is one line, and its key joins fields with 0x1f: control bytes cannot be read
         * back as written */
        for (const char *f = fields[c]; *f; f++)
            if ((unsigned char)*f < 0x20)
                return sm_fail(st,
                               "%s: column %d ('%.40s') holds a control character "
                               "(0x%02x), which a row cannot keep",
                               w->path, c + 1, fields[c], (unsigned char)*f);
        if (c && used < cap)
            line[used++] = ',';
        used = put_field(line, used, cap, fields[c]);
    }
    if (used >= cap)
        return sm_fail(st, "%s: a row longer than %zu bytes", w->path, cap);
    line[used++] = '\n';
    struct stat before, named;
    if (fstat(w->fd, &before) != 0)
        return sm_fail(st, "%s: %s", w->path, strerror(errno));
    /* the name must still reach the file open: one replaced by a rename (sed -i, an editor, a
     * sync tool) took the rows written after it to a file no name reaches, and the tally
     * counted them */
    if (stat(w->path, &named) != 0 || named.st_dev != before.st_dev ||
        named.st_ino != before.st_ino)
        return sm_fail(st,
                       "%s: the file was replaced or removed while the rows were written to it "
                       "(sed -i, an editor, a sync tool?); the rows measured before are in it, "
                       "this one and the rest are not: run the same command again to measure "
                       "them",
                       w->path);
    ssize_t wrote;
    do
        wrote = write(w->fd, line, used); /* one write: a row is all there or not at all */
    while (wrote < 0 && errno == EINTR);
    if (wrote != (ssize_t)used) {
        int err = wrote < 0 ? errno : ENOSPC;
        if (wrote > 0 && ftruncate(w->fd, before.st_size) != 0)
            return sm_fail(st, "%s: a row was cut short (%s) and could not be removed: %s", w->path,
                           strerror(err), strerror(errno));
        return sm_fail(st, "%s: cannot append a row: %s", w->path, strerror(err));
    }
    if (fsync(w->fd) != 0)
        return sm_fail(st, "%s: fsync: %s", w->path, strerror(errno));
    /* the row's key, from the line as written, so that has() sees it from now on */
    char copy[8192], *all[256];
    memcpy(copy, line, used);
    copy[used - 1] = '\0';
    int nf = split(copy, all, 256);
    if (nf > 0 && add_key(w, all, nf))
        return sm_fail(st, "%s: out of memory", w->path);
    return 0;
}

void sm_runs_writer_close(sm_runs_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (int i = 0; i < w->n_keys; i++)
        free(w->keys[i]);
    free(w->keys);
    free(w->slots);
    free(w->path);
    free(w);
}
