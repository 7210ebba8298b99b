/* cmd_receipt.c — placeholder until its issue lands; replaced by the owning work. */
#include <stdio.h>
#include "cli.h"
int cli_validate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'validate' is not built yet\n"); return CLI_EXIT_INTERNAL; }
int cli_show(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'show' is not built yet\n"); return CLI_EXIT_INTERNAL; }
int cli_convert(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'convert' is not built yet\n"); return CLI_EXIT_INTERNAL; }
