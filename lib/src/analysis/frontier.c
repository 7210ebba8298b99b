/*
 * frontier.c — groups receipts into lanes (hash table on the lane key), labels
 * each lane from its mergeable summary, and finds adjacent lanes.
 *
 * Adjacency at width 1 is found without comparing all pairs: for every lane
 * and key dimension d, the hash of the key with d left out is a bucket; lanes
 * sharing a bucket differ in d only. Wider adjacency compares all pairs
 * (quadratic in the number of lanes, which is small next to receipts).
 *
 * Each lane lists a bounded number of its adjacent lanes and counts the rest:
 * N lanes that differ only in seq_len are all adjacent to one another, and
 * listing every pair made the report quadratic (3,000 such lanes: 4.8 GB of
 * JSON). At width 1 a lane lists, per dimension, the ADJACENT_PER_DIM lanes
 * nearest to it in key order along that dimension.
 *
 * One related group counts as one step: the kernels that ran and how they
 * were compiled (`backend` and `compile`) change together in the notes'
 * comparisons (padded whole-model vs jagged partial-compile), so lanes that
 * differ in both and nothing else are adjacent at width 1 too (issue 27).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "analysis/frontier_internal.h"

/* Adjacent lanes listed per lane and differing dimension (width 1), and in all
 * (wider adjacency); the others are counted in adj_total. */
#define ADJACENT_PER_DIM 4
#define ADJACENT_WIDE_MAX 16

/* A lane refers to what its summary already holds (the evaluation, the
 * label, the ids) rather than copying it, and its adjacent lanes' dimension
 * texts are the frontier's, one copy of each: a frontier of 10^5 lanes kept
 * ~2.6 KiB a lane when each held its own. */
typedef struct frontier_lane {
    mcpp_lane_summary *summary;
    const mcpp_receipt *rep; /* the lane's first receipt, only while building */
    char short_key[24];
    const char *label; /* the summary's, or short_key */
    char *differences; /* key fields that tell it from its neighbours (lane_distinct.c) */
    char *display_label; /* label (differences) */
    uint64_t *segs;      /* key_dims segment hashes, into frontier->segs; only while building */
    const mcpp_lane_eval *eval; /* the summary's */
    const char **ids;
    size_t n_ids;
    char **excluded_ids; /* parallel: id and reason of each excluded run; NULL when none */
    const char **excluded_reasons;
    size_t n_excluded;
    size_t *adj; /* the listed adjacent lanes */
    const char **adj_dims; /* into frontier->adj_texts */
    size_t n_adj, cap_adj;
    size_t adj_total; /* every adjacent lane, listed or not */
} frontier_lane;

struct mcpp_frontier {
    char *policy_name;
    char policy_digest[MCPP_POLICY_DIGEST_LEN + 1];
    size_t n_receipts;
    size_t n_duplicates; /* receipts skipped: same id already in the lane */
    frontier_lane *lanes;
    size_t n_lanes, cap_lanes;
    size_t n_stable;
    size_t key_dims;
    char **dim_names;
    uint64_t *segs; /* only while building */
    size_t cap_segs;
    char **adj_texts; /* the distinct dimension texts of adjacent lanes */
    size_t n_adj_texts, cap_adj_texts;
};

void mcpp_frontier_free(mcpp_frontier *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n_lanes; i++) {
        frontier_lane *l = &f->lanes[i];
        mcpp_lane_summary_free(l->summary);
        free(l->differences);
        free(l->display_label);
        free(l->ids);
        for (size_t j = 0; j < l->n_excluded; j++) free(l->excluded_ids[j]);
        free(l->excluded_ids);
        free(l->excluded_reasons);
        free(l->adj);
        free(l->adj_dims);
    }
    free(f->lanes);
    for (size_t i = 0; i < f->n_adj_texts; i++)
        free(f->adj_texts[i]);
    free(f->adj_texts);
    if (f->dim_names)
        for (size_t k = 0; k < f->key_dims; k++) free(f->dim_names[k]);
    free(f->dim_names);
    free(f->segs);
    free(f->policy_name);
    free(f);
}

/* ---- Grouping ------------------------------------------------------------------------ */

typedef struct slot {
    uint64_t hash;
    size_t lane; /* SIZE_MAX when empty */
} slot;

static int table_grow(slot **table, size_t *cap, const frontier_lane *lanes, size_t n_lanes, const uint64_t *hashes)
{
    size_t nc = *cap ? *cap * 2 : 1024;
    slot *nt = malloc(nc * sizeof *nt);
    MCPP_CHECK_ALLOC(nt);
    for (size_t i = 0; i < nc; i++) nt[i].lane = SIZE_MAX;
    for (size_t l = 0; l < n_lanes; l++) {
        size_t pos = (size_t)hashes[l] & (nc - 1);
        while (nt[pos].lane != SIZE_MAX) pos = (pos + 1) & (nc - 1);
        nt[pos].hash = hashes[l];
        nt[pos].lane = l;
    }
    (void)lanes;
    free(*table);
    *table = nt;
    *cap = nc;
    return MCPP_OK;
}

/* The frontier's one copy of an adjacency's dimension text ("routing",
 * "backend, compile"): few distinct ones, each named by many lanes. */
static int adj_text(const char **out, mcpp_frontier *f, const char *dims)
{
    for (size_t i = f->n_adj_texts; i-- > 0;)
        if (strcmp(f->adj_texts[i], dims) == 0) {
            *out = f->adj_texts[i];
            return MCPP_OK;
        }
    MCPP_CHECK_ARRAY(f->adj_texts, f->cap_adj_texts, f->n_adj_texts + 1, MCPP_ARRAY_MAX_ITEMS);
    char *d = mcpp_strdup(dims, NULL);
    MCPP_CHECK_ALLOC(d);
    *out = f->adj_texts[f->n_adj_texts++] = d;
    return MCPP_OK;
}

