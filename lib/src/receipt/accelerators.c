/*
 * accelerators.c — the accelerator alias table: rows parsed from the shipped
 * data/accelerators.tsv (compiled in as mcpp_data_accelerators_tsv) once, on
 * first use under pthread_once, plus tables callers extend. Lookup is a scan
 * of normalised names: tables are a few hundred rows and names are short.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcpp_receipts/accelerator.h"
#include "util/alloc.h"
#include "util/c_locale.h"
#include "util/error_internal.h"
#include "receipt/data_files.h"

typedef struct accel_row {
    mcpp_accelerator info;
} accel_row;

typedef struct alias_row {
    char name[96]; /* normalised */
    int accel;     /* index into accels */
    int model_only;
} alias_row;

struct mcpp_accel_table {
    accel_row *accels;
    size_t n_accels, cap_accels;
    alias_row *aliases;
    size_t n_aliases, cap_aliases;
};

/* Lower case; runs of blanks, '-' and '_' as one space; trimmed. */
static void normalise(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    int gap = 0;
    for (; *s && n + 2 < cap; s++) {
        char c = *s;
        if (c == ' ' || c == '\t' || c == '-' || c == '_') {
            gap = n > 0;
            continue;
        }
        if (gap)
            out[n++] = ' ';
        gap = 0;
        out[n++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    out[n] = '\0';
}

/* Copies with truncation (table strings are short; a longer one is cut). */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

static int find_accel(const mcpp_accel_table *t, const char *id)
{
    for (size_t i = 0; i < t->n_accels; i++)
        if (strcmp(t->accels[i].info.id, id) == 0)
            return (int)i;
    return -1;
}

int mcpp_accel_table_add(mcpp_accel_table *t, const char *id, const char *vendor,
                         const char *model, const char *form_factor, double memory_gb,
                         const char *memory_type)
{
    if (!t || !id || !*id || !model)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "table, id and model must not be NULL or empty");
    if (find_accel(t, id) >= 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_DUPLICATE_KEY, NULL, NULL, 0, 0,
                              "accelerator id \"%s\" is already in the table", id);
    MCPP_CHECK_ARRAY(t->accels, t->cap_accels, t->n_accels + 1, MCPP_ARRAY_MAX_ITEMS);
    mcpp_accelerator *a = &t->accels[t->n_accels++].info;
    memset(a, 0, sizeof *a);
    copy(a->id, sizeof a->id, id);
    copy(a->vendor, sizeof a->vendor, vendor);
    copy(a->model, sizeof a->model, model);
    copy(a->form_factor, sizeof a->form_factor, form_factor);
    copy(a->memory_type, sizeof a->memory_type, memory_type);
    a->memory_gb = memory_gb;
    a->matched = 1;
    return MCPP_OK;
}

int mcpp_accel_table_add_alias(mcpp_accel_table *t, const char *raw_name, const char *id,
                               int model_only)
{
    if (!t || !raw_name || !id)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "table, raw_name and id must not be NULL");
    int accel = find_accel(t, id);
    if (accel < 0)
        return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, NULL, 0, 0,
                              "no accelerator with id \"%s\" in the table", id);
    MCPP_CHECK_ARRAY(t->aliases, t->cap_aliases, t->n_aliases + 1, MCPP_ARRAY_MAX_ITEMS);
    alias_row *a = &t->aliases[t->n_aliases++];
    normalise(a->name, sizeof a->name, raw_name);
    a->accel = accel;
    a->model_only = model_only ? 1 : 0;
    return MCPP_OK;
}

