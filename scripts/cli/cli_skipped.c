/*
 * cli_skipped.c — `--skip-invalid` for the commands that read many receipts
 * (frontier, gate, claim): without it a file that does not load makes the
 * command exit 3; with it the command decides on the rest. Either way every
 * file that was skipped is listed in the report itself, in its format, so a
 * reader of the report (not only of stderr) sees what the verdict is not
 * based on.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts/receipt_set.h"

int cli_take_skip_invalid(int *argc, char **argv)
{
    int kept = 1, found = 0;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--skip-invalid") == 0) found = 1;
        else argv[kept++] = argv[i];
    }
    *argc = kept;
    argv[kept] = NULL;
    return found;
}

size_t cli_skipped_count(const mcpp_receipt_set *const *sets, size_t n_sets)
{
    size_t n = 0;
    for (size_t s = 0; s < n_sets; s++) n += mcpp_receipt_set_failure_count(sets[s]);
    return n;
}

static void skipped_json(FILE *to, const mcpp_receipt_set *const *sets, size_t n_sets)
{
    fputs(", \"skipped\": [", to);
    int first = 1;
    for (size_t s = 0; s < n_sets; s++) {
        for (size_t i = 0; i < mcpp_receipt_set_failure_count(sets[s]); i++) {
            fputs(first ? "{\"path\": " : ", {\"path\": ", to);
            cli_json_string(to, mcpp_receipt_set_failure_path(sets[s], i));
            fputs(", \"error\": ", to);
            cli_json_string(to, mcpp_receipt_set_failure_message(sets[s], i));
            fputc('}', to);
            first = 0;
        }
    }
    fputc(']', to);
}

/* The list of skipped files as it follows a text or markdown report (nothing
 * for JSON, whose object holds it). */
static void print_skipped_after(FILE *to, mcpp_output_format format, const mcpp_receipt_set *const *sets, size_t n_sets)
{
    size_t total = cli_skipped_count(sets, n_sets);
    if (!total || format == MCPP_OUTPUT_JSON)
        return;
    fprintf(to,
            format == MCPP_OUTPUT_MARKDOWN ? "\n**%zu file%s skipped** (not part of this report):\n\n"
                                           : "\nskipped   %zu file%s (not part of this report):\n",
            total, total == 1 ? "" : "s");
    for (size_t s = 0; s < n_sets; s++)
        for (size_t i = 0; i < mcpp_receipt_set_failure_count(sets[s]); i++)
            fprintf(to, format == MCPP_OUTPUT_MARKDOWN ? "- `%s`: %s\n" : "          %s: %s\n",
                    mcpp_receipt_set_failure_path(sets[s], i), mcpp_receipt_set_failure_message(sets[s], i));
}

void cli_print_with_skipped(FILE *to, const char *text, mcpp_output_format format, const mcpp_receipt_set *const *sets,
                      size_t n_sets)
{
    if (format == MCPP_OUTPUT_JSON && cli_skipped_count(sets, n_sets)) {
        /* The report is one JSON object: the list goes in as its last member. */
        const char *close = strrchr(text, '}');
        if (!close) {
            fputs(text, to);
            return;
        }
        fwrite(text, 1, (size_t)(close - text), to);
        skipped_json(to, sets, n_sets);
        fputs(close, to);
        return;
    }
    fputs(text, to);
    print_skipped_after(to, format, sets, n_sets);
}

int cli_render_with_skipped(char **out, const char *text, mcpp_output_format format,
                            const mcpp_receipt_set *const *sets, size_t n_sets)
{
    size_t len = 0;
    *out = NULL;
    FILE *mem = open_memstream(out, &len);
    if (!mem) return MCPP_ENOMEM;
    cli_print_with_skipped(mem, text, format, sets, n_sets);
    if (fclose(mem) != 0) {
        free(*out);
        *out = NULL;
        return MCPP_ENOMEM;
    }
    return MCPP_OK;
}