static int add_adjacent(mcpp_frontier *f, frontier_lane *l, size_t other, const char *dims)
{
    size_t cap_dims = l->cap_adj; /* the two arrays grow in the same steps */
    MCPP_CHECK_ARRAY(l->adj_dims, cap_dims, l->n_adj + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(l->adj, l->cap_adj, l->n_adj + 1, MCPP_ARRAY_MAX_ITEMS);
    int rc = adj_text(&l->adj_dims[l->n_adj], f, dims);
    if (rc)
        return rc;
    l->adj[l->n_adj] = other;
    l->n_adj++;
    return MCPP_OK;
}

/* 16 bytes: there are lanes x (dimensions + 1) of them at once, the
 * frontier's largest block while it is built (24 bytes each made 55 MB of
 * 10^5 lanes' 23 buckets). A lane index fits: the lanes array holds at most
 * MCPP_ARRAY_MAX_ITEMS (2^28). */
typedef struct bucket {
    uint64_t hash;
    uint32_t dim;
    uint32_t lane;
} bucket;

static int compare_buckets(const void *a, const void *b)
{
    const bucket *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    if (x->dim != y->dim) return x->dim < y->dim ? -1 : 1;
    return (x->lane > y->lane) - (x->lane < y->lane);
}

/* Segments in which two lanes differ, as "a, b" (count in *n). */
static void differing(const mcpp_frontier *f, size_t a, size_t b, mcpp_strbuf *t, size_t *n)
{
    *n = 0;
    for (size_t k = 0; k < f->key_dims; k++) {
        if (f->lanes[a].segs[k] == f->lanes[b].segs[k]) continue;
        if (t) {
            if (*n) mcpp_sb_puts(t, ", ");
            mcpp_sb_puts(t, f->dim_names[k]);
        }
        (*n)++;
    }
}

/* 1 when lanes a and b have equal key segments except dimension d. */
static int same_but(const mcpp_frontier *f, size_t a, size_t b, size_t d)
{
    for (size_t k = 0; k < f->key_dims; k++)
        if (k != d && f->lanes[a].segs[k] != f->lanes[b].segs[k]) return 0;
    return 1;
}

/* A hash-collision bucket (its lanes do not all agree outside dimension d):
 * every pair is checked. Never seen in practice; kept correct, not fast. */
static int link_pairs(mcpp_frontier *f, const bucket *bs, size_t n, mcpp_strbuf *t)
{
    int rc = MCPP_OK;
    for (size_t a = 0; a < n && !rc; a++) {
        for (size_t b = a + 1; b < n && !rc; b++) {
            size_t k;
            t->len = 0;
            differing(f, bs[a].lane, bs[b].lane, t, &k);
            if (k != 1 || t->failed) continue; /* a hash collision, not a neighbour */
            rc = add_adjacent(f, &f->lanes[bs[a].lane], bs[b].lane, t->data);
            if (!rc)
                rc = add_adjacent(f, &f->lanes[bs[b].lane], bs[a].lane, t->data);
            f->lanes[bs[a].lane].adj_total++;
            f->lanes[bs[b].lane].adj_total++;
        }
    }
    return rc;
}

/* The n lanes of one bucket differ in dimension d only (in lane order, so in
 * key order): all are adjacent to one another. Each counts the n - 1 others
 * and lists the ADJACENT_PER_DIM nearest in key order. */
static int link_bucket(mcpp_frontier *f, const bucket *bs, size_t n, mcpp_strbuf *t)
{
    size_t d = bs[0].dim;
    for (size_t i = 1; i < n; i++)
        if (!same_but(f, bs[0].lane, bs[i].lane, d)) return link_pairs(f, bs, n, t);
    int rc = MCPP_OK;
    const char *name = f->dim_names[d];
    for (size_t i = 0; i < n && !rc; i++) {
        frontier_lane *l = &f->lanes[bs[i].lane];
        l->adj_total += n - 1;
        size_t window = n - 1 < ADJACENT_PER_DIM ? n - 1 : ADJACENT_PER_DIM;
        /* window lanes around i (i itself skipped), shifted to stay within the bucket */
        size_t first = i > window / 2 ? i - window / 2 : 0;
        if (first + window + 1 > n) first = n - window - 1;
        for (size_t j = first; j <= first + window && !rc; j++)
            if (j != i)
                rc = add_adjacent(f, l, bs[j].lane, name);
    }
    return rc;
}

/* The key indexes of the related group (backend, compile); D when absent. */
static void group_dims(const mcpp_frontier *f, size_t *g1, size_t *g2)
{
    *g1 = *g2 = f->key_dims;
    for (size_t k = 0; k < f->key_dims; k++) {
        if (strcmp(f->dim_names[k], "backend") == 0) *g1 = k;
        if (strcmp(f->dim_names[k], "compile") == 0) *g2 = k;
    }
}

/* Lanes of one group bucket agree outside backend and compile: each pair
 * that differs in both is adjacent (one differing in one of them is linked
 * by that dimension's bucket). */
static int link_group(mcpp_frontier *f, const bucket *bs, size_t n, size_t g1, size_t g2)
{
    int rc = MCPP_OK;
    char dims[64];
    snprintf(dims, sizeof dims, "%s, %s", f->dim_names[g1 < g2 ? g1 : g2], f->dim_names[g1 < g2 ? g2 : g1]);
    for (size_t a = 0; a < n && !rc; a++) {
        for (size_t b = a + 1; b < n && !rc; b++) {
            const frontier_lane *x = &f->lanes[bs[a].lane], *y = &f->lanes[bs[b].lane];
            int others_equal = 1;
            for (size_t k = 0; k < f->key_dims && others_equal; k++)
                if (k != g1 && k != g2 && x->segs[k] != y->segs[k]) others_equal = 0;
            if (!others_equal || x->segs[g1] == y->segs[g1] || x->segs[g2] == y->segs[g2]) continue;
            if (f->lanes[bs[a].lane].n_adj < ADJACENT_WIDE_MAX)
                rc = add_adjacent(f, &f->lanes[bs[a].lane], bs[b].lane, dims);
            if (!rc && f->lanes[bs[b].lane].n_adj < ADJACENT_WIDE_MAX)
                rc = add_adjacent(f, &f->lanes[bs[b].lane], bs[a].lane, dims);
            f->lanes[bs[a].lane].adj_total++;
            f->lanes[bs[b].lane].adj_total++;
        }
    }
    return rc;
}

/* Marks the key dimensions in which some lanes differ, and counts them. A
 * bucket of a dimension every lane shares holds one lane (keys are distinct),
 * so none is made for it: a suite's lanes differ in a few of the ~20. */
static size_t varying_dims(const mcpp_frontier *f, unsigned char *varies)
{
    size_t n = 0;
    for (size_t k = 0; k < f->key_dims; k++) {
        varies[k] = 0;
        for (size_t l = 1; l < f->n_lanes && !varies[k]; l++)
            varies[k] = f->lanes[l].segs[k] != f->lanes[0].segs[k];
        n += varies[k];
    }
    return n;
}

static int find_adjacency(mcpp_frontier *f, int width)
{
    size_t L = f->n_lanes, D = f->key_dims;
    int rc = MCPP_OK;
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 128);
    size_t g1, g2;
    group_dims(f, &g1, &g2);
    int grouped = g1 < D && g2 < D;
    if (width <= 1) {
        unsigned char *varies = calloc(D ? D : 1, 1);
        size_t per_lane = varies ? varying_dims(f, varies) : 0;
        /* lanes differing in both backend and compile, when some do */
        int group_bucket = grouped && varies && varies[g1] && varies[g2];
        per_lane += (size_t)group_bucket;
        bucket *bs = malloc((L * per_lane > 0 ? L * per_lane : 1) * sizeof *bs);
        if (!bs || !varies) {
            free(bs);
            free(varies);
            mcpp_sb_free(&t);
            return mcpp_error_nomem();
        }
        size_t nb = 0;
        for (size_t l = 0; l < L; l++) {
            for (size_t d = 0; d < D; d++) {
                if (!varies[d])
                    continue;
                uint64_t h = mcpp_fnv1a(&d, sizeof d, MCPP_FNV_OFFSET);
                for (size_t k = 0; k < D; k++)
                    if (k != d) h = mcpp_fnv1a(&f->lanes[l].segs[k], sizeof(uint64_t), h);
                bs[nb].hash = h;
                bs[nb].dim = (uint32_t)d;
                bs[nb].lane = (uint32_t)l;
                nb++;
            }
            if (group_bucket) { /* the group bucket: every dimension but backend and compile */
                size_t d = D;
                uint64_t h = mcpp_fnv1a(&d, sizeof d, MCPP_FNV_OFFSET);
                for (size_t k = 0; k < D; k++)
                    if (k != g1 && k != g2) h = mcpp_fnv1a(&f->lanes[l].segs[k], sizeof(uint64_t), h);
                bs[nb].hash = h;
                bs[nb].dim = (uint32_t)D;
                bs[nb].lane = (uint32_t)l;
                nb++;
            }
        }
        qsort(bs, nb, sizeof *bs, compare_buckets);
        for (size_t i = 0; i < nb && !rc;) {
            size_t j = i + 1;
            while (j < nb && bs[j].hash == bs[i].hash && bs[j].dim == bs[i].dim) j++;
            if (j - i > 1) rc = bs[i].dim == D ? link_group(f, bs + i, j - i, g1, g2) : link_bucket(f, bs + i, j - i, &t);
            i = j;
        }
        free(bs);
        free(varies);
    } else {
        for (size_t a = 0; a < L && !rc; a++) {
            for (size_t b = a + 1; b < L && !rc; b++) {
                size_t n;
                differing(f, a, b, NULL, &n);
                /* the related group counts as one step */
                if (grouped && n > 1 && f->lanes[a].segs[g1] != f->lanes[b].segs[g1] &&
                    f->lanes[a].segs[g2] != f->lanes[b].segs[g2])
                    n--;
                if (n == 0 || n > (size_t)width) continue;
                t.len = 0;
                differing(f, a, b, &t, &n);
                if (t.failed) break;
                if (f->lanes[a].n_adj < ADJACENT_WIDE_MAX)
                    rc = add_adjacent(f, &f->lanes[a], b, t.data);
                if (!rc && f->lanes[b].n_adj < ADJACENT_WIDE_MAX)
                    rc = add_adjacent(f, &f->lanes[b], a, t.data);
                f->lanes[a].adj_total++;
                f->lanes[b].adj_total++;
            }
        }
    }
    if (!rc && t.failed) rc = mcpp_error_nomem();
    mcpp_sb_free(&t);
    /* Adjacent lanes in lane order (insertion sort: lists are short). */
    for (size_t l = 0; l < L; l++) {
        frontier_lane *x = &f->lanes[l];
        for (size_t i = 1; i < x->n_adj; i++) {
            size_t a = x->adj[i];
            const char *d = x->adj_dims[i];
            size_t j = i;
            for (; j > 0 && x->adj[j - 1] > a; j--) {
                x->adj[j] = x->adj[j - 1];
                x->adj_dims[j] = x->adj_dims[j - 1];
            }
            x->adj[j] = a;
            x->adj_dims[j] = d;
        }
    }
    return rc;
}

