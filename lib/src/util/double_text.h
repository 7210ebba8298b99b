/*
 * double_text.h — the shortest of %.15g, %.16g, %.17g that reads back to a
 * double, without printf, for the doubles most measured values are
 * (mcpp_format_double's middle path, util/strbuf.c).
 */
#ifndef MCPP_UTIL_DOUBLE_TEXT_H
#define MCPP_UTIL_DOUBLE_TEXT_H

#include <stddef.h>

/* Writes into out (at least 32 bytes) the first of %.15g, %.16g, %.17g of v
 * that strtod reads back to v, byte for byte as glibc prints it, and returns
 * its length; 0 (nothing written) when |v| is outside [1e-11, 1e15) or the
 * compiler has no 128-bit integers: printf must decide. */
size_t mcpp_double_text_exact(char *out, double v);

#endif
