/* cmd_policy.c — placeholder until its issue lands; replaced by the owning work. */
#include <stdio.h>
#include "cli.h"
int cli_policy(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'policy' is not built yet\n"); return CLI_EXIT_INTERNAL; }