static int compare_lanes(const void *a, const void *b)
{
    const frontier_lane *x = a, *y = b;
    return strcmp(mcpp_lane_summary_key(x->summary), mcpp_lane_summary_key(y->summary));
}

/* The working state of one frontier build: the lane table, the (lane, id)
 * pairs seen, and scratch for formatting a new lane's key. */
typedef struct frontier_builder {
    mcpp_frontier *f;
    const mcpp_policy *p;
    const char *metric;
    slot *table; /* lane hash -> lane, open addressing */
    size_t table_cap;
    uint64_t *lane_hash; /* per lane, to rehash on growth */
    size_t hash_cap;
    /* (lane, id) pairs seen: the same run loaded twice (say as JSON and as
     * YAML) must not count as two runs. Open addressing, 2n slots. */
    slot *ids_seen;
    const char **ids_text;
    size_t ids_cap;
    mcpp_strbuf key;
    uint64_t *segs_tmp;
    const mcpp_receipt *const *receipts; /* being grouped */
} frontier_builder;

static void builder_release(frontier_builder *b)
{
    mcpp_sb_free(&b->key);
    free(b->segs_tmp);
    free(b->table);
    free(b->lane_hash);
    free(b->ids_seen);
    free(b->ids_text);
}

/* The policy name and key dimension names a frontier keeps. */
static int name_dimensions(mcpp_frontier *f, const mcpp_policy *p)
{
    f->key_dims = mcpp_lane_key_dim_count(p);
    f->policy_name = mcpp_strdup(p->name, NULL);
    mcpp_policy_digest_fill(f->policy_digest, p);
    f->dim_names = calloc(f->key_dims ? f->key_dims : 1, sizeof *f->dim_names);
    if (!f->policy_name || !f->dim_names)
        return mcpp_error_nomem();
    for (size_t k = 0; k < f->key_dims; k++)
        MCPP_CHECK_ALLOC(f->dim_names[k] = mcpp_strdup(mcpp_lane_key_dim_name(p, k), NULL));
    return MCPP_OK;
}

