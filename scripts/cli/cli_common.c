/*
 * cli_common.c — helpers every command shares: error printing and exit codes.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"

int cli_exit_for_status(int status)
{
    switch (status) {
    case MCPP_OK:
        return CLI_EXIT_OK;
    case MCPP_EINVALID:
    case MCPP_ELIMIT:
    case MCPP_EIO:
    case MCPP_EARG:
    case MCPP_ENOTFOUND:
    case MCPP_EPOLICY:
    case MCPP_EUNSUPPORTED:
        return CLI_EXIT_INVALID;
    default:
        return CLI_EXIT_INTERNAL;
    }
}

void cli_print_last_error(void)
{
    const mcpp_error *e = mcpp_error_last();
    fprintf(stderr, "mcpp-receipts: %s\n", e->message && *e->message ? e->message : mcpp_status_name(e->code));
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}