/* Splits a line in place at tabs; returns the number of columns. */
static int split_tabs(char *line, char **cols, int max)
{
    int n = 0;
    while (n < max) {
        cols[n++] = line;
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return n;
}

#define BAD_ROW (-1000) /* not a status code: the row has the wrong shape */

static int add_row(mcpp_accel_table *t, char **c, int n)
{
    if (strcmp(c[0], "accel") == 0 && n == 7)
        return mcpp_accel_table_add(t, c[1], c[2], c[3], c[4], mcpp_strtod_c(c[5], NULL), c[6]);
    if ((strcmp(c[0], "alias") == 0 || strcmp(c[0], "model") == 0) && n == 3)
        return mcpp_accel_table_add_alias(t, c[2], c[1], c[0][0] == 'm');
    return BAD_ROW;
}

int mcpp_accel_table_add_tsv(mcpp_accel_table *t, const char *text, size_t len, const char *name)
{
    if (!t || (!text && len))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, name, NULL, 0, 0, "table or text is NULL");
    char line[512];
    int lineno = 0;
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        size_t n = end - at;
        lineno++;
        if (n >= sizeof line)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, name, NULL, lineno, 0,
                                  "line longer than %zu bytes", sizeof line - 1);
        memcpy(line, text + at, n);
        line[n] = '\0';
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        at = end + 1;
        if (!line[0] || line[0] == '#')
            continue;
        char *cols[8];
        int nc = split_tabs(line, cols, 8);
        int rc = add_row(t, cols, nc);
        if (rc == BAD_ROW)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, name, NULL, lineno, 0,
                                  "expected 'accel ID VENDOR MODEL FORM MEMORY_GB MEMORY_TYPE' or "
                                  "'alias|model ID NAME', tab-separated");
        if (rc != MCPP_OK)
            return rc;
    }
    return MCPP_OK;
}

static mcpp_accel_table shipped;
static int shipped_failed;
static pthread_once_t shipped_once = PTHREAD_ONCE_INIT;

static void load_shipped(void)
{
    if (mcpp_accel_table_add_tsv(&shipped, mcpp_data_accelerators_tsv,
                                 mcpp_data_accelerators_tsv_len, "accelerators.tsv") != MCPP_OK)
        shipped_failed = 1;
}

const mcpp_accel_table *mcpp_accel_table_default(void)
{
    pthread_once(&shipped_once, load_shipped);
    return shipped_failed ? NULL : &shipped;
}

int mcpp_accel_table_new(mcpp_accel_table **out)
{
    if (!out)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "out is NULL");
    *out = NULL;
    const mcpp_accel_table *base = mcpp_accel_table_default();
    mcpp_accel_table *t = calloc(1, sizeof *t);
    if (!base || !t) {
        free(t);
        return mcpp_error_nomem();
    }
    t->accels = malloc((base->n_accels + 1) * sizeof *t->accels);
    t->aliases = malloc((base->n_aliases + 1) * sizeof *t->aliases);
    if (!t->accels || !t->aliases) {
        mcpp_accel_table_free(t);
        return mcpp_error_nomem();
    }
    memcpy(t->accels, base->accels, base->n_accels * sizeof *t->accels);
    memcpy(t->aliases, base->aliases, base->n_aliases * sizeof *t->aliases);
    t->n_accels = t->cap_accels = base->n_accels;
    t->n_aliases = t->cap_aliases = base->n_aliases;
    *out = t;
    return MCPP_OK;
}

void mcpp_accel_table_free(mcpp_accel_table *t)
{
    if (!t || t == &shipped)
        return;
    free(t->accels);
    free(t->aliases);
    free(t);
}

