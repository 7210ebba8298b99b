/*
 * rfc3339.h — the time text receipts hold (created_at, the measured window's
 * ends) and the bounds a store query takes on it (util/rfc3339.c).
 */
#ifndef MCPP_UTIL_RFC3339_H
#define MCPP_UTIL_RFC3339_H

/* 1 when s is an RFC 3339 date-time such as "2026-11-22T01:02:03.5Z". */
int mcpp_is_rfc3339(const char *s);

/* 1 when s is a date (2026-11-22), a month (2026-11) or a year (2026): the
 * start of RFC 3339 text at the end of one of its units. */
int mcpp_is_rfc3339_date_prefix(const char *s);

#endif