static int builder_init(frontier_builder *b, mcpp_frontier *f, const mcpp_policy *p, size_t n, const char *metric)
{
    memset(b, 0, sizeof *b);
    b->f = f;
    b->p = p;
    b->metric = metric;
    b->ids_cap = 16;
    while (b->ids_cap < 2 * n) b->ids_cap *= 2;
    b->ids_seen = malloc(b->ids_cap * sizeof *b->ids_seen);
    b->ids_text = malloc(b->ids_cap * sizeof *b->ids_text);
    if (b->ids_seen)
        for (size_t i = 0; i < b->ids_cap; i++) b->ids_seen[i].lane = SIZE_MAX;
    mcpp_sb_init_heap(&b->key, 1024);
    f->n_receipts = n;
    size_t dims = mcpp_lane_key_dim_count(p);
    b->segs_tmp = malloc((dims ? dims : 1) * sizeof *b->segs_tmp);
    if (!b->segs_tmp || b->key.failed || !b->ids_seen || !b->ids_text)
        return mcpp_error_nomem();
    return name_dimensions(f, p);
}

/* Makes room for one more lane in the lanes, lane hashes and segments. */
static int reserve_lane(frontier_builder *b)
{
    mcpp_frontier *f = b->f;
    size_t dims = f->key_dims ? f->key_dims : 1;
    MCPP_CHECK_ARRAY(f->lanes, f->cap_lanes, f->n_lanes + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(b->lane_hash, b->hash_cap, f->n_lanes + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(f->segs, f->cap_segs, (f->n_lanes + 1) * dims, MCPP_ARRAY_MAX_ITEMS);
    return MCPP_OK;
}

/* Opens a lane for receipt r (lane hash h) at table slot pos. */
static int add_lane(frontier_builder *b, const mcpp_receipt *r, uint64_t h, size_t pos, size_t *lane_out)
{
    mcpp_frontier *f = b->f;
    int rc = reserve_lane(b);
    if (rc) return rc;
    b->key.len = 0;
    mcpp_lane_key_append(&b->key, b->p, r, b->segs_tmp);
    if (b->key.failed) return mcpp_error_nomem();
    size_t lane = f->n_lanes;
    frontier_lane *l = &f->lanes[lane];
    memset(l, 0, sizeof *l);
    l->rep = r;
    if ((rc = mcpp_lane_summary_create(&l->summary, b->p, b->metric, b->key.data)) != 0) return rc;
    f->n_lanes++;
    if (f->key_dims) memcpy(f->segs + lane * f->key_dims, b->segs_tmp, f->key_dims * sizeof *b->segs_tmp);
    b->lane_hash[lane] = h;
    b->table[pos].hash = h;
    b->table[pos].lane = lane;
    *lane_out = lane;
    return MCPP_OK;
}

/* The lane of receipt r, opened when new. The raw-value hash h finds the
 * lane and a field-by-field check confirms it, unless r is already known to
 * be of the lane whose first receipt is `same_as` (may be NULL). The key text
 * is formatted once, for a new lane. */
static int lane_for(frontier_builder *b, const mcpp_receipt *r, uint64_t h, const mcpp_receipt *same_as,
                    size_t *lane_out)
{
    mcpp_frontier *f = b->f;
    int rc;
    if ((f->n_lanes + 1) * 2 > b->table_cap &&
        (rc = table_grow(&b->table, &b->table_cap, f->lanes, f->n_lanes, b->lane_hash)) != 0)
        return rc;
    size_t pos = (size_t)h & (b->table_cap - 1);
    while (b->table[pos].lane != SIZE_MAX) {
        const mcpp_receipt *rep = f->lanes[b->table[pos].lane].rep;
        if (b->table[pos].hash == h && (rep == same_as || mcpp_lane_same(b->p, rep, r))) {
            *lane_out = b->table[pos].lane;
            return MCPP_OK;
        }
        pos = (pos + 1) & (b->table_cap - 1);
    }
    return add_lane(b, r, h, pos, lane_out);
}

/* 1 when (lane, id of r) was seen before; else records it and returns 0. */
static int seen_before(frontier_builder *b, size_t lane, const mcpp_receipt *r)
{
    const char *rid = mcpp_receipt_id(r);
    if (!rid) rid = "";
    uint64_t ih = mcpp_fnv1a(rid, strlen(rid), mcpp_fnv1a(&lane, sizeof lane, MCPP_FNV_OFFSET));
    size_t ipos = (size_t)ih & (b->ids_cap - 1);
    while (b->ids_seen[ipos].lane != SIZE_MAX) {
        if (b->ids_seen[ipos].hash == ih && b->ids_seen[ipos].lane == lane && strcmp(b->ids_text[ipos], rid) == 0)
            return 1;
        ipos = (ipos + 1) & (b->ids_cap - 1);
    }
    b->ids_seen[ipos].hash = ih;
    b->ids_seen[ipos].lane = lane;
    b->ids_text[ipos] = rid;
    return 0;
}

/* Puts the lanes in key order (segments follow their lane) and renumbers lane_of. */
static int sort_lanes(mcpp_frontier *f, size_t n, size_t *lane_of)
{
    size_t *order = malloc((f->n_lanes ? f->n_lanes : 1) * sizeof *order);
    MCPP_CHECK_ALLOC(order);
    /* the lanes are all there: their arrays lose the slack of doubling (a lane is ~160 bytes) */
    MCPP_ARRAY_FIT(f->lanes, f->cap_lanes, f->n_lanes);
    if (f->key_dims)
        MCPP_ARRAY_FIT(f->segs, f->cap_segs, f->n_lanes * f->key_dims);
    for (size_t l = 0; l < f->n_lanes; l++) f->lanes[l].segs = f->segs + l * f->key_dims;
    for (size_t l = 0; l < f->n_lanes; l++) f->lanes[l].n_adj = l; /* remember the old index */
    if (f->n_lanes > 1) qsort(f->lanes, f->n_lanes, sizeof *f->lanes, compare_lanes);
    for (size_t l = 0; l < f->n_lanes; l++) {
        order[f->lanes[l].n_adj] = l;
        f->lanes[l].n_adj = 0;
    }
    if (lane_of)
        for (size_t i = 0; i < n; i++) lane_of[i] = order[lane_of[i]];
    free(order);
    return MCPP_OK;
}

/* Copies the lane's excluded runs out of its summary (ids own, reasons borrowed). */
static int list_excluded(frontier_lane *x)
{
    size_t n = 0;
    const char **texts = mcpp_lane_summary_excluded_sorted(x->summary, &n);
    MCPP_CHECK_ALLOC(texts);
    if (!n) {
        free(texts);
        return MCPP_OK;
    }
    x->excluded_ids = calloc(n, sizeof *x->excluded_ids);
    x->excluded_reasons = calloc(n, sizeof *x->excluded_reasons);
    int rc = x->excluded_ids && x->excluded_reasons ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; !rc && i < n; i++) {
        const char *sep = strchr(texts[i], '\x1f');
        size_t id_len = sep ? (size_t)(sep - texts[i]) : strlen(texts[i]);
        x->excluded_reasons[i] = sep ? sep + 1 : "";
        if (!(x->excluded_ids[i] = mcpp_strndup(texts[i], id_len, NULL)))
            rc = mcpp_error_nomem();
        else x->n_excluded++;
    }
    free(texts);
    return rc;
}

/* Labels every lane, with its short key, ids, excluded runs and label. */
static int evaluate_lanes(mcpp_frontier *f)
{
    int rc = MCPP_OK;
    for (size_t l = 0; l < f->n_lanes && !rc; l++) {
        frontier_lane *x = &f->lanes[l];
        const char *k = mcpp_lane_summary_key(x->summary);
        mcpp_lane_key_short(x->short_key, sizeof x->short_key, k);
        mcpp_lane_summary_fit(x->summary); /* kept as it is from here on */
        if ((rc = mcpp_lane_summary_eval_cached(x->summary, &x->eval)) != 0)
            break;
        if (x->eval->status == MCPP_LANE_STABLE)
            f->n_stable++;
        x->ids = mcpp_lane_summary_sorted_ids(x->summary, &x->n_ids);
        const char *label = mcpp_lane_summary_label(x->summary);
        x->label = label ? label : x->short_key;
        if (!x->ids)
            rc = mcpp_error_nomem();
        if (!rc) rc = list_excluded(x);
    }
    return rc;
}

/* ---- Telling lanes apart ------------------------------------------------------------- */

/* Lanes with the same label, at most this many per lane, count as neighbours. */
#define MAX_NAMESAKES 64

static int compare_labels(const void *a, const void *b)
{
    const frontier_lane *const *x = a, *const *y = b;
    int c = strcmp((*x)->label, (*y)->label);
    return c ? c : (*x < *y ? -1 : *x > *y);
}

/* A lane's neighbours are its adjacent lanes and the lanes that share its
 * label; its differences from them go next to its label everywhere it shows. */
static int describe_lane(frontier_lane *l, const mcpp_frontier *f, const mcpp_policy *p,
                         frontier_lane *const *by_label, size_t first, size_t count, const char **keys)
{
    size_t n = 0;
    for (size_t a = 0; a < l->n_adj; a++) keys[n++] = mcpp_lane_summary_key(f->lanes[l->adj[a]].summary);
    for (size_t i = first; i < first + count && i < first + MAX_NAMESAKES; i++)
        if (by_label[i] != l) keys[n++] = mcpp_lane_summary_key(by_label[i]->summary);
    int rc = mcpp_lane_key_differences(&l->differences, p, mcpp_lane_summary_key(l->summary), keys, n);
    if (rc) return rc;
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 64);
    mcpp_sb_puts(&b, l->label);
    if (*l->differences) mcpp_sb_printf(&b, " (%s)", l->differences);
    return mcpp_sb_finish(&b, &l->display_label);
}

