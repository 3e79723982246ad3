/* Numbers in files are read and written in the C locale, whatever locale the program that
 * links the library has set: setlocale(LC_ALL, "") in a German locale (as Qt and GTK programs
 * do at start) made strtod stop at the '.' of every shipped file ("66.9: expected a number")
 * and printf write "1,5e-11" into the files fit writes. */
#define _GNU_SOURCE /* strtod_l */
#include <ctype.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

#include "util/util.h"

static locale_t c_locale;
static pthread_once_t made = PTHREAD_ONCE_INIT;

static void make(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t c(void)
{
    pthread_once(&made, make);
    return c_locale;
}

double sm_strtod(const char *text, char **end)
{
    /* decimal only: strtod also reads C's hexadecimal floats, and a description's 0x1p-1 was
     * taken as 0.5 where every file and document writes decimal */
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        *end = (char *)text;
        return 0;
    }
    locale_t l = c();
    return l ? strtod_l(text, end, l) : strtod(text, end); /* out of memory: the global one */
}

sm_locale sm_locale_c_begin(void)
{
    locale_t l = c();
    return l ? uselocale(l) : (locale_t)0;
}

void sm_locale_c_end(sm_locale before)
{
    if (before)
        uselocale(before);
}
