/* sm_atomic_open's why: which failure it was, as a code, for a caller (-o's output_to) that
 * words the refusal of a file the user may not write apart from the others. The code, not the
 * message's text: a message quotes the path, and a path may hold the refusal's own words. A
 * read-only file refuses root nothing, so as root the refusal is asked for by uid 65534 in a
 * child (setuid), and left unchecked with a note where the child cannot switch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

static char dir[] = "/tmp/sm_atomic_open.XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        check_fatal(__FILE__, __LINE__, "cannot write %s", path);
}

/* NOT_WRITABLE for a 0444 file, and its message; 0 where so, 1 where not */
static int refused_read_only(const char *path)
{
    char tmp[4200];
    sm_status st;
    sm_atomic_why why = SM_ATOMIC_OPENED;
    FILE *f = sm_atomic_open(path, tmp, sizeof tmp, &why, &st);
    char want[4200];
    snprintf(want, sizeof want, "%s: not writable (Permission denied)", path);
    int ok = !f && why == SM_ATOMIC_NOT_WRITABLE && !strcmp(st.msg, want);
    if (!ok)
        fprintf(stderr, "read-only %s: why %d, \"%s\"\n", path, (int)why, f ? "" : st.msg);
    if (f)
        fclose(f);
    return !ok;
}

int main(void)
{
    if (!mkdtemp(dir))
        check_fatal(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
    char path[4096], tmp[4200], want[4200];
    sm_status st;
    sm_atomic_why why;

    /* a new file: opened beside its name, committed over it */
    snprintf(path, sizeof path, "%s/new.txt", dir);
    why = SM_ATOMIC_FAILED;
    FILE *f = sm_atomic_open(path, tmp, sizeof tmp, &why, &st);
    CHECK(f != NULL);
    CHECK_EQ(why, SM_ATOMIC_OPENED);
    CHECK(tmp[0] != '\0');
    if (f)
        CHECK_EQ(sm_atomic_commit(f, tmp, path, &st), 0);

    /* an existing file the user may write: replaced, opened */
    why = SM_ATOMIC_FAILED;
    f = sm_atomic_open(path, tmp, sizeof tmp, &why, &st);
    CHECK(f != NULL);
    CHECK_EQ(why, SM_ATOMIC_OPENED);
    if (f)
        CHECK_EQ(sm_atomic_commit(f, tmp, path, &st), 0);

    /* not a regular file: written in place, no temporary */
    why = SM_ATOMIC_FAILED;
    f = sm_atomic_open("/dev/null", tmp, sizeof tmp, &why, &st);
    CHECK(f != NULL);
    CHECK_EQ(why, SM_ATOMIC_OPENED);
    CHECK_EQ(tmp[0], '\0');
    if (f)
        fclose(f);

    /* why NULL: not asked, the file opened all the same */
    f = sm_atomic_open(path, tmp, sizeof tmp, NULL, &st);
    CHECK(f != NULL);
    if (f)
        CHECK_EQ(sm_atomic_commit(f, tmp, path, &st), 0);

    /* a folder that does not exist, its name worded as the refusal: FAILED, whatever the
     * message's text holds */
    snprintf(path, sizeof path, "%s/missing: not writable (x/out.txt", dir);
    why = SM_ATOMIC_OPENED;
    CHECK(sm_atomic_open(path, tmp, sizeof tmp, &why, &st) == NULL);
    CHECK_EQ(why, SM_ATOMIC_FAILED);
    snprintf(want, sizeof want, "%s: cannot write: No such file or directory", path);
    CHECK_STR_EQ(st.msg, want);

    /* a NULL argument: FAILED */
    why = SM_ATOMIC_OPENED;
    CHECK(sm_atomic_open(NULL, tmp, sizeof tmp, &why, &st) == NULL);
    CHECK_EQ(why, SM_ATOMIC_FAILED);
    CHECK_STR_EQ(st.msg, "sm_atomic_open: path is NULL");

    /* a file of mode 0444: NOT_WRITABLE, and left as it was */
    snprintf(path, sizeof path, "%s/read_only.txt", dir);
    write_file(path, "precious\n");
    if (chmod(path, 0444) || chmod(dir, 0755))
        check_fatal(__FILE__, __LINE__, "chmod: %s", strerror(errno));
    if (geteuid() != 0) {
        CHECK_EQ(refused_read_only(path), 0);
    } else {
        pid_t pid = fork();
        if (pid == 0)
            _exit(setgid(65534) || setuid(65534) ? 77 : refused_read_only(path));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
            check_fatal(__FILE__, __LINE__, "the child as uid 65534 did not finish");
        if (WEXITSTATUS(status) == 77)
            fprintf(stderr, "note: cannot switch to uid 65534; the refusal of a read-only file "
                            "is not checked\n");
        else
            CHECK_EQ(WEXITSTATUS(status), 0);
    }
    FILE *back = fopen(path, "r");
    char text[32] = "";
    CHECK(back && fgets(text, sizeof text, back));
    CHECK_STR_EQ(text, "precious\n");
    if (back)
        fclose(back);

    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: %s left behind\n", dir);
    return check_summary();
}