static int describe_lanes(mcpp_frontier *f, const mcpp_policy *p)
{
    size_t L = f->n_lanes, most_adjacent = 0;
    for (size_t l = 0; l < L; l++)
        if (f->lanes[l].n_adj > most_adjacent) most_adjacent = f->lanes[l].n_adj;
    frontier_lane **by_label = malloc((L ? L : 1) * sizeof *by_label);
    const char **keys = malloc((most_adjacent + MAX_NAMESAKES) * sizeof *keys);
    int rc = by_label && keys ? MCPP_OK : mcpp_error_nomem();
    for (size_t l = 0; !rc && l < L; l++) by_label[l] = &f->lanes[l];
    if (!rc && L > 1) qsort(by_label, L, sizeof *by_label, compare_labels);
    for (size_t i = 0; !rc && i < L;) {
        size_t j = i + 1;
        while (j < L && strcmp(by_label[j]->label, by_label[i]->label) == 0) j++;
        for (size_t k = i; !rc && k < j; k++) rc = describe_lane(by_label[k], f, p, by_label, i, j - i, keys);
        i = j;
    }
    free(by_label);
    free(keys);
    return rc;
}

/* Orders the lanes by key (remapping lane_of), evaluates and labels them, and
 * finds adjacency: the part of building shared with mcpp_frontier_from_summaries.
 * For summaries only, adjacency and the lanes' descriptions are left out. */
