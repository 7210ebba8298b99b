/*
 * c_locale.c — the "C" locale for number text, per thread (see c_locale.h).
 */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/c_locale.h"

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

/* One "C" locale object for the process, made once and never freed: glibc
 * hands out a static object for "C" without allocating. */
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

void mcpp_c_locale_enter(mcpp_c_locale_scope *scope)
{
    pthread_once(&c_locale_once, make_c_locale);
    /* Without the object (out of memory on a libc that allocates) the thread
     * keeps its locale: numbers are then as the host's C library writes them. */
    scope->saved = c_locale != (locale_t)0 ? (void *)uselocale(c_locale) : NULL;
}

void mcpp_c_locale_leave(mcpp_c_locale_scope *scope)
{
    if (scope->saved)
        uselocale((locale_t)scope->saved);
    scope->saved = NULL;
}

int mcpp_vsnprintf_c(char *buf, size_t cap, const char *fmt, va_list ap)
{
    mcpp_c_locale_scope scope;
    mcpp_c_locale_enter(&scope);
    int n = vsnprintf(buf, cap, fmt, ap);
    mcpp_c_locale_leave(&scope);
    return n;
}

int mcpp_snprintf_c(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = mcpp_vsnprintf_c(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

double mcpp_strtod_c(const char *text, char **end)
{
    mcpp_c_locale_scope scope;
    mcpp_c_locale_enter(&scope);
    double value = strtod(text, end);
    mcpp_c_locale_leave(&scope);
    return value;
}
