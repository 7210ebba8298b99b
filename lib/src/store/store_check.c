/*
 * store_check.c — `store check` and `store check --repair`.
 *
 * The body of each row is the receipt's truth; everything else in the file is
 * derived from the bodies when receipts are added and is only a cache: the
 * row's columns (lane key, created_at, metric value ... which queries filter
 * on), its image (receipt/image.h, which loading reads instead of parsing)
 * and the lane summaries (which `frontier --store` reads). A check therefore
 * re-derives every one of them from the bodies and reports each difference:
 *
 *   1. SQLite's own integrity check of every page and index (on failure the
 *      rest is not attempted: the rows cannot be trusted to read back);
 *   2. per row: the body loads, with the row's id; the columns are what the
 *      body gives; the image is accepted (image_check.c) and equal, field by
 *      field, to the body;
 *   3. each tombstone's id is not live too, and its body loads as that id;
 *   4. the lane summaries, when marked valid, are those the bodies make.
 *
 * A repair rewrites the columns and image of every row whose body loads, and
 * rebuilds the lane summaries, in one write transaction; a body that does not
 * load cannot be repaired here (remove it, or restore the file) and stays a
 * problem.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "receipt/fields.h"
#include "receipt/image.h"
#include "receipt/field_ids.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

#define SHOWN_FIELDS 3    /* differing fields named per image */
#define SHOWN_VALUE 60    /* bytes of a value shown in a difference */

typedef struct checker {
    mcpp_store *s;
    mcpp_strbuf *report;
    size_t problems;
    size_t foreign;  /* images of another library build (not damage: loaded from bodies) */
    size_t missing;  /* rows without an image */
    const char *metric;
    /* rowids whose columns or image a repair rewrites */
    sqlite3_int64 *stale;
    size_t n_stale, cap_stale;
} checker;

static int integrity(checker *c)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, c->s, "PRAGMA integrity_check", "checking integrity");
    if (rc) return rc;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") == 0) continue;
        mcpp_sb_puts(c->report, "integrity: ");
        mcpp_sb_terminal(c->report, line ? line : "(null)");
        mcpp_sb_putc(c->report, '\n');
        c->problems++;
    }
    if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(c->s, step, "checking integrity");
    sqlite3_finalize(st);
    return rc;
}

/* "WHAT ID: " at the start of a problem line. */
static void problem(checker *c, const char *what, const char *id)
{
    c->problems++;
    mcpp_sb_puts(c->report, what);
    mcpp_sb_putc(c->report, ' ');
    mcpp_sb_terminal(c->report, id ? id : "(null)");
    mcpp_sb_puts(c->report, ": ");
}

static int note_stale(checker *c, sqlite3_int64 rowid)
{
    MCPP_CHECK_ARRAY(c->stale, c->cap_stale, c->n_stale + 1, MCPP_ARRAY_MAX_ITEMS);
    c->stale[c->n_stale++] = rowid;
    return MCPP_OK;
}

/* A value for a difference line: escaped for the terminal, cut short. */
static void shown_value(mcpp_strbuf *out, const char *text)
{
    mcpp_strbuf esc;
    mcpp_sb_init_heap(&esc, 64);
    mcpp_sb_terminal(&esc, text ? text : "(none)");
    if (esc.len > SHOWN_VALUE) {
        size_t cut = SHOWN_VALUE;
        while (cut && ((unsigned char)esc.data[cut] & 0xC0) == 0x80) cut--; /* not inside a character */
        mcpp_sb_put(out, esc.data, cut);
        mcpp_sb_puts(out, "...");
    } else if (esc.len) {
        mcpp_sb_put(out, esc.data, esc.len);
    }
    mcpp_sb_free(&esc);
}

