/*
 * cli_policy_samples.c — `policy check` runs every custom rule of a policy
 * on sample receipt pairs, under the same bounds as any command, so a rule
 * that hangs, errors, reads a misspelt field or blows its limits is refused
 * by the check instead of at compare time. The samples are the shipped
 * example receipts compiled into the CLI (so an installed CLI needs no data
 * files), or the receipts given with --sample; every ordered pair of them is
 * compared.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts/compare.h"
#include "policy_sample_receipts.h" /* generated: SAMPLE_RECEIPTS[] */

enum { MAX_SAMPLES = 32 };

static int load_samples(mcpp_receipt **out, size_t *n, char **paths, int n_paths)
{
    *n = 0;
    for (int i = 0; i < n_paths && *n < MAX_SAMPLES; i++) {
        if (mcpp_receipt_load_file(&out[*n], NULL, paths[i], NULL) != MCPP_OK) {
            cli_print_last_error();
            return CLI_EXIT_INVALID;
        }
        (*n)++;
    }
    for (size_t i = 0; n_paths == 0 && *n < MAX_SAMPLES && i < sizeof SAMPLE_RECEIPTS / sizeof SAMPLE_RECEIPTS[0];
         i++) {
        const char *text = (const char *)SAMPLE_RECEIPTS[i].bytes;
        if (mcpp_receipt_load_buffer(&out[*n], NULL, text, SAMPLE_RECEIPTS[i].len, MCPP_FORMAT_JSON,
                                     SAMPLE_RECEIPTS[i].name, NULL) != MCPP_OK) {
            cli_print_last_error();
            return CLI_EXIT_INTERNAL; /* the compiled-in samples are valid */
        }
        (*n)++;
    }
    return CLI_EXIT_OK;
}

int cli_policy_run_samples(const mcpp_policy *policy, char **sample_paths, int n_paths)
{
    if (mcpp_policy_rule_count(policy) == 0)
        return CLI_EXIT_OK;
    mcpp_receipt *samples[MAX_SAMPLES];
    size_t n = 0;
    int ex = load_samples(samples, &n, sample_paths, n_paths);
    for (size_t a = 0; ex == CLI_EXIT_OK && a < n; a++)
        for (size_t b = 0; ex == CLI_EXIT_OK && b < n; b++) {
            mcpp_verdict verdict;
            int rc = mcpp_compare_verdict(&verdict, policy, samples[a], samples[b]);
            if (rc != MCPP_OK) {
                cli_print_last_error();
                fputs("mcpp-receipts: the policy's rules failed on the sample pair ", stderr);
                cli_fputs_safe(stderr, mcpp_receipt_id(samples[a]), 0);
                fputs(" / ", stderr);
                cli_fputs_safe(stderr, mcpp_receipt_id(samples[b]), 0);
                fputc('\n', stderr);
                ex = cli_exit_for_status(rc);
            }
        }
    for (size_t i = 0; i < n; i++)
        mcpp_receipt_free(samples[i]);
    return ex;
}
