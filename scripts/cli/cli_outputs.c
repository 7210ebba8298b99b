/*
 * cli_outputs.c — `--output FORMAT=PATH` for the commands whose report has
 * several formats (gate, compare, frontier): one run writes each file, so a
 * CI job gets JSON, markdown and JUnit from the same decision. Everything is
 * rendered before anything is written, and each file is written atomically.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int take_one(cli_outputs *outs, const char *spec, const char *const *allowed)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        fprintf(stderr, "mcpp-receipts: --output wants FORMAT=PATH, got '%s'\n", spec);
        return CLI_EXIT_INVALID;
    }
    size_t n = (size_t)(eq - spec);
    for (int k = 0; allowed[k]; k++) {
        if (strlen(allowed[k]) != n || strncmp(allowed[k], spec, n) != 0) continue;
        if (outs->n == CLI_MAX_OUTPUTS) {
            fprintf(stderr, "mcpp-receipts: at most %d --output options\n", CLI_MAX_OUTPUTS);
            return CLI_EXIT_INVALID;
        }
        for (int j = 0; j < outs->n; j++) /* the later file would silently replace the earlier */
            if (strcmp(outs->items[j].path, eq + 1) == 0) {
                fprintf(stderr, "mcpp-receipts: --output names '%s' twice (%s and %s): give each format its own file\n",
                        eq + 1, outs->items[j].format, allowed[k]);
                return CLI_EXIT_INVALID;
            }
        outs->items[outs->n].format = allowed[k];
        outs->items[outs->n++].path = eq + 1;
        return 0;
    }
    fprintf(stderr, "mcpp-receipts: --output format '%.*s' is not one of", (int)n, spec);
    for (int k = 0; allowed[k]; k++) fprintf(stderr, " %s", allowed[k]);
    fputc('\n', stderr);
    return CLI_EXIT_INVALID;
}

int cli_take_outputs(int *argc, char **argv, cli_outputs *outs, const char *const *allowed)
{
    int kept = 1;
    outs->n = 0;
    for (int i = 1; i < *argc; i++) {
        const char *spec = NULL;
        if (strcmp(argv[i], "--output") == 0) {
            if (i + 1 >= *argc) {
                fputs("mcpp-receipts: --output needs FORMAT=PATH\n", stderr);
                return CLI_EXIT_INVALID;
            }
            spec = argv[++i];
        } else if (strncmp(argv[i], "--output=", 9) == 0) {
            spec = argv[i] + 9;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        int ex = take_one(outs, spec, allowed);
        if (ex) return ex;
    }
    *argc = kept;
    argv[kept] = NULL;
    return 0;
}

/* One output streamed to its file: the command's stream of one format. */
typedef struct streamed_output {
    cli_stream_fn stream;
    const char *format;
    const void *ctx;
} streamed_output;

static int produce_output(void *c, mcpp_write_fn write, void *wctx)
{
    const streamed_output *o = c;
    return o->stream(o->format, o->ctx, write, wctx);
}

int cli_write_outputs(const cli_outputs *outs, cli_render_fn render, cli_streams_fn streams, cli_stream_fn stream,
                      const void *ctx)
{
    char *texts[CLI_MAX_OUTPUTS] = {NULL};
    int streamed[CLI_MAX_OUTPUTS] = {0};
    int ex = 0;
    for (int k = 0; k < outs->n && !ex; k++) {
        const cli_output *o = &outs->items[k];
        streamed[k] = stream && strcmp(o->path, "-") != 0 && streams(o->format, ctx);
        if (streamed[k])
            continue;
        int rc = render(&texts[k], o->format, ctx);
        if (rc != MCPP_OK) {
            cli_print_last_error();
            ex = cli_exit_for_status(rc);
        }
    }
    for (int k = 0; k < outs->n && !ex; k++) {
        const char *path = outs->items[k].path;
        int rc = MCPP_OK;
        if (streamed[k]) {
            streamed_output o = {stream, outs->items[k].format, ctx};
            rc = mcpp_text_write_file_from(path, produce_output, &o);
        } else if (strcmp(path, "-") == 0) {
            fputs(texts[k], stdout);
        } else {
            rc = mcpp_text_write_file(path, texts[k], strlen(texts[k]));
        }
        if (rc != MCPP_OK) {
            cli_print_last_error();
            ex = cli_exit_for_write(rc);
        }
    }
    for (int k = 0; k < outs->n; k++) mcpp_free(texts[k]);
    return ex;
}
