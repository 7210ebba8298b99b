/*
 * cmd_store.c — `mcpp-receipts store`: init, add, ls/query, export, rm and
 * check on a receipt store (store.h), plus the loader behind --store of the
 * analysis commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_receipt_io.h"
#include "cmd_store.h"
#include "mcpp_receipts.h"

static const char STORE_HELP[] =
    "usage: mcpp-receipts store init DB\n"
    "       mcpp-receipts store add DB PATH... [--keep-going]   (PATH: file, directory, - for JSON lines on stdin)\n"
    "       mcpp-receipts store ls|query DB [FILTERS] [--format text|json]\n"
    "       mcpp-receipts store export DB [FILTERS] [--format json|jsonl|yaml]\n"
    "       mcpp-receipts store rm DB ID --reason TEXT\n"
    "       mcpp-receipts store removed DB\n"
    "       mcpp-receipts store check DB [--repair]\n\n"
    "FILTERS: --lane SELECTOR (lane key, short key or KEY=VALUE terms, as for claim)\n"
    "         --where COLUMN=VALUE,... (id, tool, git_commit (prefix), name, lane_label, metric)\n"
    "         --since TIME --until TIME (created_at: RFC 3339, or a date, month or year for all\n"
    "         of it: --until 2026-11-30 keeps that day), --limit N [--newest]\n"
    "         --from-commit C --to-commit C (the created_at range those commits' runs span)\n\n"
    "DB is a SQLite file, or a PostgreSQL database as a libpq URL (postgresql://USER@HOST/DBNAME):\n"
    "one store many writers share; every command that takes a store (--store, --history) takes it.\n"
    "A receipt's id is its identity: adding the same receipt again changes nothing; the same\n"
    "id with other content is refused and the whole add is undone. One add is one transaction.\n"
    "An add stores no fast-loading image: the first read of a row makes it (ls, query, --store);\n"
    "nor its lanes' summaries: the first frontier --store after it reads its rows and saves them.\n"
    "check re-derives every row's columns and image and the lane summaries from the receipts'\n"
    "bodies (the truth) and names each difference; --repair rewrites them from the bodies.\n"
    "exit codes: 0 ok, 3 invalid input or a damaged store, 4 internal error\n";

typedef struct store_args {
    const char *db;
    char **positional; /* the arguments after DB that no option took (into argv) */
    int n_positional;
    mcpp_store_query query;
    const char *from_commit, *to_commit, *format, *reason, *limit_text;
    char since_buf[64], until_buf[64]; /* created_at bounds resolved from commits */
    int keep_going, repair;
} store_args;

static int fail(int rc)
{
    cli_print_last_error();
    return cli_exit_for_status(rc);
}

/* Options that take a value, and where each goes. */
static const char **option_slot(store_args *a, const char *name)
{
    if (strcmp(name, "--lane") == 0) return &a->query.lane;
    if (strcmp(name, "--where") == 0) return &a->query.where;
    if (strcmp(name, "--since") == 0) return &a->query.since;
    if (strcmp(name, "--until") == 0) return &a->query.until;
    if (strcmp(name, "--from-commit") == 0) return &a->from_commit;
    if (strcmp(name, "--to-commit") == 0) return &a->to_commit;
    if (strcmp(name, "--format") == 0) return &a->format;
    if (strcmp(name, "--reason") == 0) return &a->reason;
    if (strcmp(name, "--limit") == 0) return &a->limit_text;
    return NULL;
}

