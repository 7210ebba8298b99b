/*
 * cmd_receipt_io.c — loading a receipt for the CLI (a path or "-" for stdin)
 * and printing diagnostics in one shape for every command.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_receipt_io.h"

const char *cli_receipt_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Reads a stream into a heap buffer, stopping one byte past `cap` so an oversized
 * stream still reaches the library's size limit (and its message) without the
 * CLI holding more than that in memory. */
static int read_stream(FILE *in, char **out, size_t *out_len, size_t cap)
{
    size_t len = 0, alloc = 64 * 1024;
    char *buf = malloc(alloc);
    *out = NULL;
    *out_len = 0;
    if (!buf)
        return MCPP_ENOMEM;
    for (;;) {
        if (len == alloc) {
            if (alloc > cap)
                break;
            size_t next = alloc * 2;
            if (next > cap + 1)
                next = cap + 1;
            if (next <= alloc)
                break;
            char *grown = realloc(buf, next);
            if (!grown) {
                free(buf);
                return MCPP_ENOMEM;
            }
            buf = grown;
            alloc = next;
        }
        size_t n = fread(buf + len, 1, alloc - len, in);
        len += n;
        if (n == 0) {
            if (ferror(in)) {
                free(buf);
                return MCPP_EIO;
            }
            break;
        }
    }
    *out = buf;
    *out_len = len;
    return MCPP_OK;
}

int cli_receipt_load(mcpp_receipt **out, mcpp_report **report_out, const char *path,
                     const mcpp_limits *limits)
{
    mcpp_limits defaults;
    if (!limits) {
        mcpp_limits_default(&defaults);
        limits = &defaults;
    }
    mcpp_error_clear();
    int is_stdin = strcmp(path, "-") == 0;
    struct stat st;
    /* Pipes and character devices (`validate <(gen_receipt)`) are read as a
     * bounded stream like stdin; the library's file loader takes regular
     * files only, so it can size them before reading. */
    if (!is_stdin && (stat(path, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))))
        return mcpp_receipt_load_file(out, report_out, path, limits);

    FILE *in = is_stdin ? stdin : fopen(path, "rb");
    const char *name = cli_receipt_display_name(path);
    char *buf = NULL;
    size_t len = 0;
    int rc = in ? read_stream(in, &buf, &len, limits->max_input_bytes) : MCPP_EIO;
    int saved_errno = errno;
    if (in && !is_stdin)
        fclose(in);
    if (rc != MCPP_OK) {
        *out = NULL;
        if (report_out)
            *report_out = NULL;
        /* Nothing in the library failed, so say it here; cli_print_report
         * skips the empty last error. */
        fprintf(stderr, "%s: %s [%s]\n", name, rc == MCPP_ENOMEM ? "out of memory" : strerror(saved_errno),
                rc == MCPP_ENOMEM ? "memory" : "io");
        return rc;
    }
    rc = mcpp_receipt_load_buffer(out, report_out, buf, len, MCPP_FORMAT_AUTO, name, limits);
    free(buf);
    return rc;
}

/* True when `message` already starts with the location the library formats
 * ("FILE:" or "FIELD:"), so it is printed as is and never doubled. */
static int message_has_prefix(const char *message, const char *prefix)
{
    size_t n = prefix ? strlen(prefix) : 0;
    return n && strncmp(message, prefix, n) == 0 && message[n] == ':';
}

static void print_location(FILE *to, const char *file, int line, int column)
{
    cli_fputs_safe(to, file, 0);
    if (line > 0) {
        fprintf(to, ":%d", line);
        if (column > 0)
            fprintf(to, ":%d", column);
    }
    fputs(": ", to);
}

static void print_line(FILE *to, int severity, const char *kind, const char *message,
                       const char *file, const char *field, int line, int column)
{
    if (!message)
        message = "";
    if (message_has_prefix(message, file)) {
        cli_fputs_safe(to, message, 0);
    } else {
        if (file && *file)
            print_location(to, file, line, column);
        if (field && *field && !message_has_prefix(message, field)) {
            cli_fputs_safe(to, field, 0);
            fputs(": ", to);
        }
        cli_fputs_safe(to, message, 0);
    }
    if (severity == MCPP_SEVERITY_WARNING)
        fprintf(to, " [warning: %s]\n", kind && *kind ? kind : "other");
    else
        fprintf(to, " [%s]\n", kind && *kind ? kind : "error");
}

void cli_print_diagnostic(FILE *to, const mcpp_diagnostic *d, const char *fallback_file)
{
    const char *file = d->file && *d->file ? d->file : fallback_file;
    print_line(to, d->severity, d->kind, d->message, file, d->field, d->line, d->column);
}

size_t cli_print_report(FILE *to, const mcpp_report *report, int load_status, int only,
                        const char *fallback_file)
{
    size_t printed = 0, n = mcpp_report_count(report);
    for (size_t i = 0; i < n; i++) {
        const mcpp_diagnostic *d = mcpp_report_at(report, i);
        if (!d || (only >= 0 && (int)d->severity != only))
            continue;
        cli_print_diagnostic(to, d, fallback_file);
        printed++;
    }
    if (load_status != MCPP_OK && mcpp_report_error_count(report) == 0 &&
        (only < 0 || only == MCPP_SEVERITY_ERROR)) {
        const mcpp_error *e = mcpp_error_last();
        if (e->code == MCPP_OK)
            return printed; /* the CLI itself failed and has said why */
        const char *message = e->message && *e->message ? e->message : mcpp_status_name(load_status);
        const char *file = e->file && *e->file ? e->file : fallback_file;
        print_line(to, MCPP_SEVERITY_ERROR, e->kind, message, file, e->field, e->line, e->column);
        printed++;
    }
    return printed;
}
