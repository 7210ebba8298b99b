/* cmd_compare.c — placeholder until its issue lands; replaced by the owning work. */
#include <stdio.h>
#include "cli.h"
int cli_compare(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'compare' is not built yet\n"); return CLI_EXIT_INTERNAL; }
int cli_frontier(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'frontier' is not built yet\n"); return CLI_EXIT_INTERNAL; }
int cli_gate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'gate' is not built yet\n"); return CLI_EXIT_INTERNAL; }
int cli_claim(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mcpp-receipts: 'claim' is not built yet\n"); return CLI_EXIT_INTERNAL; }
