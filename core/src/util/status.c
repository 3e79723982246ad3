/* Errors travel up as values: a one-line message in an sm_status and a -1 return. */
#include <stdarg.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

int sm_fail(sm_status *st, const char *fmt, ...)
{
    if (st) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int sm_null_arg(sm_status *st, const char *function, const char *arg)
{
    return sm_fail(st, "%s: %s is NULL", function, arg);
}