/* Fills *a from argv; a->positional is allocated (the caller frees it). */
static int parse_args(store_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    if (!(a->positional = calloc((size_t)argc, sizeof *a->positional))) return CLI_EXIT_INTERNAL;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--keep-going") == 0) a->keep_going = 1;
        else if (strcmp(arg, "--repair") == 0) a->repair = 1;
        else if (strcmp(arg, "--newest") == 0) a->query.newest = 1;
        else if (strncmp(arg, "--", 2) == 0) {
            const char **slot = option_slot(a, arg);
            if (!slot)
                return cli_usage_error("store", STORE_HELP, "unknown option '%s'", arg);
            if (i + 1 >= argc)
                return cli_usage_error("store", STORE_HELP, "%s needs a value", arg);
            *slot = argv[++i];
        } else if (!a->db) {
            a->db = arg;
        } else {
            a->positional[a->n_positional++] = argv[i];
        }
    }
    if (a->limit_text) {
        char *end = NULL;
        long long n = strtoll(a->limit_text, &end, 10);
        if (!end || *end || n < 1)
            return cli_usage_error("store", STORE_HELP, "--limit '%s' is not a positive integer", a->limit_text);
        a->query.limit = (size_t)n;
    }
    if (!a->db)
        return cli_usage_error("store", STORE_HELP, "%s needs DB: a SQLite file or a postgresql:// URL", argv[1]);
    return 0;
}

static int open_store(mcpp_store **out, const char *db, unsigned flags)
{
    int rc = mcpp_store_open(out, db, flags);
    return rc ? fail(rc) : 0;
}

/* Closes the store, warning when an image was refused on the way (its
 * receipt was read from its body, so the answer stands; the file is damaged). */
static void close_store(mcpp_store *store)
{
    size_t refused = mcpp_store_images_refused(store);
    if (refused)
        fprintf(stderr,
                "mcpp-receipts: warning: %zu stored image%s failed validation and %s read from %s bod%s instead "
                "(run 'mcpp-receipts store check' to see which, 'store check --repair' to rewrite them)\n",
                refused, refused == 1 ? "" : "s", refused == 1 ? "was" : "were", refused == 1 ? "its" : "their",
                refused == 1 ? "y" : "ies");
    mcpp_store_close(store);
}

int cli_store_load(mcpp_receipt_set **out, const char *db, const char *where)
{
    *out = NULL;
    mcpp_store *store = NULL;
    int ex = open_store(&store, db, MCPP_STORE_READ_ONLY);
    if (ex) return ex;
    mcpp_store_query q = {NULL, where, NULL, NULL, 0, 0};
    int rc = mcpp_store_query_set(out, store, &q);
    close_store(store);
    return rc ? fail(rc) : 0;
}

/* Hands each queried receipt to the history set (which owns it from then). */
static int into_set(void *ctx, mcpp_receipt *receipt)
{
    return mcpp_receipt_set_add(ctx, receipt);
}

int cli_store_lane_history(mcpp_receipt_set **out, const char *db, const mcpp_receipt *const *receipts, size_t n,
                           size_t runs)
{
    *out = NULL;
    mcpp_store *store = NULL;
    int ex = open_store(&store, db, MCPP_STORE_READ_ONLY);
    if (ex) return ex;
    int rc = mcpp_receipt_set_new(out);
    char **seen = calloc(n ? n : 1, sizeof *seen);
    size_t n_seen = 0;
    if (!seen) rc = MCPP_ENOMEM;
    for (size_t i = 0; rc == MCPP_OK && i < n; i++) {
        char *key = NULL, short_key[64];
        if ((rc = mcpp_lane_key(&key, NULL, receipts[i])) != MCPP_OK) break;
        mcpp_lane_key_short(short_key, sizeof short_key, key);
        mcpp_free(key);
        size_t k = 0;
        while (k < n_seen && strcmp(seen[k], short_key) != 0) k++;
        if (k < n_seen) continue; /* this lane's history is in already */
        if (!(seen[n_seen] = strdup(short_key))) {
            rc = MCPP_ENOMEM;
            break;
        }
        n_seen++;
        mcpp_store_query q = {short_key, NULL, NULL, NULL, runs, 1};
        rc = mcpp_store_query_each(store, &q, into_set, *out);
    }
    for (size_t k = 0; k < n_seen; k++) free(seen[k]);
    free(seen);
    mcpp_store_close(store);
    if (rc) {
        mcpp_receipt_set_free(*out);
        *out = NULL;
        return fail(rc);
    }
    return 0;
}

