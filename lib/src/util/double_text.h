/*
 * double_text.h — doubles to decimal text and back without printf or strtod,
 * exactly, for the values most measurements are: the shortest of %.15g,
 * %.16g, %.17g that reads back (mcpp_format_double's middle path,
 * util/strbuf.c), and the double of a decimal of up to 19 digits (the direct
 * JSON reader's long numbers).
 */
#ifndef MCPP_UTIL_DOUBLE_TEXT_H
#define MCPP_UTIL_DOUBLE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Writes into out (at least 32 bytes) the first of %.15g, %.16g, %.17g of v
 * that strtod reads back to v, byte for byte as glibc prints it, and returns
 * its length; 0 (nothing written) when |v| is outside [1e-11, 1e15) or the
 * compiler has no 128-bit integers: printf must decide. */
size_t mcpp_double_text_exact(char *out, double v);

/* *out = the double nearest m * 10^e10 (halves to even): what strtod reads
 * from that decimal. Returns 1, or 0 (nothing written) when |e10| > 27 or
 * the compiler has no 128-bit integers: strtod must decide. */
int mcpp_decimal_to_double_exact(double *out, uint64_t m, int e10);

#endif