static int finish(mcpp_frontier *f, const mcpp_policy *p, size_t *lane_of, size_t n, int summaries_only)
{
    int rc = sort_lanes(f, n, lane_of);
    if (!rc) rc = evaluate_lanes(f);
    if (!rc && !summaries_only) {
        rc = find_adjacency(f, p->adjacency_width);
        if (!rc)
            rc = describe_lanes(f, p);
    }
    /* What only building needed goes, and the kept lists lose their slack. */
    free(f->segs);
    f->segs = NULL;
    f->cap_segs = 0;
    for (size_t l = 0; l < f->n_lanes; l++) {
        frontier_lane *x = &f->lanes[l];
        size_t cap_dims = x->cap_adj;
        x->segs = NULL;
        MCPP_ARRAY_FIT(x->adj_dims, cap_dims, x->n_adj);
        MCPP_ARRAY_FIT(x->adj, x->cap_adj, x->n_adj);
    }
    return rc;
}

/* Records in its lane that receipts a and b, both counted, are not comparable
 * (their rules say so, since their keys are equal). */
static int add_pair_conflict(const mcpp_policy *p, mcpp_lane_summary *s, const mcpp_receipt *a,
                             const mcpp_receipt *b)
{
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, a, b);
    if (rc) return rc;
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 256);
    mcpp_sb_printf(&t, "runs %s and %s are not comparable under policy '%s' (%s)", mcpp_receipt_id(a),
                   mcpp_receipt_id(b), p->name, mcpp_verdict_name(mcpp_comparison_verdict(c)));
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        int st = mcpp_comparison_row_status(c, i);
        if (st != MCPP_DIM_MISMATCH && st != MCPP_DIM_MISSING) continue;
        mcpp_sb_printf(&t, ": %s: %s", mcpp_comparison_row_dimension(c, i), mcpp_comparison_row_reason(c, i));
    }
    mcpp_comparison_free(c);
    rc = t.failed ? mcpp_error_nomem() : mcpp_lane_summary_add_conflict(s, t.data);
    mcpp_sb_free(&t);
    return rc;
}

/*
 * With custom rules two counted receipts of one lane may still be not
 * comparable: a rule may read fields outside the lane key. Every pair of a
 * lane's clean receipts is compared; the first pair that is not comparable
 * makes the lane unstable. Without rules the pair verdict of two clean
 * receipts with equal keys is at worst qualified, so nothing is compared.
 *
 * This is quadratic in a lane's runs, so it runs only for rules that see both
 * sides (`fn = function(base, cand)`, or a C rule). A per-run rule (`each =
 * function(run, side)`, as strict.lua's) answers for each side on its own, and
 * a clean receipt passed it as base and as candidate against itself, so any two
 * clean receipts pass it together: comparing them could find nothing
 * (test_frontier_rules.c checks that both give the same frontier).
 */
static int has_pair_rules(const mcpp_policy *p)
{
    for (size_t i = 0; i < p->n_rules; i++)
        if (!p->rules[i].per_run) return 1;
    return 0;
}

static int check_rule_pairs(frontier_builder *b, const mcpp_receipt *const *receipts, size_t n,
                            const size_t *lane_of, const unsigned char *clean)
{
    size_t L = b->f->n_lanes;
    size_t *start = calloc(L + 1, sizeof *start), *order = malloc((n ? n : 1) * sizeof *order);
    unsigned char *done = calloc(L ? L : 1, 1);
    int rc = start && order && done ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; !rc && i < n; i++) start[lane_of[i] + 1] += clean[i];
    for (size_t l = 0; !rc && l < L; l++) start[l + 1] += start[l];
    for (size_t i = 0, *fill = start; !rc && i < n; i++)
        if (clean[i]) order[fill[lane_of[i]]++] = i;
    for (size_t l = L; !rc && l > 0; l--) start[l] = start[l - 1]; /* the fill moved each start to the next */
    if (!rc) start[0] = 0;
    for (size_t l = 0; !rc && l < L; l++) {
        for (size_t x = start[l]; !rc && !done[l] && x < start[l + 1]; x++) {
            for (size_t y = x + 1; !rc && !done[l] && y < start[l + 1]; y++) {
                const mcpp_receipt *ra = receipts[order[x]], *rb = receipts[order[y]];
                mcpp_verdict v;
                if ((rc = mcpp_compare_verdict(&v, b->p, ra, rb)) != 0) break;
                if (v == MCPP_VERDICT_COMPARABLE || v == MCPP_VERDICT_QUALIFIED) continue;
                rc = add_pair_conflict(b->p, b->f->lanes[l].summary, ra, rb);
                done[l] = 1;
            }
        }
    }
    free(start);
    free(order);
    free(done);
    return rc;
}

/* Puts receipt r in its lane: *lane_of gets the lane, *clean whether r
 * counted and is comparable with itself. `known` (may be NULL) holds its
 * hash and self-verdict, computed ahead. */
static int add_to_lane(frontier_builder *b, const mcpp_receipt *r, const mcpp_frontier_pre *known, size_t *lane_of,
                       unsigned char *clean)
{
    size_t lane = SIZE_MAX;
    int rc = known ? lane_for(b, r, known->hash, known->same_as_first ? b->receipts[known->first] : NULL, &lane)
                   : lane_for(b, r, mcpp_lane_key_hash(b->p, r), NULL, &lane);
    if (rc) return rc;
    if (lane_of) *lane_of = lane;
    if (clean) *clean = 0;
    if (seen_before(b, lane, r)) {
        b->f->n_duplicates++;
        return MCPP_OK;
    }
    int ok = 0;
    mcpp_lane_summary *s = b->f->lanes[lane].summary;
    rc = known ? mcpp_lane_summary_add_known(s, r, &ok, known->self) : mcpp_lane_summary_add_checked(s, r, &ok);
    if (!rc && clean) *clean = (unsigned char)ok;
    return rc;
}