int mcpp_accelerator_canonicalize(mcpp_accelerator *out, const mcpp_accel_table *table,
                                  const char *raw_name)
{
    if (!out || !raw_name)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out and raw_name must not be NULL");
    if (!table && !(table = mcpp_accel_table_default()))
        return mcpp_error_nomem();
    char norm[96];
    normalise(norm, sizeof norm, raw_name);
    memset(out, 0, sizeof *out);
    /* a later alias wins, so policies can re-point a shipped name */
    for (size_t i = table->n_aliases; i-- > 0;) {
        if (strcmp(table->aliases[i].name, norm) == 0) {
            *out = table->accels[table->aliases[i].accel].info;
            out->model_only = table->aliases[i].model_only;
            return MCPP_OK;
        }
    }
    if (strcmp(norm, "cpu") == 0) {
        /* The host CPU, unnamed: what every CPU-only run records (the step
         * runner's CPU path, Builder examples). Known, so it draws no
         * unknown_accelerator warning; never a device of a GPU platform. */
        copy(out->id, sizeof out->id, "cpu");
        copy(out->model, sizeof out->model, "cpu");
        copy(out->form_factor, sizeof out->form_factor, "cpu");
        out->matched = 1;
        return MCPP_OK;
    }
    if (strncmp(norm, "cpu:", 4) == 0) {
        const char *model = norm[4] == ' ' ? norm + 5 : norm + 4;
        snprintf(out->id, sizeof out->id, "cpu:%s", model);
        copy(out->model, sizeof out->model, model);
        copy(out->form_factor, sizeof out->form_factor, "cpu");
        out->matched = *model != '\0';
        return MCPP_OK;
    }
    copy(out->id, sizeof out->id, norm);
    copy(out->model, sizeof out->model, norm);
    return MCPP_OK;
}

/* A request that names only a platform ("cuda", "rocm", "gpu": what a runner
 * asks for when any device of it will do): the vendor it means, "" for any
 * GPU; NULL when `requested` is not such a request. */
static const char *platform_vendor(const char *requested)
{
    static const struct { const char *name, *vendor; } platforms[] = {
        {"cuda", "NVIDIA"}, {"rocm", "AMD"}, {"hip", "AMD"}, {"gpu", ""}};
    for (size_t i = 0; i < sizeof platforms / sizeof platforms[0]; i++)
        if (strcasecmp(requested, platforms[i].name) == 0) return platforms[i].vendor;
    return NULL;
}

int mcpp_accelerator_satisfies(int *out, char *why, size_t why_cap,
                               const mcpp_accel_table *table, const char *requested,
                               const char *observed)
{
    mcpp_accelerator req, obs;
    char scratch[8];
    /* The same name twice is the same chip unless it names a platform (then
     * the observed name must be a device of it): with no reason wanted, the
     * common case needs no table scan. */
    if (!why && out && requested && observed && strcmp(requested, observed) == 0 &&
        !platform_vendor(requested)) {
        *out = 1;
        return MCPP_OK;
    }
    if (!why || why_cap == 0) {
        why = scratch;
        why_cap = sizeof scratch;
    }
    if (!out || !requested || !observed)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out, requested and observed must not be NULL");
    int rc = mcpp_accelerator_canonicalize(&req, table, requested);
    if (rc == MCPP_OK)
        rc = mcpp_accelerator_canonicalize(&obs, table, observed);
    if (rc != MCPP_OK)
        return rc;
    const char *platform = platform_vendor(requested);
    if (platform) {
        *out = obs.matched && strcmp(obs.form_factor, "cpu") != 0 &&
               (!*platform || strcmp(obs.vendor, platform) == 0);
        snprintf(why, why_cap, "request names only the platform %s; %s (%s) %s", requested, observed, obs.id,
                 *out ? "is a device of it" : "is not");
    } else if (strcmp(req.id, obs.id) == 0) {
        *out = 1;
        snprintf(why, why_cap, "same accelerator: %s and %s are both %s", requested, observed,
                 req.id);
    } else if (req.model_only && req.matched && obs.matched &&
               strcmp(req.vendor, obs.vendor) == 0 && strcmp(req.model, obs.model) == 0) {
        *out = 1;
        snprintf(why, why_cap, "request names only the model %s; %s (%s) is one", req.model,
                 observed, obs.id);
    } else {
        *out = 0;
        snprintf(why, why_cap, "requested %s (%s), observed %s (%s)%s", requested, req.id,
                 observed, obs.id,
                 req.matched && obs.matched ? "" : "; an unknown name is compared as written");
    }
    return MCPP_OK;
}
