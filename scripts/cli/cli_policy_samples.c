/*
 * cli_policy_samples.c — `policy check` runs every custom rule of a policy
 * on sample receipt pairs, under the same bounds as any command, so a rule
 * that hangs, errors, reads a misspelt field or blows its limits is refused
 * by the check instead of at compare time. The samples are the shipped
 * example receipts compiled into the CLI (so an installed CLI needs no data
 * files), or the receipts given with --sample; every ordered pair of them is
 * compared, twice: with the policy and with a second load of it.
 */
#include <stdio.h>
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

/* The comparison of one pair as JSON (*out, mcpp_free), or NULL with the
 * error printed naming the pair. */
static int compare_pair(char **out, const mcpp_policy *policy, const mcpp_receipt *a, const mcpp_receipt *b)
{
    mcpp_comparison *c = NULL;
    *out = NULL;
    int rc = mcpp_compare(&c, policy, a, b);
    if (rc == MCPP_OK)
        rc = mcpp_comparison_render(out, c, MCPP_OUTPUT_JSON);
    mcpp_comparison_free(c);
    if (rc != MCPP_OK) {
        cli_print_last_error();
        fputs("mcpp-receipts: the policy's rules failed on the sample pair ", stderr);
        cli_fputs_safe(stderr, mcpp_receipt_id(a), 0);
        fputs(" / ", stderr);
        cli_fputs_safe(stderr, mcpp_receipt_id(b), 0);
        fputc('\n', stderr);
    }
    return rc;
}

/* Each pair is compared with the policy and with a second load of it (`again`,
 * a Lua state of its own, so another string hash seed and other addresses):
 * a verdict or reason that differs depends on something outside the receipts
 * (issue 48: an order of keys that changed between processes). */
int cli_policy_run_samples(const mcpp_policy *policy, const mcpp_policy *again, const char *path, char **sample_paths,
                           int n_paths)
{
    if (mcpp_policy_rule_count(policy) == 0)
        return CLI_EXIT_OK;
    mcpp_receipt *samples[MAX_SAMPLES];
    size_t n = 0;
    int ex = load_samples(samples, &n, sample_paths, n_paths);
    for (size_t a = 0; ex == CLI_EXIT_OK && a < n; a++)
        for (size_t b = 0; ex == CLI_EXIT_OK && b < n; b++) {
            char *first = NULL, *second = NULL;
            int rc = compare_pair(&first, policy, samples[a], samples[b]);
            if (rc == MCPP_OK && again)
                rc = compare_pair(&second, again, samples[a], samples[b]);
            if (rc != MCPP_OK) {
                ex = cli_exit_for_status(rc);
            } else if (second && strcmp(first, second) != 0) {
                char message[512];
                snprintf(message, sizeof message,
                         "the policy's rules gave another answer on a second run of the sample pair %s / %s: a "
                         "verdict must depend only on the receipts (not on an order of keys, an address or a "
                         "count kept between calls)",
                         mcpp_receipt_id(samples[a]), mcpp_receipt_id(samples[b]));
                mcpp_error_report(MCPP_EPOLICY, MCPP_ERROR_KIND_POLICY, path, NULL, 0, 0, message);
                cli_print_last_error();
                ex = CLI_EXIT_INVALID;
            }
            mcpp_free(first);
            mcpp_free(second);
        }
    for (size_t i = 0; i < n; i++)
        mcpp_receipt_free(samples[i]);
    return ex;
}
