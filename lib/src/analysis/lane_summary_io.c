/*
 * lane_summary_io.c — lane summaries across processes: reading back the text
 * of mcpp_lane_summary_serialize (a distributed engine ships summaries between
 * machines as that text) and listing receipt ids a merge counted twice.
 *
 * The serialized text carries the summary's raw parts (counts, id multiset,
 * blocker and fallback sets, values, steps) and what was derived from them
 * (status, reasons, headline). Reading restores the raw parts and re-derives
 * the rest under the caller's policy; when that disagrees with the text, the
 * summary was made under other noise or gate settings and is refused rather
 * than silently relabelled.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/error_internal.h"
#include "util/strbuf.h"
#include "analysis/frontier_internal.h"

static int bad(const char *field, const char *what)
{
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, field, 0, 0, "lane summary: %s %s", field, what);
}

static int read_count(size_t *out, const cJSON *doc, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name);
    /* the bound comes before the cast: converting a double beyond size_t
     * (1e400 reads as infinity) to size_t is undefined behaviour */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0) ||
        v->valuedouble != (double)(size_t)v->valuedouble)
        return bad(name, "must be a count (a non-negative integer up to 2^53)");
    *out = (size_t)v->valuedouble;
    return MCPP_OK;
}

static int read_counts(mcpp_lane_summary_counts *c, const cJSON *doc)
{
    int rc;
    if ((rc = read_count(&c->ok, doc, "ok")) || (rc = read_count(&c->failed, doc, "failed")) ||
        (rc = read_count(&c->partial, doc, "partial")) ||
        (rc = read_count(&c->verification_failed, doc, "verification_failed")) ||
        (rc = read_count(&c->claim_unstable, doc, "claim_unstable")) ||
        (rc = read_count(&c->claim_blocked, doc, "claim_blocked")) ||
        (rc = read_count(&c->fallback_runs, doc, "fallback_runs")))
        return rc;
    return MCPP_OK;
}

/* Restores the array `name` of texts or numbers into part `part`. */
static int read_array(mcpp_lane_summary *s, const cJSON *doc, const char *name, mcpp_lane_summary_part part,
                      int numbers, size_t *n_out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, name), *item;
    if (!cJSON_IsArray(a)) return bad(name, "must be an array");
    size_t n = 0;
    cJSON_ArrayForEach(item, a)
    {
        int rc;
        if (numbers ? !cJSON_IsNumber(item) : !cJSON_IsString(item))
            return bad(name, numbers ? "must hold numbers only" : "must hold strings only");
        rc = numbers ? mcpp_lane_summary_restore_value(s, part, item->valuedouble)
                     : mcpp_lane_summary_restore_text(s, part, item->valuestring);
        if (rc) return rc;
        n++;
    }
    if (n_out) *n_out = n;
    return MCPP_OK;
}

/* The derived status and reasons in the text must be what this policy derives. */
static int check_derived(const mcpp_lane_summary *s, const cJSON *doc)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(doc, "status");
    const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(doc, "reasons");
    if (!cJSON_IsString(status) || !cJSON_IsArray(reasons)) return bad("status/reasons", "are missing");
    int same = strcmp(status->valuestring, mcpp_lane_status_name(mcpp_lane_summary_status(s))) == 0 &&
               (size_t)cJSON_GetArraySize(reasons) == mcpp_lane_summary_reason_count(s);
    for (size_t i = 0; same && i < mcpp_lane_summary_reason_count(s); i++) {
        const cJSON *r = cJSON_GetArrayItem(reasons, (int)i);
        same = cJSON_IsString(r) && strcmp(r->valuestring, mcpp_lane_summary_reason(s, i)) == 0;
    }
    if (!same)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "status", 0, 0,
                              "lane summary: its status or reasons differ under policy '%s'; it was made under "
                              "another policy", mcpp_lane_summary_policy(s)->name);
    return MCPP_OK;
}