static const char *column_text(sqlite3_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st, col);
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Columns 4.. of the row statement against what the body gives; 1 when equal. */
static int columns_match(checker *c, sqlite3_stmt *st, const char *id, const mcpp_store_row *want)
{
    static const char *const NAMES[] = {"created_at", "git_commit", "tool",  "name",
                                        "lane_key",   "lane_short", "lane_label", "metric"};
    const char *wanted[] = {want->created_at, want->git_commit, want->tool,       want->name,
                            want->lane_key,   want->lane_short, want->lane_label, want->metric};
    int same = 1;
    for (int k = 0; k < 8; k++) {
        const char *stored = column_text(st, 4 + k);
        if (same_text(stored, wanted[k])) continue;
        if (same) problem(c, "row", id);
        else mcpp_sb_puts(c->report, "; ");
        mcpp_sb_printf(c->report, "column %s is '", NAMES[k]);
        shown_value(c->report, stored);
        mcpp_sb_puts(c->report, "', its body gives '");
        shown_value(c->report, wanted[k]);
        mcpp_sb_putc(c->report, '\'');
        same = 0;
    }
    int has = sqlite3_column_type(st, 12) != SQLITE_NULL;
    double v = has ? sqlite3_column_double(st, 12) : 0;
    if (has != want->has_value || (has && !(v == want->value || (isnan(v) && isnan(want->value))))) {
        if (same) problem(c, "row", id);
        else mcpp_sb_puts(c->report, "; ");
        mcpp_sb_puts(c->report, "column metric_value differs from its body");
        same = 0;
    }
    if (!same) mcpp_sb_putc(c->report, '\n');
    return same;
}

/* 1 when both receipts write the same canonical JSON (0 also when writing fails:
 * a check never calls unknown content equal). */
static int same_canonical_json(const mcpp_receipt *a, const mcpp_receipt *b)
{
    char *ja = NULL, *jb = NULL;
    size_t la = 0, lb = 0;
    int same = mcpp_receipt_write(&ja, &la, a, MCPP_FORMAT_JSON) == MCPP_OK &&
               mcpp_receipt_write(&jb, &lb, b, MCPP_FORMAT_JSON) == MCPP_OK && la == lb && memcmp(ja, jb, la) == 0;
    mcpp_free(ja);
    mcpp_free(jb);
    return same;
}

/* The stored image against the body's receipt; 1 when it is accepted and equal. */
static int image_matches(checker *c, const void *blob, size_t len, const char *id, const mcpp_receipt *body)
{
    if (!blob) {
        c->missing++;
        return 0;
    }
    mcpp_receipt *img = NULL;
    char why[160];
    unsigned char *unpacked = NULL;
    int rc = MCPP_OK;
    if (mcpp_store_image_is_packed(blob, len)) {
        if (!c->s->zctx && !(c->s->zctx = mcpp_store_zctx_new())) return 0;
        /* the codec was read when the check began: a dictionary it lacks is missing */
        rc = mcpp_store_unpack_image(c->s->codec, c->s->zctx, blob, len, &unpacked, &len, why, sizeof why);
        if (rc == MCPP_EUNSUPPORTED) rc = MCPP_EINVALID;
        blob = unpacked;
    }
    if (!rc) rc = mcpp_receipt_image_read(&img, blob, len, c->s->path, why, sizeof why);
    free(unpacked);
    if (rc == MCPP_EUNSUPPORTED) {
        c->foreign++;
        return 0;
    }
    if (rc) {
        if (rc == MCPP_ENOMEM) return 0;
        problem(c, "image", id);
        mcpp_sb_puts(c->report, "refused (");
        mcpp_sb_terminal(c->report, why);
        mcpp_sb_puts(c->report, "); loads from its body\n");
        return 0;
    }
    int shown = 0;
    if (strcmp(mcpp_receipt_id(img), mcpp_receipt_id(body)) != 0) {
        problem(c, "image", id);
        mcpp_sb_puts(c->report, "it holds receipt '");
        shown_value(c->report, mcpp_receipt_id(img));
        mcpp_sb_putc(c->report, '\'');
        shown = 1;
    }
    mcpp_strbuf a, b;
    mcpp_sb_init_heap(&a, 64);
    mcpp_sb_init_heap(&b, 64);
    /* Exact text, not mcpp_field_same: that equality is the comparison's
     * (accelerator aliases, canonical patterns), and an image that says
     * "nvidia h100" where the body says "NVIDIA H100" would print another
     * value from ls and export while comparing the same. */
    for (int f = 0; f < MCPP_FIELD_COUNT; f++) {
        a.len = b.len = 0;
        mcpp_field_text(&a, img, f, 0);
        mcpp_field_text(&b, body, f, 0);
        mcpp_sb_putc(&a, '\0');
        mcpp_sb_putc(&b, '\0');
        if (a.failed || b.failed || strcmp(a.data, b.data) == 0) continue;
        if (!shown) problem(c, "image", id);
        if (shown++ == SHOWN_FIELDS) {
            mcpp_sb_puts(c->report, "; ...");
            break;
        }
        if (shown > 1) mcpp_sb_puts(c->report, "; ");
        mcpp_sb_printf(c->report, "%s is ", mcpp_schema_field_at(f)->path);
        shown_value(c->report, a.data);
        mcpp_sb_puts(c->report, ", its body says ");
        shown_value(c->report, b.data);
    }
    mcpp_sb_free(&a);
    mcpp_sb_free(&b);
    /* Free-form values (artifacts, extra, named metrics) have no field text
     * of their own: the canonical JSON of both must be the same too. */
    if (!shown && !same_canonical_json(img, body)) {
        problem(c, "image", id);
        mcpp_sb_puts(c->report, "a free-form value (artifacts, extra, metrics) differs from its body");
        shown = 1;
    }
    mcpp_receipt_free(img);
    if (shown) mcpp_sb_putc(c->report, '\n');
    return !shown;
}

