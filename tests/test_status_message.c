/*
 * test_status_message: sm_fail's messages longer than an sm_status holds (SM_STATUS_LEN, 1024
 * bytes with the NUL) keep their end: "PATH:LINE: REASON" loses the middle of PATH, replaced by
 * "...", never the reason (snprintf alone cut the end, and a 1,200-character path left no
 * reason at all).
 */
#include <string.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

static char path[3001], second[1501];

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

int main(void)
{
    sm_status st;
    /* a short message is as written */
    sm_fail(&st, "%s:%d: %s", "net.ini", 5, "unknown parameter bogus");
    CHECK(!strcmp(st.msg, "net.ini:5: unknown parameter bogus"));

    /* path of 3,000 bytes, "/a/b/c..." cycling so that each part of it is told apart */
    for (int i = 0; i < 3000; i++)
        path[i] = i % 10 == 0 ? '/' : (char)('a' + i % 26);
    sm_fail(&st, "%s:%d: %s", path, 12, "unknown parameter bogus");
    /* the word "PATH:12:" is 3,004 bytes, the message 3,004 + 24 = 3,028; 1,023 fit, so
     * 3,028 - 1,023 + 3 = 2,008 bytes go for the "...": 3,004 - 2,008 = 996 kept, 498 of the
     * head (path[0, 498)) and 498 of the tail (path[2506, 3000) and ":12:") */
    char want[1024];
    snprintf(want, sizeof want, "%.498s...%s:12: unknown parameter bogus", path, path + 2506);
    CHECK_EQ(strlen(want), 1023);
    CHECK_MSG(!strcmp(st.msg, want), "got %.80s ... %s", st.msg,
              st.msg + (strlen(st.msg) > 80 ? strlen(st.msg) - 80 : 0));

    /* nested: the message itself an argument, with a path of its own in front */
    sm_status inner = st;
    sm_fail(&st, "%s: model %s: %s", path, "x", inner.msg);
    CHECK(strlen(st.msg) == 1023 && ends_with(st.msg, ":12: unknown parameter bogus"));
    CHECK(!strncmp(st.msg, path, 24)); /* at least 24 bytes of each side kept */
    sm_fail(&st, "outer: %s", st.msg); /* st->msg as an argument of its own sm_fail */
    CHECK(!strncmp(st.msg, "outer: ", 7) && ends_with(st.msg, ":12: unknown parameter bogus"));
    CHECK(strlen(st.msg) < 1024);

    /* two paths: both shortened where one is not enough, the reason whole */
    memcpy(second, path, 1500);
    sm_fail(&st, "cannot rename %.1500s to %s: %s", path, second, "Permission denied");
    CHECK(strlen(st.msg) == 1023 && ends_with(st.msg, ": Permission denied"));
    CHECK(!strncmp(st.msg, "cannot rename /bcdefghij", 24));

    /* UTF-8: a path of "é" (C3 A9) is cut between characters */
    char utf[2401];
    for (int i = 0; i < 2400; i += 2)
        utf[i] = (char)0xC3, utf[i + 1] = (char)0xA9;
    utf[2400] = '\0';
    sm_fail(&st, "%s: no such file", utf);
    int leads = 0, follows = 0;
    for (const char *p = st.msg; *p; p++) {
        leads += (unsigned char)*p == 0xC3;
        follows += (unsigned char)*p == 0xA9;
    }
    CHECK(leads == follows && leads > 0 && ends_with(st.msg, ": no such file"));
    const char *dots = strstr(st.msg, "...");
    CHECK(dots && (unsigned char)dots[3] == 0xC3 && (unsigned char)dots[-1] == 0xA9);

    /* no word long enough to shorten: the end is cut, and marked */
    char words[2000];
    for (int i = 0; i < 1999; i++)
        words[i] = i % 8 == 7 ? ' ' : 'w';
    words[1999] = '\0';
    sm_fail(&st, "%s", words);
    CHECK(strlen(st.msg) == 1023 && ends_with(st.msg, "..."));
    return check_summary();
}