/* The runs' metric identity: name, unit, direction, and a conflict if any. */
static int restore_ident(mcpp_lane_summary *s, const cJSON *doc)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "metric_name");
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(doc, "unit");
    const cJSON *higher = cJSON_GetObjectItemCaseSensitive(doc, "higher_is_better");
    const cJSON *conflict = cJSON_GetObjectItemCaseSensitive(doc, "metric_conflict");
    if (!cJSON_IsString(name) && !cJSON_IsNull(name)) return bad("metric_name", "must be a string or null");
    if (!cJSON_IsString(unit) && !cJSON_IsNull(unit)) return bad("unit", "must be a string or null");
    if (!cJSON_IsBool(higher) && !cJSON_IsNull(higher)) return bad("higher_is_better", "must be true, false or null");
    if (!cJSON_IsString(conflict) && !cJSON_IsNull(conflict)) return bad("metric_conflict", "must be a string or null");
    mcpp_metric_ident id = {cJSON_IsString(name) ? name->valuestring : NULL,
                            cJSON_IsString(unit) ? unit->valuestring : NULL, cJSON_IsTrue(higher)};
    return mcpp_lane_summary_note_ident(s, cJSON_IsBool(higher) ? &id : NULL,
                                        cJSON_IsString(conflict) ? conflict->valuestring : NULL);
}

static int restore(mcpp_lane_summary **out, const mcpp_policy *p, const cJSON *doc)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(doc, "key");
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(doc, "metric");
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(doc, "label");
    if (!cJSON_IsString(key)) return bad("key", "must be a string");
    if (!cJSON_IsString(metric)) return bad("metric", "must be a string");
    if (!cJSON_IsString(label) && !cJSON_IsNull(label)) return bad("label", "must be a string or null");
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(doc, "format");
    if (!cJSON_IsNumber(format) || format->valuedouble != MCPP_LANE_SUMMARY_FORMAT)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "format", 0, 0,
                             "lane summary: format %g is not this library's (%d): rebuild the summary from its "
                             "receipts", cJSON_IsNumber(format) ? format->valuedouble : 1.0, MCPP_LANE_SUMMARY_FORMAT);
    mcpp_lane_summary_counts c;
    int rc = read_counts(&c, doc);
    if (rc) return rc;
    /* "" is the key of every receipt under a policy without must-match
     * dimensions; a summary without receipts has no key yet. */
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(doc, "receipts");
    int keyed = *key->valuestring || cJSON_GetArraySize(ids) > 0 ||
                cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "excluded")) > 0;
    mcpp_lane_summary *s = NULL;
    if ((rc = mcpp_lane_summary_create(&s, p, metric->valuestring, keyed ? key->valuestring : NULL)))
        return rc;
    rc = restore_ident(s, doc);
    if (!rc && cJSON_IsString(label)) rc = mcpp_lane_summary_restore_text(s, MCPP_SUMMARY_LABEL, label->valuestring);
    if (!rc) rc = read_array(s, doc, "receipts", MCPP_SUMMARY_IDS, 0, &c.receipts);
    if (!rc) rc = read_array(s, doc, "blockers", MCPP_SUMMARY_BLOCKERS, 0, NULL);
    size_t n_excluded = 0;
    if (!rc) rc = read_array(s, doc, "excluded", MCPP_SUMMARY_EXCLUDED, 0, &n_excluded);
    c.receipts += n_excluded; /* excluded runs are receipts of the lane too */
    if (!rc) rc = read_array(s, doc, "insufficient", MCPP_SUMMARY_INSUFFICIENT, 0, NULL);
    if (!rc) rc = read_array(s, doc, "conflicts", MCPP_SUMMARY_CONFLICTS, 0, NULL);
    if (!rc) rc = read_array(s, doc, "values", MCPP_SUMMARY_VALUES, 1, NULL);
    if (!rc) rc = read_array(s, doc, "steps", MCPP_SUMMARY_STEPS, 1, NULL);
    if (!rc) rc = read_array(s, doc, "excluded_values", MCPP_SUMMARY_EXCLUDED_VALUES, 1, NULL);
    if (!rc) {
        mcpp_lane_summary_set_counts(s, &c);
        rc = check_derived(s, doc);
    }
    if (rc) {
        mcpp_lane_summary_free(s);
        return rc;
    }
    *out = s;
    return MCPP_OK;
}