int cli_store_frontier(mcpp_frontier **out, const char *db, const mcpp_policy *policy)
{
    *out = NULL;
    mcpp_store *store = NULL;
    if (mcpp_store_open(&store, db, 0) != MCPP_OK) {
        mcpp_error_clear(); /* not writable here: read it as it is */
        int ex = open_store(&store, db, MCPP_STORE_READ_ONLY);
        if (ex) return ex;
    }
    int rc = mcpp_store_frontier(out, store, policy);
    close_store(store);
    return rc ? fail(rc) : 0;
}

/* ---- init, add -------------------------------------------------------------------- */

static int cmd_init(store_args *a)
{
    mcpp_store *store = NULL;
    int ex = open_store(&store, a->db, MCPP_STORE_CREATE);
    if (ex) return ex;
    printf("store %s ready (schema version %d)\n", a->db, mcpp_store_schema_version(store));
    mcpp_store_close(store);
    return 0;
}

/* The next line of `in` into *line (grown as needed, never past `limit` + 1
 * bytes; NUL bytes kept, for the loader to refuse): its length, -1 at the end
 * of input, -2 when the line is longer than `limit` (reading stops there:
 * nothing past the limit is read), -3 when out of memory. */
static long long read_line_bounded(char **line, size_t *cap, FILE *in, size_t limit)
{
    size_t len = 0;
    int c = EOF;
    while ((c = getc_unlocked(in)) != EOF) {
        if (len + 2 > *cap) {
            size_t next = *cap ? 2 * *cap : 64 * 1024;
            if (next > limit + 2) next = limit + 2;
            char *grown = next > *cap ? realloc(*line, next) : NULL;
            if (!grown) return next > *cap ? -3 : -2;
            *line = grown;
            *cap = next;
        }
        (*line)[len++] = (char)c;
        if (len > limit) return -2;
        if (c == '\n') break;
    }
    if (len == 0 && c == EOF) return -1;
    (*line)[len] = '\0';
    return (long long)len;
}

/* JSON lines on stdin, one receipt per non-empty line, named <stdin>:LINE;
 * a line over the input limit (16 MiB, as for a file) stops the reading. */
static int read_jsonl(mcpp_receipt_set *set, int *bad)
{
    char *line = NULL;
    size_t cap = 0, number = 0;
    long long len;
    mcpp_limits limits;
    mcpp_limits_default(&limits);
    while ((len = read_line_bounded(&line, &cap, stdin, limits.max_input_bytes)) >= 0 || len == -2) {
        number++;
        if (len == -2) {
            fprintf(stderr, "mcpp-receipts: <stdin>:%zu: the line is longer than the %zu MiB input limit; "
                            "stopped reading standard input there\n", number, limits.max_input_bytes >> 20);
            (*bad)++;
            break;
        }
        if (len == 0 || strspn(line, " \t\r\n") == (size_t)len) continue;
        char name[64];
        snprintf(name, sizeof name, "<stdin>:%zu", number);
        mcpp_receipt *r = NULL;
        int rc = mcpp_receipt_load_buffer(&r, NULL, line, (size_t)len, MCPP_FORMAT_JSON, name, NULL);
        if (rc == MCPP_OK) rc = mcpp_receipt_set_add(set, r);
        if (rc == MCPP_ENOMEM) break;
        if (rc) {
            cli_print_last_error();
            (*bad)++;
        }
    }
    if (len == -3) {
        fputs("mcpp-receipts: <stdin>: out of memory reading a line\n", stderr);
        (*bad)++;
    }
    free(line);
    return 0;
}