/* Checks one row: body, columns, image. */
static int check_row(checker *c, sqlite3_stmt *st)
{
    sqlite3_int64 rowid = sqlite3_column_int64(st, 0);
    const char *id = column_text(st, 1);
    char *body = NULL;
    size_t body_len = 0;
    mcpp_receipt *r = NULL;
    int got = id ? mcpp_store_column_body(c->s, st, 2, &body, &body_len) : MCPP_EINVALID;
    if (got == MCPP_ENOMEM) return got;
    if (got || mcpp_receipt_load_buffer(&r, NULL, body, body_len, MCPP_FORMAT_JSON, c->s->path, NULL) != MCPP_OK) {
        free(body);
        problem(c, "body", id);
        mcpp_sb_puts(c->report, "no longer loads: ");
        mcpp_sb_terminal(c->report, id ? mcpp_error_last()->message : "its id is missing");
        mcpp_sb_putc(c->report, '\n');
        mcpp_error_clear();
        return MCPP_OK;
    }
    free(body);
    if (strcmp(mcpp_receipt_id(r), id) != 0) {
        problem(c, "body", id);
        mcpp_sb_puts(c->report, "it holds receipt '");
        shown_value(c->report, mcpp_receipt_id(r));
        mcpp_sb_puts(c->report, "'\n");
        mcpp_receipt_free(r);
        return MCPP_OK;
    }
    mcpp_store_row want;
    int rc = mcpp_store_row_fill(&want, r, c->metric, NULL, NULL, NULL, 1); /* unpacked: compared, not stored */
    if (!rc) {
        int ok = columns_match(c, st, id, &want), type = sqlite3_column_type(st, 3);
        size_t len = (size_t)sqlite3_column_bytes(st, 3);
        if (type == SQLITE_NULL) { /* rows added before images, or a receipt that has none */
            ok &= image_matches(c, NULL, 0, id, r);
        } else if (type != SQLITE_BLOB || len == 0) { /* no add writes these; SQLite hands both back as NULL */
            problem(c, "image", id);
            mcpp_sb_puts(c->report, len ? "not a blob; loads from its body\n" : "empty; loads from its body\n");
            ok = 0;
        } else {
            ok &= image_matches(c, sqlite3_column_blob(st, 3), len, id, r);
        }
        if (!ok && (want.image || type != SQLITE_NULL)) rc = note_stale(c, rowid);
        mcpp_store_row_clear(&want);
    }
    mcpp_receipt_free(r);
    return rc;
}

static int check_rows(checker *c)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT rowid, id, body, %s, created_at, git_commit, tool, name, lane_key, lane_short, lane_label,"
             " metric, metric_value FROM main.receipts ORDER BY rowid", /* the file's own columns */
             mcpp_store_image_column(c->s));
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, c->s, sql, "checking rows");
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) rc = check_row(c, st);
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(c->s, step, "checking rows");
    sqlite3_finalize(st);
    return rc;
}

int mcpp_store_tombstone_verdict(const char **why, const mcpp_store *s, const char *id, int live, const char *body,
                                 size_t len)
{
    *why = NULL;
    if (live) {
        *why = "the receipt is removed and live at once (a row or a tombstone was written by hand)";
        return MCPP_OK;
    }
    mcpp_receipt *r = NULL;
    int got =
        id && body ? mcpp_receipt_load_buffer(&r, NULL, body, len, MCPP_FORMAT_JSON, s->path, NULL) : MCPP_EINVALID;
    if (got == MCPP_ENOMEM)
        return got;
    if (got)
        *why = "its body no longer loads";
    else if (strcmp(mcpp_receipt_id(r), id) != 0)
        *why = "its body holds another receipt";
    mcpp_error_clear();
    mcpp_receipt_free(r);
    return MCPP_OK;
}

