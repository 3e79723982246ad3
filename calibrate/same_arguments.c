/* Every rank's command line against rank 0's (same_arguments.h). */
#include "same_arguments.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* argv[1..argc) joined by NULs, each ended by one; its length in *len. */
static char *joined(int argc, char **argv, int *len)
{
    size_t n = 0;
    for (int i = 1; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *buf = malloc(n ? n : 1);
    if (!buf)
        return NULL;
    size_t at = 0;
    for (int i = 1; i < argc; i++) {
        size_t k = strlen(argv[i]) + 1;
        memcpy(buf + at, argv[i], k);
        at += k;
    }
    *len = n > (size_t)INT32_MAX ? -1 : (int)n;
    return buf;
}

/* The argument after `at` bytes of a joined buffer of len bytes, or NULL past the end. */
static const char *arg_at(const char *buf, int len, int at) { return at < len ? buf + at : NULL; }

/* Why mine (argv[1..argc)) differs from rank 0's joined arguments, into st. */
static void say_why(int argc, char **argv, const char *theirs, int their_len, sm_status *st)
{
    int at = 0, k = 1;
    for (; k < argc; k++) {
        const char *t = arg_at(theirs, their_len, at);
        if (!t || strcmp(t, argv[k]))
            break;
        at += (int)strlen(t) + 1;
    }
    const char *t = arg_at(theirs, their_len, at);
    /* the option a differing value belongs to, where the one before is one and the same */
    char of[128] = "";
    if (k > 1 && argv[k - 1][0] == '-' && !strchr(argv[k - 1], '='))
        snprintf(of, sizeof of, " (the value of %.80s)", argv[k - 1]);
    if (k < argc && t)
        sm_fail(st,
                "its arguments differ from rank 0's: argument %d is '%.200s' where rank 0 has "
                "'%.200s'%s; start every rank with the same command",
                k, argv[k], t, of);
    else if (k < argc)
        sm_fail(st,
                "its arguments differ from rank 0's: argument %d, '%.200s', is one more than "
                "rank 0 has; start every rank with the same command",
                k, argv[k]);
    else
        sm_fail(st,
                "its arguments differ from rank 0's: it has %d, and lacks rank 0's argument %d, "
                "'%.200s'; start every rank with the same command",
                argc - 1, k, t ? t : "");
}

int sm_same_arguments(MPI_Comm comm, int argc, char **argv, sm_status *st)
{
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    st->msg[0] = '\0';
    int len = 0;
    char *mine = joined(argc, argv, &len);
    /* rank 0's arguments to every rank: first their length, then the bytes */
    int their_len = rank == 0 && mine ? len : 0;
    MPI_Bcast(&their_len, 1, MPI_INT, 0, comm);
    char *theirs = their_len > 0 ? malloc((size_t)their_len) : NULL;
    int ok = mine && len >= 0 && their_len >= 0 && (their_len == 0 || theirs);
    if (theirs && rank == 0)
        memcpy(theirs, mine, (size_t)their_len);
    /* every rank joins the broadcast that has a buffer to fill; one out of memory says so */
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(mine);
        free(theirs);
        if (!ok)
            sm_fail(st, "out of memory comparing the ranks' arguments");
        return -1;
    }
    if (their_len > 0)
        MPI_Bcast(theirs, their_len, MPI_CHAR, 0, comm);
    int differs = len != their_len || (len > 0 && memcmp(mine, theirs, (size_t)len) != 0);
    int me = differs ? rank : ranks, first = ranks;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first < ranks && rank == first)
        say_why(argc, argv, theirs ? theirs : "", their_len, st);
    free(mine);
    free(theirs);
    return first < ranks ? -1 : 0;
}
