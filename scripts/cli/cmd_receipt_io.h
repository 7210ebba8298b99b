/*
 * cmd_receipt_io.h — what the receipt commands (validate, show, convert) share:
 * loading one input (a path, or "-" for stdin), printing diagnostics the same
 * way everywhere. The text of `show` is the library's mcpp_receipt_render().
 */
#ifndef MCPP_CLI_CMD_RECEIPT_IO_H
#define MCPP_CLI_CMD_RECEIPT_IO_H

#include <stdio.h>

#include "mcpp_receipts.h"

/*
 * Loads and validates one receipt from `path`, from stdin when path is "-"
 * (named "<stdin>" in messages), or from a pipe or character device such as
 * <(command). Streams are read up to limits->max_input_bytes + 1 bytes, so a
 * huge stream is refused by the library's size limit, not by running out of
 * memory. Same contract as mcpp_receipt_load_file.
 */
int cli_receipt_load(mcpp_receipt **out, mcpp_report **report_out, const char *path,
                     const mcpp_limits *limits);

/* The name a path is reported under ("<stdin>" for "-"). */
const char *cli_receipt_display_name(const char *path);

/*
 * Prints one diagnostic as "FILE:LINE:COL: FIELD: MESSAGE [KIND]" (warnings
 * as "... [warning: KIND]"), the location parts the format gives, nothing else.
 */
void cli_print_diagnostic(FILE *to, const mcpp_diagnostic *d, const char *fallback_file);

/*
 * Prints every diagnostic of `report` with severity `only` (or all when only
 * is -1). When a load failed and the report holds no error, prints
 * mcpp_error_last() in the same shape so a failure is never silent.
 * Returns the number of lines printed.
 */
size_t cli_print_report(FILE *to, const mcpp_report *report, int load_status, int only,
                        const char *fallback_file);


#endif /* MCPP_CLI_CMD_RECEIPT_IO_H */