int mcpp_lane_summary_deserialize(mcpp_lane_summary **out, const mcpp_policy *policy, const char *text, size_t len)
{
    if (!out || !text)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_lane_summary_deserialize: NULL argument");
    *out = NULL;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!doc || !cJSON_IsObject(doc)) {
        size_t at = doc ? 0 : (size_t)(cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - text : 0);
        cJSON_Delete(doc);
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, NULL, NULL, 1, (int)at + 1,
                              "lane summary: not a JSON object (at byte %zu)", at);
    }
    int rc = restore(out, p, doc);
    cJSON_Delete(doc);
    return rc;
}

int mcpp_lane_summary_duplicate_ids(char **out, const mcpp_lane_summary *summary)
{
    if (!out || !summary)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_lane_summary_duplicate_ids: NULL argument");
    *out = NULL;
    size_t n = 0;
    char **ids = mcpp_lane_summary_every_id(summary, &n); /* excluded runs were loaded too */
    if (!ids) return mcpp_error_nomem();
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 64);
    mcpp_sb_putc(&b, '[');
    int first = 1;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(ids[i], ids[i - 1]) != 0 || (i >= 2 && strcmp(ids[i], ids[i - 2]) == 0)) continue;
        if (!first) mcpp_sb_puts(&b, ", ");
        first = 0;
        mcpp_sb_json_string(&b, ids[i]);
    }
    mcpp_sb_putc(&b, ']');
    for (size_t i = 0; i < n; i++) free(ids[i]);
    free(ids);
    return mcpp_sb_finish(&b, out);
}

void mcpp_lane_summaries_free(mcpp_lane_summary **summaries, size_t n)
{
    if (!summaries) return;
    for (size_t i = 0; i < n; i++) mcpp_lane_summary_free(summaries[i]);
    free(summaries);
}

/* A copy of s: a fresh summary of the same lane with s merged in. */
static int summary_copy(mcpp_lane_summary **out, const mcpp_policy *p, const mcpp_lane_summary *s)
{
    int rc = mcpp_lane_summary_create(out, p, mcpp_lane_summary_metric(s), mcpp_lane_summary_key(s));
    if (!rc) rc = mcpp_lane_summary_merge(*out, s);
    if (rc) {
        mcpp_lane_summary_free(*out);
        *out = NULL;
    }
    return rc;
}

int mcpp_lane_summaries_build(mcpp_lane_summary ***out, size_t *n_out, size_t *duplicates, const mcpp_policy *policy,
                              const char *metric, const mcpp_receipt *const *receipts, size_t n)
{
    if (!out || !n_out || (n && !receipts))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_lane_summaries_build: NULL argument");
    *out = NULL;
    *n_out = 0;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    mcpp_frontier *f = NULL;
    int rc = mcpp_frontier_build_lanes(&f, p, receipts, n, metric ? metric : p->gate.metric, NULL, 1);
    if (rc) return rc;
    size_t L = mcpp_frontier_lane_count(f);
    mcpp_lane_summary **all = calloc(L ? L : 1, sizeof *all);
    if (!all) rc = mcpp_error_nomem();
    for (size_t l = 0; !rc && l < L; l++) rc = summary_copy(&all[l], p, mcpp_frontier_lane_summary(f, l));
    if (duplicates) *duplicates = mcpp_frontier_duplicate_count(f);
    mcpp_frontier_free(f);
    if (rc) {
        mcpp_lane_summaries_free(all, L);
        return rc;
    }
    *out = all;
    *n_out = L;
    return MCPP_OK;
}