/* Groups the receipts into lanes, skipping repeated runs; clean[i] (when not
 * NULL) says whether receipt i counted and is comparable with itself. Large
 * inputs have their hashes and self-verdicts computed ahead on worker
 * threads (frontier_prepass.c); the grouping stays in input order. */
static int group_receipts(frontier_builder *b, const mcpp_receipt *const *receipts, size_t n, size_t *lane_of,
                          unsigned char *clean)
{
    for (size_t i = 0; i < n; i++) MCPP_CHECK_ARG(receipts[i], "receipt %zu is NULL", i);
    b->receipts = receipts;
    mcpp_frontier_pre *pre = mcpp_frontier_prepass(b->p, receipts, n);
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_to_lane(b, receipts[i], pre && pre[i].ok ? &pre[i] : NULL, lane_of ? &lane_of[i] : NULL,
                         clean ? &clean[i] : NULL);
    free(pre);
    return rc;
}

int mcpp_frontier_build_lanes(mcpp_frontier **out, const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t n,
                              const char *metric, size_t *lane_of, int summaries_only)
{
    *out = NULL;
    mcpp_metric_ref ref; /* refused here, before any work, when malformed */
    if (mcpp_metric_ref_init(&ref, metric, 1) != MCPP_OK) return MCPP_EARG;
    mcpp_frontier *f = calloc(1, sizeof *f);
    MCPP_CHECK_ALLOC(f);
    frontier_builder b;
    int rc = builder_init(&b, f, p, n, metric);
    /* Pair rules need each receipt's lane (before the lanes are sorted) and whether it is clean. */
    int pairs = has_pair_rules(p);
    size_t *lanes = pairs ? malloc((n ? n : 1) * sizeof *lanes) : NULL;
    unsigned char *clean = pairs ? malloc(n ? n : 1) : NULL;
    if (!rc && pairs && (!lanes || !clean)) rc = mcpp_error_nomem();
    if (!rc) rc = group_receipts(&b, receipts, n, lanes ? lanes : lane_of, clean);
    if (!rc && pairs) rc = check_rule_pairs(&b, receipts, n, lanes, clean);
    if (!rc && lanes && lane_of) memcpy(lane_of, lanes, n * sizeof *lanes);
    if (!rc)
        rc = finish(f, p, lane_of, n, summaries_only);
    free(lanes);
    free(clean);
    builder_release(&b);
    if (rc) {
        mcpp_frontier_free(f);
        return rc;
    }
    *out = f;
    return MCPP_OK;
}

int mcpp_frontier_build_metric(mcpp_frontier **out, const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t n,
                               const char *metric, size_t *lane_of)
{
    return mcpp_frontier_build_lanes(out, p, receipts, n, metric, lane_of, 0);
}