/* Each tombstone: its id is not live as well (a remove deletes the row in
 * the same transaction, and an add skips a removed id), and its body still
 * loads as the receipt it names (mcpp_store_tombstone_verdict). Neither can
 * be repaired here: which of the two is the truth is the owner's call. */
static int check_tombstones(checker *c)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, c->s,
                                "SELECT t.id, t.body, EXISTS (SELECT 1 FROM main.receipts r WHERE r.id = t.id)"
                                " FROM tombstones t ORDER BY t.rowid",
                                "checking tombstones");
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = column_text(st, 0), *why = NULL;
        int live = sqlite3_column_int(st, 2);
        char *body = NULL;
        size_t len = 0;
        int got = live || !id ? MCPP_OK : mcpp_store_column_body(c->s, st, 1, &body, &len);
        rc = got == MCPP_ENOMEM ? got : mcpp_store_tombstone_verdict(&why, c->s, id, live, got ? NULL : body, len);
        free(body);
        if (!rc && why) {
            problem(c, "tombstone", id);
            mcpp_sb_puts(c->report, why);
            mcpp_sb_putc(c->report, '\n');
        }
        mcpp_error_clear();
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(c->s, step, "checking tombstones");
    sqlite3_finalize(st);
    return rc;
}

/* Rewrites the columns and image of each stale row from its body. */
static int repair_rows(checker *c)
{
    sqlite3_stmt *get = NULL, *put = NULL;
    int rc = mcpp_store_prepare(&get, c->s, "SELECT body FROM receipts WHERE rowid = ?1", "repairing rows");
    if (!rc)
        rc = mcpp_store_prepare(&put, c->s,
                                "UPDATE receipts SET created_at = ?2, git_commit = ?3, tool = ?4, name = ?5,"
                                " lane_key = ?6, lane_short = ?7, lane_label = ?8, metric = ?9, metric_value = ?10,"
                                " image = ?11 WHERE rowid = ?1",
                                "repairing rows");
    for (size_t i = 0; !rc && i < c->n_stale; i++) {
        sqlite3_reset(get);
        sqlite3_bind_int64(get, 1, c->stale[i]);
        if (sqlite3_step(get) != SQLITE_ROW) continue;
        mcpp_receipt *r = NULL;
        mcpp_store_row w;
        char *body = NULL;
        size_t body_len = 0;
        if (!c->s->zctx && !(c->s->zctx = mcpp_store_zctx_new())) rc = mcpp_error_nomem();
        if (!rc) rc = mcpp_store_column_body(c->s, get, 0, &body, &body_len);
        if (!rc) rc = mcpp_receipt_load_buffer(&r, NULL, body, body_len, MCPP_FORMAT_JSON, c->s->path, NULL);
        free(body);
        /* borrows r's strings: freed after the update; the image packed as an add packs it */
        if (!rc)
            rc = mcpp_store_row_fill(&w, r, c->metric, c->s->codec, c->s->zctx, NULL, 1);
        if (rc) {
            mcpp_receipt_free(r);
            break;
        }
        const char *texts[] = {w.created_at, w.git_commit, w.tool, w.name, w.lane_key, w.lane_short, w.lane_label,
                               w.metric};
        sqlite3_reset(put);
        sqlite3_bind_int64(put, 1, c->stale[i]);
        for (int k = 0; k < 8; k++) {
            if (texts[k]) sqlite3_bind_text(put, 2 + k, texts[k], -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(put, 2 + k);
        }
        if (w.has_value) sqlite3_bind_double(put, 10, w.value);
        else sqlite3_bind_null(put, 10);
        if (w.image) sqlite3_bind_blob(put, 11, w.image, (int)w.image_len, SQLITE_TRANSIENT);
        else sqlite3_bind_null(put, 11);
        int step = sqlite3_step(put);
        mcpp_store_row_clear(&w);
        mcpp_receipt_free(r);
        if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(c->s, step, "repairing rows");
    }
    sqlite3_finalize(get);
    sqlite3_finalize(put);
    return rc;
}

static int finish_report(char **out, checker *c)
{
    if (c->foreign)
        mcpp_sb_printf(c->report,
                       "note: %zu image%s written by another library build (those rows load from their "
                       "bodies; store check --repair or the next read rewrites them)\n",
                       c->foreign, c->foreign == 1 ? " was" : "s were");
    if (!c->problems) mcpp_sb_puts(c->report, "ok\n");
    int rc = mcpp_store_take_text(out, c->report);
    if (rc || !c->problems) return rc;
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, c->s->path, NULL, 0, 0,
                         "the store is damaged (%zu problem%s; see the check report)", c->problems,
                         c->problems == 1 ? "" : "s");
}

