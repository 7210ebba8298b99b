/*
 * error_internal.h — setting the thread-local last error from inside the
 * library, and the libgit2-style check macros most failing paths use:
 *
 *     MCPP_CHECK_ARG(out && receipt, "mcpp_lane_key: NULL argument");
 *     MCPP_CHECK_ALLOC(copy = mcpp_strdup(name, NULL));
 *     return MCPP_ERROR_ARG("unknown output format '%s'", name);
 */
#ifndef MCPP_ERROR_INTERNAL_H
#define MCPP_ERROR_INTERNAL_H

#include "mcpp_receipts/common.h"

#if defined(__GNUC__)
#define MCPP_PRINTF_LIKE(fmt_index) __attribute__((format(printf, fmt_index, fmt_index + 1)))
#else
#define MCPP_PRINTF_LIKE(fmt_index)
#endif

/*
 * Records a failure as the calling thread's last error and returns `code`, so
 * a failing path reads `return mcpp_error_at(...)`. Any of file/field may be
 * NULL and line/column 0 when unknown. The message becomes
 * "FILE:LINE:COL: FIELD: TEXT" with the unknown parts left out.
 */
int mcpp_error_at(int code, mcpp_error_kind kind, const char *file, const char *field, int line,
                  int column, const char *fmt, ...) MCPP_PRINTF_LIKE(7);

/* The same without a location: most failures are about an argument. */
int mcpp_error_raise(int code, mcpp_error_kind kind, const char *fmt, ...) MCPP_PRINTF_LIKE(3);

/* The same with the kind as its name (the Lua engine and diagnostics from a
 * report carry kinds as text); NULL takes the kind from the code. */
int mcpp_error_set(int code, const char *kind, const char *file, const char *field, int line,
                   int column, const char *fmt, ...) MCPP_PRINTF_LIKE(7);

/* Shorthand for allocation failures. */
int mcpp_error_nomem(void);

/* The enum value of a kind name; MCPP_ERROR_KIND_NONE when unknown. */
mcpp_error_kind mcpp_error_kind_from_name(const char *name);

/* Formats "FILE:LINE:COL: FIELD: TEXT" into buf (always NUL-terminated). */
void mcpp_error_format_location(char *buf, size_t cap, const char *file, const char *field,
                                int line, int column, const char *text);

/* Bad argument: sets the last error (kind "argument") and evaluates to MCPP_EARG. */
#define MCPP_ERROR_ARG(...) mcpp_error_raise(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, __VA_ARGS__)

/* Returns MCPP_EARG with the message when `cond` does not hold. */
#define MCPP_CHECK_ARG(cond, ...)                                                                  \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return MCPP_ERROR_ARG(__VA_ARGS__);                                                    \
    } while (0)

/* Returns MCPP_ENOMEM (last error set) when `ptr` is NULL. */
#define MCPP_CHECK_ALLOC(ptr)                                                                      \
    do {                                                                                           \
        if (!(ptr))                                                                                \
            return mcpp_error_nomem();                                                             \
    } while (0)

#endif /* MCPP_ERROR_INTERNAL_H */