int mcpp_frontier_build(mcpp_frontier **out, const mcpp_policy *policy, const mcpp_receipt *const *receipts, size_t n)
{
    MCPP_CHECK_ARG(out, "mcpp_frontier_build: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG(!n || receipts, "mcpp_frontier_build: NULL receipts");
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    return mcpp_frontier_build_metric(out, p, receipts, n, p->gate.metric, NULL);
}

/* ---- Accessors --------------------------------------------------------------------------- */

static const frontier_lane *lane_at(const mcpp_frontier *f, size_t i)
{
    return f && i < f->n_lanes ? &f->lanes[i] : NULL;
}

const mcpp_lane_eval *mcpp_frontier_lane_eval(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->eval : NULL;
}

size_t mcpp_frontier_lane_count(const mcpp_frontier *f) { return f ? f->n_lanes : 0; }
size_t mcpp_frontier_stable_count(const mcpp_frontier *f) { return f ? f->n_stable : 0; }

const char *mcpp_frontier_lane_key(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? mcpp_lane_summary_key(l->summary) : NULL;
}

const char *mcpp_frontier_lane_short_key(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->short_key : NULL;
}

const char *mcpp_frontier_lane_label(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->label : NULL;
}

const char *mcpp_frontier_lane_differences(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->differences : NULL;
}

const char *mcpp_frontier_lane_display_label(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->display_label : NULL;
}

int mcpp_frontier_lane_status(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? (int)l->eval->status : -1;
}

size_t mcpp_frontier_lane_receipt_count(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->n_ids : 0;
}

const char *mcpp_frontier_lane_receipt_id(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->n_ids ? l->ids[index] : NULL;
}

int mcpp_frontier_lane_headline(mcpp_lane_headline *out, const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    MCPP_CHECK_ARG(out && l, "lane %zu out of range", lane);
    int rc = mcpp_lane_headline_version_ok(out);
    if (rc != MCPP_OK)
        return rc;
    if (!l->eval->has_headline)
        return mcpp_error_raise(MCPP_ENOTFOUND, MCPP_ERROR_KIND_MISSING, "lane has no headline");
    return mcpp_lane_headline_put(out, &l->eval->headline);
}

size_t mcpp_frontier_lane_reason_count(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->eval->n_reasons : 0;
}

const char *mcpp_frontier_lane_reason(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->eval->n_reasons ? l->eval->reasons[index] : NULL;
}

size_t mcpp_frontier_lane_excluded_count(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->n_excluded : 0;
}

const char *mcpp_frontier_lane_excluded_id(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->n_excluded ? l->excluded_ids[index] : NULL;
}

const char *mcpp_frontier_lane_excluded_reason(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->n_excluded ? l->excluded_reasons[index] : NULL;
}

const char *mcpp_frontier_lane_blocker(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->eval->blocker : NULL;
}

size_t mcpp_frontier_lane_adjacent_count(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->n_adj : 0;
}

size_t mcpp_frontier_lane_adjacent_total(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->adj_total : 0;
}

size_t mcpp_frontier_lane_adjacent_index(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->n_adj ? l->adj[index] : SIZE_MAX;
}

const char *mcpp_frontier_lane_adjacent_dimensions(const mcpp_frontier *f, size_t lane, size_t index)
{
    const frontier_lane *l = lane_at(f, lane);
    return l && index < l->n_adj ? l->adj_dims[index] : NULL;
}

int mcpp_frontier_find_lane(size_t *out, const mcpp_frontier *f, const char *key)
{
    MCPP_CHECK_ARG(out && f && key, "mcpp_frontier_find_lane: NULL argument");
    /* A full key by binary search: the lanes are in key order (sort_lanes),
     * and the gate looks up every candidate's lane (a scan made that
     * quadratic: 16,000 candidates spent a third of the gate in strcmp). */
    size_t lo = 0, hi = f->n_lanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(mcpp_lane_summary_key(f->lanes[mid].summary), key);
        if (c == 0) {
            *out = mid;
            return MCPP_OK;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = 0; i < f->n_lanes; i++) { /* a short key */
        if (strcmp(f->lanes[i].short_key, key) == 0) {
            *out = i;
            return MCPP_OK;
        }
    }
    return mcpp_error_raise(MCPP_ENOTFOUND, MCPP_ERROR_KIND_MISSING, "no lane with key '%s'", key);
}

const char *mcpp_frontier_policy_name(const mcpp_frontier *f) { return f ? f->policy_name : NULL; }
const char *mcpp_frontier_policy_digest(const mcpp_frontier *f) { return f ? f->policy_digest : NULL; }
size_t mcpp_frontier_receipt_total(const mcpp_frontier *f) { return f ? f->n_receipts : 0; }
size_t mcpp_frontier_duplicate_count(const mcpp_frontier *f) { return f ? f->n_duplicates : 0; }
size_t mcpp_frontier_key_dim_count(const mcpp_frontier *f) { return f ? f->key_dims : 0; }

/* ---- From lane summaries ---------------------------------------------------------------- */

static int compare_summary_keys(const void *a, const void *b)
{
    return strcmp(mcpp_lane_summary_key(*(const mcpp_lane_summary *const *)a),
                  mcpp_lane_summary_key(*(const mcpp_lane_summary *const *)b));
}

/* The segment hashes of a key text, as mcpp_lane_key_append makes them: the
 * key split at its unescaped ';'. */
static void key_segments(uint64_t *segs, size_t dims, const char *key)
{
    const char *start = key;
    size_t k = 0;
    for (const char *c = key;; c++) {
        if (*c == '\\' && c[1]) {
            c++;
            continue;
        }
        if (*c != ';' && *c) continue;
        if (k < dims) segs[k++] = mcpp_fnv1a(start, (size_t)(c - start), MCPP_FNV_OFFSET);
        if (!*c) break;
        start = c + 1;
    }
    while (k < dims) segs[k++] = 0;
}

/* Appends one lane: a fresh summary merging sorted[0..n) (all of one key). */
static int add_merged_lane(mcpp_frontier *f, const mcpp_policy *p, const mcpp_lane_summary *const *same, size_t n)
{
    frontier_lane *l = &f->lanes[f->n_lanes];
    memset(l, 0, sizeof *l);
    const char *key = mcpp_lane_summary_key(same[0]);
    int rc = mcpp_lane_summary_create(&l->summary, p, mcpp_lane_summary_metric(same[0]), key);
    for (size_t i = 0; !rc && i < n; i++) rc = mcpp_lane_summary_merge(l->summary, same[i]);
    if (rc) {
        mcpp_lane_summary_free(l->summary);
        return rc;
    }
    key_segments(f->segs + f->n_lanes * f->key_dims, f->key_dims, key);
    f->n_receipts += mcpp_lane_summary_receipt_count(l->summary);
    f->n_lanes++;
    return MCPP_OK;
}

int mcpp_frontier_from_summaries(mcpp_frontier **out, const mcpp_policy *policy,
                                 const mcpp_lane_summary *const *summaries, size_t n, size_t duplicates)
{
    if (!out) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_frontier_from_summaries: NULL out");
    *out = NULL;
    if (n && !summaries)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_frontier_from_summaries: NULL summaries");
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    for (size_t i = 0; i < n; i++) {
        if (!summaries[i]) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "summary %zu is NULL", i);
        if (mcpp_lane_summary_policy(summaries[i]) != p ||
            strcmp(mcpp_lane_summary_metric(summaries[i]), mcpp_lane_summary_metric(summaries[0])) != 0)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, NULL, 0, 0,
                                  "summary %zu was made under another policy or metric than the frontier's", i);
    }
    mcpp_frontier *f = calloc(1, sizeof *f);
    const mcpp_lane_summary **sorted = malloc((n ? n : 1) * sizeof *sorted);
    int rc = f && sorted ? name_dimensions(f, p) : mcpp_error_nomem();
    if (!rc) {
        f->lanes = calloc(n ? n : 1, sizeof *f->lanes);
        f->segs = calloc((n ? n : 1) * (f->key_dims ? f->key_dims : 1), sizeof *f->segs);
        f->cap_lanes = n;
        if (!f->lanes || !f->segs) rc = mcpp_error_nomem();
    }
    size_t m = 0; /* summaries without receipts say nothing */
    for (size_t i = 0; !rc && i < n; i++)
        if (mcpp_lane_summary_receipt_count(summaries[i])) sorted[m++] = summaries[i];
    if (!rc && m > 1) qsort(sorted, m, sizeof *sorted, compare_summary_keys);
    for (size_t i = 0; !rc && i < m;) {
        size_t j = i + 1;
        while (j < m && strcmp(mcpp_lane_summary_key(sorted[j]), mcpp_lane_summary_key(sorted[i])) == 0) j++;
        rc = add_merged_lane(f, p, sorted + i, j - i);
        i = j;
    }
    free(sorted);
    if (!rc) {
        f->n_receipts += duplicates;
        f->n_duplicates = duplicates;
        rc = finish(f, p, NULL, 0, 0);
    }
    if (rc) {
        mcpp_frontier_free(f);
        return rc;
    }
    *out = f;
    return MCPP_OK;
}

const mcpp_lane_summary *mcpp_frontier_lane_summary(const mcpp_frontier *f, size_t lane)
{
    const frontier_lane *l = lane_at(f, lane);
    return l ? l->summary : NULL;
}
