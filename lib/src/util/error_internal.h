/*
 * error_internal.h — setting the thread-local last error from inside the library.
 */
#ifndef MCPP_ERROR_INTERNAL_H
#define MCPP_ERROR_INTERNAL_H

#include "mcpp_receipts/common.h"

/*
 * Records a failure as the calling thread's last error and returns `code`, so
 * a failing path reads `return mcpp_error_set(...)`. Any of file/field may be
 * NULL and line/column 0 when unknown. The message becomes
 * "FILE:LINE:COL: FIELD: TEXT" with the unknown parts left out.
 */
int mcpp_error_set(int code, const char *kind, const char *file, const char *field, int line,
                   int column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* Shorthand for allocation failures. */
int mcpp_error_nomem(void);

/* Formats "FILE:LINE:COL: FIELD: TEXT" into buf (always NUL-terminated). */
void mcpp_error_format_location(char *buf, size_t cap, const char *file, const char *field,
                                int line, int column, const char *text);

#endif /* MCPP_ERROR_INTERNAL_H */
