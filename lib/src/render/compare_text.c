/*
 * compare_text.c — markdown table cells for the renderers. (The canonical
 * text of field values lives in receipt/fields.c.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "util/error_internal.h"

void mcpp_sb_md_cell(mcpp_strbuf *b, const char *s)
{
    if (!s) return;
    for (const char *p = s; *p; p++) {
        if (*p == '|') mcpp_sb_puts(b, "\\|");
        else if (*p == '\n' || *p == '\r') mcpp_sb_putc(b, ' ');
        else mcpp_sb_putc(b, *p);
    }
}
