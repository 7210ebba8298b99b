/*
 * kernel_error.h — how the kernels and the step runner report a failure.
 *
 * The kernels are a client of the core library: they reach it only through
 * its public headers. A failure becomes the thread's last error through the
 * public mcpp_error_report (so mcpp_error_last() reads the same for a kernel
 * failure as for a library one), with an mcpp_error_kind, never a free string.
 */
#ifndef MCPP_KERNEL_ERROR_H
#define MCPP_KERNEL_ERROR_H

#include "mcpp_receipts/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MCPP_KERNEL_PRINTF_LIKE(i) __attribute__((format(printf, i, i + 1)))
#else
#define MCPP_KERNEL_PRINTF_LIKE(i)
#endif

/* Records the failure and returns `code`; file/field may be NULL and line 0
 * when unknown. */
int mcpp_kernel_error(int code, mcpp_error_kind kind, const char *file, const char *field, int line,
                      const char *fmt, ...) MCPP_KERNEL_PRINTF_LIKE(6);

/* An allocation failed: MCPP_ENOMEM. */
int mcpp_kernel_error_nomem(void);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_KERNEL_ERROR_H */
