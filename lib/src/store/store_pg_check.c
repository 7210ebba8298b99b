/*
 * store_pg_check.c — `store check` and `--repair` of a PostgreSQL store
 * (store_pg.h), by the rule of the SQLite check (store_check.c): the bodies
 * are the truth, everything else is re-derived from them and compared.
 *
 *   1. every row's body loads, with the row's id (`body ID: ...`);
 *   2. every row's columns are what its body gives (`row ID: column X is
 *      '...', its body gives '...'`);
 *   3. each tombstone's id is not live too, and its body loads as that id
 *      (`tombstone ID: ...`, the SQLite check's verdict);
 *   4. the lane summaries, when marked valid, are those the bodies make
 *      (`lane summary SHORT: missing | differs ...`).
 *
 * The server keeps its own pages and indexes consistent (there is no
 * PRAGMA integrity_check to run: amcheck is an extension a store may lack).
 * A repair rewrites the columns that differ and rebuilds the summaries in one
 * write transaction, then checks again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/policy.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "policy/policy_internal.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

enum { SHOWN_VALUE = 60 };

typedef struct pg_checker {
    mcpp_store *s;
    mcpp_strbuf report;
    size_t problems, repaired;
    int repair;
    const char *metric;
} pg_checker;

static void problem(pg_checker *c, const char *what, const char *id)
{
    c->problems++;
    mcpp_sb_printf(&c->report, "%s ", what);
    mcpp_sb_terminal(&c->report, id ? id : "(null)");
    mcpp_sb_puts(&c->report, ": ");
}

static void shown(pg_checker *c, const char *text)
{
    mcpp_strbuf esc;
    mcpp_sb_init_heap(&esc, 64);
    mcpp_sb_terminal(&esc, text ? text : "(none)");
    size_t cut = esc.len > SHOWN_VALUE ? SHOWN_VALUE : esc.len;
    while (cut < esc.len && cut && ((unsigned char)esc.data[cut] & 0xC0) == 0x80)
        cut--;
    if (cut)
        mcpp_sb_put(&c->report, esc.data, cut);
    if (cut < esc.len)
        mcpp_sb_puts(&c->report, "...");
    mcpp_sb_free(&esc);
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static const char *const COLUMNS[] = {"created_at", "git_commit", "tool",       "name",
                                      "lane_key",   "lane_short", "lane_label", "metric"};

/* Rewrites the row's columns from its body (a repair). */
static int rewrite_columns(pg_checker *c, const mcpp_store_row *want)
{
    char value[40];
    if (want->has_value)
        snprintf(value, sizeof value, "%.17g", want->value);
    const char *params[10] = {
        want->id,       want->created_at, want->git_commit, want->tool,   want->name,
        want->lane_key, want->lane_short, want->lane_label, want->metric, want->has_value ? value : NULL};
    c->repaired++;
    return mcpp_pg_run(NULL, c->s->pg,
                       "UPDATE receipts SET created_at = $2, git_commit = $3, tool = $4, name = $5, lane_key = $6,"
                       " lane_short = $7, lane_label = $8, metric = $9, metric_value = $10::double precision"
                       " WHERE id = $1",
                       10, params, "repairing a row");
}

