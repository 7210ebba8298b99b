/*
 * rfc3339.c — RFC 3339 time text, checked without a parse: the receipt
 * validator's created_at and window ends, and a store query's since/until.
 */
#include <string.h>

#include "util/rfc3339.h"

/* isdigit() accepts exactly '0'..'9' in every locale, but each call goes
 * through the locale's table; a range test is the same answer inline. */
static int is_digit(char c) { return (unsigned char)(c - '0') < 10; }

static int digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!is_digit(s[i]))
            return 0;
    return 1;
}

static int num2(const char *s) { return (s[0] - '0') * 10 + (s[1] - '0'); }

/* RFC 3339 date-time: 2026-11-22T01:02:03(.123)?(Z|+01:00). */
int mcpp_is_rfc3339(const char *s)
{
    if (strlen(s) < 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2) ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) ||
        s[16] != ':' || !digits(s + 17, 2))
        return 0;
    int month = num2(s + 5), day = num2(s + 8), hour = num2(s + 11), minute = num2(s + 14), second = num2(s + 17);
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return 0;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return 0;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'Z' || *p == 'z')
        return p[1] == '\0';
    if ((*p == '+' || *p == '-') && digits(p + 1, 2) && p[3] == ':' && digits(p + 4, 2))
        return p[6] == '\0' && num2(p + 1) <= 23 && num2(p + 4) <= 59;
    return 0;
}

int mcpp_is_rfc3339_date_prefix(const char *s)
{
    size_t n = strlen(s);
    if ((n != 4 && n != 7 && n != 10) || !digits(s, 4))
        return 0;
    if (n >= 7 && (s[4] != '-' || !digits(s + 5, 2) || num2(s + 5) < 1 || num2(s + 5) > 12))
        return 0;
    return n < 10 || (s[7] == '-' && digits(s + 8, 2) && num2(s + 8) >= 1 && num2(s + 8) <= 31);
}
