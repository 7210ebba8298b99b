/*
 * c_locale.h — number text that does not depend on the process locale.
 *
 * A host program may call setlocale(LC_ALL, "de_DE.UTF-8") (Python's
 * locale.setlocale, Lua's os.setlocale); printf and strtod then write and read
 * "2,6045". Receipts, reports and lane keys must read the same everywhere, so
 * every number the library formats or parses goes through these, which run in
 * the "C" locale for the calling thread only (uselocale) and restore the
 * caller's locale afterwards. docs/output-safety.md has the rules.
 */
#ifndef MCPP_UTIL_C_LOCALE_H
#define MCPP_UTIL_C_LOCALE_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define MCPP_C_PRINTF_LIKE(fmt_index) __attribute__((format(printf, fmt_index, fmt_index + 1)))
#else
#define MCPP_C_PRINTF_LIKE(fmt_index)
#endif

/* The calling thread's locale before mcpp_c_locale_enter; pass it back to
 * mcpp_c_locale_leave. Opaque (a locale_t). */
typedef struct mcpp_c_locale_scope {
    void *saved;
} mcpp_c_locale_scope;

/* Switches the calling thread to the "C" locale until mcpp_c_locale_leave:
 * around code that formats or parses numbers through the C library (the Lua
 * interpreter running a policy). Scopes nest. */
void mcpp_c_locale_enter(mcpp_c_locale_scope *scope);
void mcpp_c_locale_leave(mcpp_c_locale_scope *scope);

/* snprintf / vsnprintf in the "C" locale. */
int mcpp_snprintf_c(char *buf, size_t cap, const char *fmt, ...) MCPP_C_PRINTF_LIKE(3);
int mcpp_vsnprintf_c(char *buf, size_t cap, const char *fmt, va_list ap);

/* strtod in the "C" locale: "2.6045" reads as 2.6045 whatever the host set. */
double mcpp_strtod_c(const char *text, char **end);

#endif /* MCPP_UTIL_C_LOCALE_H */
