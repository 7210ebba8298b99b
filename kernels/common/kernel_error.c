/*
 * kernel_error.c — the kernels' error entry point (see kernel_error.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "kernel_error.h"

int mcpp_kernel_error(int code, mcpp_error_kind kind, const char *file, const char *field, int line,
                      const char *fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mcpp_error_report(code, kind, file, field, line, 0, text);
}

int mcpp_kernel_error_nomem(void)
{
    return mcpp_error_report(MCPP_ENOMEM, MCPP_ERROR_KIND_MEMORY, NULL, NULL, 0, 0, "out of memory");
}