/* One row (columns 0..8 as COLUMNS after id, 9 metric_value, 10 body). */
static int check_row(pg_checker *c, const mcpp_pg_rows *rows, size_t i)
{
    const char *id = mcpp_pg_value(rows, i, 0), *body = mcpp_pg_value(rows, i, 10);
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_buffer(&r, NULL, body ? body : "", body ? mcpp_pg_length(rows, i, 10) : 0,
                                      MCPP_FORMAT_JSON, c->s->path, NULL);
    if (rc == MCPP_ENOMEM)
        return rc;
    if (rc || strcmp(mcpp_receipt_id(r), id) != 0) {
        problem(c, "body", id);
        mcpp_sb_puts(&c->report, rc ? "does not load (" : "holds another receipt (");
        shown(c, rc ? mcpp_error_last()->message : mcpp_receipt_id(r));
        mcpp_sb_puts(&c->report, ")\n");
        mcpp_error_clear();
        mcpp_receipt_free(r);
        return MCPP_OK;
    }
    mcpp_store_row want;
    rc = mcpp_store_row_fill(&want, r, c->metric, NULL, NULL, NULL, 0);
    int same = 1;
    for (int k = 0; !rc && k < 8; k++) {
        const char *stored = mcpp_pg_value(rows, i, 1 + k);
        const char *wanted[] = {want.created_at, want.git_commit, want.tool,       want.name,
                                want.lane_key,   want.lane_short, want.lane_label, want.metric};
        if (same_text(stored, wanted[k]))
            continue;
        if (same)
            problem(c, "row", id);
        else
            mcpp_sb_puts(&c->report, "; ");
        mcpp_sb_printf(&c->report, "column %s is '", COLUMNS[k]);
        shown(c, stored);
        mcpp_sb_puts(&c->report, "', its body gives '");
        shown(c, wanted[k]);
        mcpp_sb_putc(&c->report, '\'');
        same = 0;
    }
    const char *stored_value = mcpp_pg_value(rows, i, 9);
    double v = stored_value ? strtod(stored_value, NULL) : 0;
    if (!rc && ((stored_value != NULL) != want.has_value ||
                (stored_value && v != want.value && !(isnan(v) && isnan(want.value))))) {
        if (same)
            problem(c, "row", id);
        else
            mcpp_sb_puts(&c->report, "; ");
        mcpp_sb_puts(&c->report, "column metric_value differs from its body");
        same = 0;
    }
    if (!rc && !same)
        mcpp_sb_putc(&c->report, '\n');
    if (!rc && !same && c->repair)
        rc = rewrite_columns(c, &want);
    mcpp_store_row_clear(&want);
    mcpp_receipt_free(r);
    return rc;
}

static int check_batch(void *ctx, const mcpp_pg_rows *rows)
{
    pg_checker *c = ctx;
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < mcpp_pg_rows_count(rows); i++)
        rc = check_row(c, rows, i);
    return rc;
}

static void summary_problem(pg_checker *c, const char *key, const char *what)
{
    char short_key[24] = "?";
    if (key)
        mcpp_lane_key_short(short_key, sizeof short_key, key);
    c->problems++;
    mcpp_sb_printf(&c->report, "lane summary %s: %s\n", short_key, what);
}

/* Each tombstone, by the SQLite check's rule (mcpp_store_tombstone_verdict):
 * its id is not live too, and its body loads as the receipt it names. */
static int check_tombstones(void *ctx, const mcpp_pg_rows *rows)
{
    pg_checker *c = ctx;
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < mcpp_pg_rows_count(rows); i++) {
        const char *id = mcpp_pg_value(rows, i, 0), *body = mcpp_pg_value(rows, i, 1), *why = NULL;
        const char *live = mcpp_pg_value(rows, i, 2);
        rc = mcpp_store_tombstone_verdict(&why, c->s, id, live && strcmp(live, "t") == 0, body,
                                          mcpp_pg_length(rows, i, 1));
        if (!rc && why) {
            problem(c, "tombstone", id);
            mcpp_sb_puts(&c->report, why);
            mcpp_sb_putc(&c->report, '\n');
        }
    }
    return rc;
}