static int collect(mcpp_receipt_set *set, const store_args *a, int *bad)
{
    for (int i = 0; i < a->n_positional; i++) {
        if (strcmp(a->positional[i], "-") == 0) {
            read_jsonl(set, bad);
            continue;
        }
        size_t before = mcpp_receipt_set_failure_count(set);
        int rc = mcpp_receipt_set_add_path(set, a->positional[i], NULL);
        if (rc == MCPP_ENOMEM) return CLI_EXIT_INTERNAL;
        if (rc) {
            cli_print_last_error();
            (*bad)++;
        }
        for (size_t k = before; k < mcpp_receipt_set_failure_count(set); k++, (*bad)++) {
            fputs("mcpp-receipts: ", stderr);
            cli_fputs_safe(stderr, mcpp_receipt_set_failure_message(set, k), 1);
            fputc('\n', stderr);
        }
    }
    return 0;
}

static int cmd_add(store_args *a)
{
    if (!a->n_positional) {
        fputs("mcpp-receipts store add: give at least one PATH (or - for JSON lines on stdin)\n", stderr);
        return CLI_EXIT_INVALID;
    }
    mcpp_receipt_set *set = NULL;
    mcpp_store *store = NULL;
    int bad = 0, ex = mcpp_receipt_set_new(&set) ? CLI_EXIT_INTERNAL : 0;
    if (!ex) ex = collect(set, a, &bad);
    if (!ex && bad && !a->keep_going) {
        fprintf(stderr, "mcpp-receipts: %d input%s failed to load; nothing was added (--keep-going adds the rest)\n",
                bad, bad == 1 ? "" : "s");
        ex = CLI_EXIT_INVALID;
    }
    if (!ex) ex = open_store(&store, a->db, MCPP_STORE_CREATE);
    mcpp_store_add_result res;
    if (!ex) {
        int rc = mcpp_store_add(&res, store, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set));
        if (rc) ex = fail(rc);
        else printf("added %zu, unchanged %zu, skipped %zu removed earlier%s\n", res.added, res.unchanged,
                    res.skipped_removed, bad ? " (some inputs failed: see above)" : "");
        if (!ex && bad) ex = CLI_EXIT_INVALID;
    }
    mcpp_store_close(store);
    mcpp_receipt_set_free(set);
    return ex;
}

/* ---- ls, export --------------------------------------------------------------------- */

static const char *string_or_dash(const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, path, &v) != MCPP_OK || (v.type != MCPP_TYPE_STRING && v.type != MCPP_TYPE_ENUM))
        return "-";
    return v.string;
}

/* Sets *bound to the earliest (or latest) created_at of the commit's runs. */
static int commit_bound(mcpp_store *store, const char *commit, int latest, char *buf, size_t cap, const char **bound)
{
    char where[256];
    snprintf(where, sizeof where, "git_commit=%s", commit);
    mcpp_store_query q = {NULL, where, NULL, NULL, 1, latest};
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_store_query_set(&set, store, &q);
    if (rc) return fail(rc);
    int ex = 0;
    if (mcpp_receipt_set_count(set) == 0) {
        fprintf(stderr, "mcpp-receipts store: no stored run has commit '%s'\n", commit);
        ex = CLI_EXIT_INVALID;
    } else {
        snprintf(buf, cap, "%s", string_or_dash(mcpp_receipt_set_at(set, 0), "created_at"));
        *bound = buf;
    }
    mcpp_receipt_set_free(set);
    return ex;
}

/* --from-commit / --to-commit become the created_at range their runs span. */
static int resolve_commits(mcpp_store *store, store_args *a)
{
    int ex = 0;
    if (a->from_commit)
        ex = commit_bound(store, a->from_commit, 0, a->since_buf, sizeof a->since_buf, &a->query.since);
    if (!ex && a->to_commit)
        ex = commit_bound(store, a->to_commit, 1, a->until_buf, sizeof a->until_buf, &a->query.until);
    return ex;
}