/* The checks in order; a failed integrity check stops before the rows. */
static int run_checks(checker *c)
{
    int rc = integrity(c);
    if (rc || c->problems) return rc;
    if ((rc = mcpp_store_codec_refresh(c->s)) || (rc = mcpp_store_codec_check(c->report, &c->problems, c->s)))
        return rc;
    if ((rc = check_rows(c)) || (rc = check_tombstones(c))) return rc;
    return mcpp_store_summaries_check(c->report, &c->problems, c->s);
}

static int checker_init(checker *c, mcpp_strbuf *report, mcpp_store *s, mcpp_policy **policy)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->report = report;
    mcpp_sb_init(report, NULL, 0);
    int rc = mcpp_policy_default(policy);
    if (!rc) c->metric = mcpp_policy_gate(*policy)->metric;
    return rc;
}

int mcpp_store_check(char **out, mcpp_store *store)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_check: NULL argument");
    *out = NULL;
    if (store->pg)
        return mcpp_store_pg_check(out, store, 0);
    mcpp_strbuf report;
    checker c;
    mcpp_policy *policy = NULL;
    int rc = checker_init(&c, &report, store, &policy);
    if (!rc) rc = run_checks(&c);
    if (!rc) rc = finish_report(out, &c);
    else mcpp_sb_free(&report);
    free(c.stale);
    mcpp_policy_free(policy);
    return rc;
}

int mcpp_store_repair(char **out, mcpp_store *store)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_repair: NULL argument");
    *out = NULL;
    if (store->pg)
        return mcpp_store_pg_check(out, store, 1);
    if (store->read_only)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, store->path, NULL, 0, 0,
                             "the store is open read-only: a repair writes to it");
    mcpp_strbuf report;
    checker c;
    mcpp_policy *policy = NULL;
    int rc = checker_init(&c, &report, store, &policy);
    if (!rc) rc = mcpp_store_begin_write(store);
    if (rc) {
        mcpp_policy_free(policy);
        return rc;
    }
    rc = integrity(&c);
    int damaged_file = !rc && c.problems;
    if (!rc && !damaged_file) rc = mcpp_store_codec_refresh(store);
    if (!rc && !damaged_file) rc = mcpp_store_codec_check(c.report, &c.problems, store);
    if (!rc && !damaged_file) rc = check_rows(&c);
    if (!rc && !damaged_file) rc = check_tombstones(&c);
    if (!rc && !damaged_file) rc = mcpp_store_summaries_check(c.report, &c.problems, store);
    if (!rc && !damaged_file) rc = repair_rows(&c);
    if (!rc && !damaged_file) rc = mcpp_store_summaries_rebuild(store);
    if (!rc && !damaged_file) rc = mcpp_store_commit(store);
    else mcpp_store_rollback(store);
    if (!rc && damaged_file) {
        mcpp_sb_puts(&report, "not repaired: the file itself is damaged (restore a copy, or export what still "
                              "reads and add it to a new store)\n");
    } else if (!rc) {
        mcpp_sb_printf(&report, "repaired: %zu row%s rewritten from %s bod%s; lane summaries rebuilt\n", c.n_stale,
                       c.n_stale == 1 ? "" : "s", c.n_stale == 1 ? "its" : "their", c.n_stale == 1 ? "y" : "ies");
        mcpp_sb_puts(&report, "after the repair:\n");
        c.problems = c.foreign = c.missing = c.n_stale = 0; /* what a repair cannot mend remains */
        rc = run_checks(&c);
    }
    if (!rc) rc = finish_report(out, &c);
    else mcpp_sb_free(&report);
    free(c.stale);
    mcpp_policy_free(policy);
    return rc;
}