/* The stored summaries against those the bodies make (when marked valid). */
static int check_summaries(pg_checker *c, const mcpp_policy *p)
{
    int valid = 0, rc = mcpp_store_pg_summaries_valid(&valid, c->s);
    if (rc || (!valid && !c->repair))
        return rc; /* stale ones are rebuilt before any use */
    mcpp_lane_summary **made = NULL;
    size_t n = 0;
    if ((rc = mcpp_store_pg_summaries_from_bodies(&made, &n, c->s, p)) == MCPP_EINVALID) {
        mcpp_error_clear();
        mcpp_sb_puts(&c->report, "lane summaries: not compared (a body does not load)\n");
        return MCPP_OK;
    }
    mcpp_pg_rows *rows = NULL;
    if (!rc && valid)
        rc = mcpp_pg_run(&rows, c->s->pg, "SELECT lane_key, summary FROM lane_summaries", 0, NULL,
                         "checking the lane summaries");
    size_t stored = rc ? 0 : mcpp_pg_rows_count(rows);
    for (size_t i = 0; !rc && valid && i < n; i++) {
        const char *key = mcpp_lane_summary_key(made[i]);
        size_t k = 0;
        while (k < stored && strcmp(mcpp_pg_value(rows, k, 0), key) != 0)
            k++;
        char *text = NULL;
        if (k == stored)
            summary_problem(c, key, "missing");
        else if (!(rc = mcpp_lane_summary_serialize(&text, made[i])) && strcmp(text, mcpp_pg_value(rows, k, 1)) != 0)
            summary_problem(c, key, "differs from the summary its receipts make");
        mcpp_free(text);
    }
    if (!rc && valid && stored > n)
        summary_problem(c, NULL, "a stored summary has no receipt of its lane");
    mcpp_pg_rows_free(rows);
    if (!rc && c->repair)
        rc = mcpp_store_pg_save_summaries(c->s, made, n);
    mcpp_lane_summaries_free(made, n);
    return rc;
}

static int run(pg_checker *c)
{
    const mcpp_policy *p = mcpp_policy_or_default(NULL);
    if (!p)
        return mcpp_error_nomem();
    c->metric = mcpp_policy_gate(p)->metric;
    int rc = c->repair ? mcpp_store_pg_begin_write(c->s)
                       : mcpp_pg_run(NULL, c->s->pg, "BEGIN READ ONLY", 0, NULL, "checking");
    if (rc)
        return rc;
    /* the store's own columns, not those a read-only open derived into a
     * temporary view (store_pg_lane_keys.c): its schema before pg_temp */
    rc = mcpp_pg_run(NULL, c->s->pg,
                     "SELECT set_config('search_path', quote_ident(current_schema()) || ', pg_temp', true)", 0, NULL,
                     "checking");
    if (!rc)
        rc = mcpp_pg_each_batch(
            c->s->pg,
            "SELECT id, created_at, git_commit, tool, name, lane_key, lane_short, lane_label, metric,"
            " metric_value, body FROM receipts ORDER BY id",
            0, NULL, "checking the rows", check_batch, c);
    if (!rc)
        rc = mcpp_pg_each_batch(c->s->pg,
                                "SELECT t.id, t.body, EXISTS (SELECT 1 FROM receipts r WHERE r.id = t.id)"
                                " FROM tombstones t ORDER BY t.id",
                                0, NULL, "checking tombstones", check_tombstones, c);
    if (!rc)
        rc = check_summaries(c, p);
    return mcpp_store_pg_end(c->s, rc);
}

int mcpp_store_pg_check(char **out, mcpp_store *s, int repair)
{
    pg_checker c = {s, {0}, 0, 0, repair, NULL};
    mcpp_sb_init(&c.report, NULL, 0);
    int rc = repair && s->read_only ? mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                                                    "the store is open read-only: a repair writes")
                                    : run(&c);
    if (!rc && repair) { /* report what was rewritten, then a fresh check */
        mcpp_strbuf head = c.report;
        char *again = NULL;
        int again_rc = mcpp_store_pg_check(&again, s, 0);
        if (again_rc && !again) {
            mcpp_sb_free(&head);
            return again_rc;
        }
        mcpp_sb_init(&c.report, NULL, 0);
        mcpp_sb_printf(&c.report, "repaired: %zu row%s rewritten from their bodies; lane summaries rebuilt\n",
                       c.repaired, c.repaired == 1 ? "" : "s");
        mcpp_sb_puts(&c.report, again);
        mcpp_free(again);
        mcpp_sb_free(&head);
        rc = mcpp_store_take_text(out, &c.report);
        return rc ? rc : again_rc;
    }
    if (rc) {
        mcpp_sb_free(&c.report);
        return rc;
    }
    if (!c.problems)
        mcpp_sb_puts(&c.report, "ok\n");
    rc = mcpp_store_take_text(out, &c.report);
    if (rc || !c.problems)
        return rc;
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, NULL, 0, 0,
                         "the store is damaged (%zu problem%s; see the check report)", c.problems,
                         c.problems == 1 ? "" : "s");
}