static int select_receipts(mcpp_receipt_set **out, mcpp_store *store, store_args *a)
{
    int ex = resolve_commits(store, a);
    if (ex) return ex;
    int rc = mcpp_store_query_set(out, store, &a->query);
    return rc ? fail(rc) : 0;
}

/* A receipt string for a terminal column: escaped, padded to `width` and cut
 * at `cut` characters (0: never). */
static void print_column(const char *s, int width, int cut)
{
    char *shown = NULL;
    if (mcpp_output_escape(&shown, s, MCPP_OUTPUT_TEXT) != MCPP_OK) {
        printf("%-*s", width, "(out of memory)");
        return;
    }
    printf("%-*.*s", width, cut ? cut : (int)strlen(shown), shown);
    mcpp_free(shown);
}

static void print_row(const mcpp_receipt *r, const char *metric, int json)
{
    char *key = NULL;
    char short_key[24] = "-";
    if (mcpp_lane_key(&key, NULL, r) == MCPP_OK) mcpp_lane_key_short(short_key, sizeof short_key, key);
    mcpp_value v = MCPP_VALUE_INIT;
    mcpp_metric m;
    char value[40] = "-";
    /* "primary" (the default gate metric) and metric names are read as metrics */
    const char *name = strcmp(metric, "primary") == 0 ? mcpp_receipt_metric_primary(r) : metric;
    if (name && mcpp_receipt_metric_find(&m, r, name) == MCPP_OK)
        snprintf(value, sizeof value, "%.10g", m.value);
    else if (mcpp_receipt_get(r, metric, &v) == MCPP_OK && (v.type == MCPP_TYPE_DOUBLE || v.type == MCPP_TYPE_INT))
        snprintf(value, sizeof value, "%.10g", v.type == MCPP_TYPE_INT ? (double)v.integer : v.number);
    if (json) {
        printf("{\"id\": ");
        cli_fputs_json(stdout, mcpp_receipt_id(r));
        printf(", \"created_at\": ");
        cli_fputs_json(stdout, string_or_dash(r, "created_at"));
        printf(", \"git_commit\": ");
        cli_fputs_json(stdout, string_or_dash(r, "source.git_commit"));
        printf(", \"short_key\": \"%s\", \"metric\": ", short_key);
        cli_fputs_json(stdout, metric);
        printf(", \"value\": %s}\n", strcmp(value, "-") ? value : "null");
    } else {
        print_column(string_or_dash(r, "created_at"), 22, 0);
        putchar(' ');
        print_column(string_or_dash(r, "source.git_commit"), 12, 12);
        printf(" %-18s %14s  ", short_key, value);
        cli_fputs_safe(stdout, mcpp_receipt_id(r), 0);
        fputc('\n', stdout);
    }
    mcpp_free(key);
}

static int cmd_ls(store_args *a)
{
    int json = a->format && strcmp(a->format, "json") == 0;
    if (a->format && !json && strcmp(a->format, "text") != 0) {
        fprintf(stderr, "mcpp-receipts store ls: --format text|json\n");
        return CLI_EXIT_INVALID;
    }
    mcpp_store *store = NULL;
    mcpp_receipt_set *set = NULL;
    mcpp_policy *policy = NULL;
    int ex = open_store(&store, a->db, MCPP_STORE_READ_ONLY);
    if (!ex) ex = select_receipts(&set, store, a);
    if (!ex && mcpp_policy_default(&policy)) ex = fail(mcpp_error_last()->code);
    if (!ex) {
        const char *metric = mcpp_policy_gate(policy)->metric;
        if (!json) printf("%-22s %-12s %-18s %14s  %s\n", "created_at", "git_commit", "lane", "value", "id");
        for (size_t i = 0; i < mcpp_receipt_set_count(set); i++) print_row(mcpp_receipt_set_at(set, i), metric, json);
        if (!json) printf("%zu receipt%s (value: %s)\n", mcpp_receipt_set_count(set),
                          mcpp_receipt_set_count(set) == 1 ? "" : "s", metric);
    }
    mcpp_policy_free(policy);
    mcpp_receipt_set_free(set);
    close_store(store);
    return ex;
}

