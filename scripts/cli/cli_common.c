/*
 * cli_common.c — helpers every command shares: error printing and exit codes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

int cli_exit_for_write(int status)
{
    return status == MCPP_EARG ? CLI_EXIT_INVALID : status == MCPP_OK ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

void cli_print_last_error(void)
{
    const mcpp_error *e = mcpp_error_last();
    fputs("mcpp-receipts: ", stderr);
    cli_fputs_safe(stderr, e->message && *e->message ? e->message : mcpp_status_name(e->code), 1);
    fputc('\n', stderr);
}

/* Writes `s` escaped for `format`; when even that fails (out of memory),
 * a marker that says so rather than the raw text. */
static void put_escaped(FILE *to, const char *s, mcpp_output_format format)
{
    char *text = NULL;
    if (mcpp_output_escape(&text, s, format) == MCPP_OK)
        fputs(text, to);
    else
        fputs(format == MCPP_OUTPUT_JSON ? "\"(out of memory)\"" : "(out of memory)", to);
    mcpp_free(text);
}

void cli_fputs_safe(FILE *to, const char *s, int keep_newlines)
{
    if (!s)
        return;
    if (!keep_newlines || !strchr(s, '\n')) {
        put_escaped(to, s, MCPP_OUTPUT_TEXT);
        return;
    }
    char *copy = strdup(s);
    if (!copy) {
        fputs("(out of memory)", to);
        return;
    }
    for (char *line = copy, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        put_escaped(to, line, MCPP_OUTPUT_TEXT);
        if (next)
            fputc('\n', to);
    }
    free(copy);
}

void cli_fputs_json(FILE *to, const char *s)
{
    if (!s)
        fputs("null", to);
    else
        put_escaped(to, s, MCPP_OUTPUT_JSON);
}

int cli_write_stdout(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

int cli_usage_error(const char *command, const char *help, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mcpp-receipts %s: ", command);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const char *end = strstr(help, "\n\n");
    size_t n = end ? (size_t)(end - help) + 1 : strlen(help);
    fprintf(stderr, "\n%.*sRun 'mcpp-receipts %s --help' for more.\n", (int)n, help, command);
    return CLI_EXIT_INVALID;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}