static int cmd_export(store_args *a)
{
    mcpp_store *store = NULL;
    char *text = NULL;
    int ex = open_store(&store, a->db, MCPP_STORE_READ_ONLY);
    if (!ex) ex = resolve_commits(store, a);
    if (!ex) {
        int rc = mcpp_store_export(&text, store, &a->query, a->format ? a->format : "jsonl");
        if (rc) ex = fail(rc);
        else fputs(text, stdout);
    }
    mcpp_free(text);
    mcpp_store_close(store);
    return ex;
}

/* ---- rm, removed, check -------------------------------------------------------------- */

static int cmd_rm(store_args *a)
{
    if (a->n_positional != 1 || !a->reason || !*a->reason) {
        return cli_usage_error("store", STORE_HELP, "rm needs DB, one ID and --reason TEXT (kept with its tombstone)");
    }
    mcpp_store *store = NULL;
    int ex = open_store(&store, a->db, 0);
    if (!ex) {
        int rc = mcpp_store_remove(store, a->positional[0], a->reason);
        if (rc) ex = fail(rc);
        else { /* the id and reason as given: escaped, a terminal control sequence is shown, not run */
            fputs("removed ", stdout);
            cli_fputs_safe(stdout, a->positional[0], 0);
            fputs(" (tombstone kept: ", stdout);
            cli_fputs_safe(stdout, a->reason, 0);
            fputs(")\n", stdout);
        }
    }
    mcpp_store_close(store);
    return ex;
}

static int cmd_removed(store_args *a)
{
    mcpp_store *store = NULL;
    char *text = NULL;
    int ex = open_store(&store, a->db, MCPP_STORE_READ_ONLY);
    if (!ex) {
        int rc = mcpp_store_removed_render(&text, store);
        if (rc) ex = fail(rc);
        else fputs(text, stdout);
    }
    mcpp_free(text);
    mcpp_store_close(store);
    return ex;
}

static int cmd_check(store_args *a)
{
    mcpp_store *store = NULL;
    char *report = NULL;
    int ex = open_store(&store, a->db, a->repair ? 0 : MCPP_STORE_READ_ONLY);
    if (ex) return ex;
    int rc = a->repair ? mcpp_store_repair(&report, store) : mcpp_store_check(&report, store);
    size_t live = 0, removed = 0;
    if (report) fputs(report, stdout); /* its values are escaped by the library */
    if (rc) ex = fail(rc);
    else if (mcpp_store_count(&live, &removed, store) == MCPP_OK)
        printf("%zu receipts, %zu tombstones, schema version %d\n", live, removed, mcpp_store_schema_version(store));
    mcpp_free(report);
    mcpp_store_close(store);
    return ex;
}

int cli_store(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("store", STORE_HELP,
                               "name a subcommand: init, add, ls, query, export, rm, removed or check");
    if (cli_wants_help(argc, argv)) {
        fputs(STORE_HELP, stdout);
        return CLI_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*run)(store_args *a);
    } SUBCOMMANDS[] = {{"init", cmd_init},   {"add", cmd_add}, {"ls", cmd_ls},           {"query", cmd_ls},
                       {"export", cmd_export}, {"rm", cmd_rm},   {"removed", cmd_removed}, {"check", cmd_check}};
    size_t k = 0, n = sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0];
    while (k < n && strcmp(argv[1], SUBCOMMANDS[k].name) != 0) k++;
    if (k == n) {
        return cli_usage_error("store", STORE_HELP, "unknown subcommand '%s'", argv[1]);
    }
    store_args a;
    int ex = parse_args(&a, argc, argv);
    if (!ex) ex = SUBCOMMANDS[k].run(&a);
    free(a.positional);
    return ex;
}
