/*
 * mcpp_receipts/frontier.h — lanes, the frontier report, claims (the
 * benchmark-laundering check) and mergeable lane summaries.
 *
 * A lane is the set of receipts whose must-match dimensions (policy.h) have
 * the same canonical values. Its key is canonical text:
 *
 *     dimension=value|value;dimension=value...
 *
 * dimensions in policy order, fields in dimension order, each value in the
 * canonical form of the receipt writer (integers in decimal, numbers in
 * shortest round-trip form, strings verbatim with '\\', ';', '|' and '='
 * escaped by '\\'), "-" for an absent field. The key therefore does not depend
 * on field order, on JSON vs YAML, or on the platform. The short form
 * "lane-" + 12 hex digits is the first 48 bits of the 64-bit FNV-1a hash of
 * the key text.
 *
 * Every receipt is first compared with itself under the policy (dimensions,
 * required fields, built-in checks and custom rules):
 *   - a must-match key dimension not stated makes the lane `insufficient`
 *     (never stable: its key does not say what the number is about);
 *   - a receipt whose request was not met (backend.fallbacks non-empty or
 *     requested != observed), or that lacks evidence the policy requires
 *     (a required field, a rule answering insufficient), is listed as
 *     excluded from the headline with its reason and counts for nothing else;
 *   - a receipt not comparable even with itself (a rule's mismatch) makes the
 *     lane unstable, as does a failed kernel verification.
 * When the policy has custom rules, mcpp_frontier_build also compares every
 * pair of the lane's counted receipts: a pair the rules call not comparable
 * makes the lane unstable (summaries of partitions are checked within their
 * partition only). A lane is stable when it has at least noise.min_runs
 * counted receipts with outcome ok, no failed outcome, no failed
 * verification, a relative spread (p90-p10)/median of its headline under
 * noise.max_rel_spread (across runs; within the step values when it has a
 * single run), and no receipt claiming stability unstable or blocked.
 * Otherwise it is unstable, with every reason.
 * Two lanes are adjacent when their keys differ in at most the policy's
 * adjacency width of dimensions (default 1).
 *
 * The headline of a lane: the policy's gate metric. With two or more runs its
 * values are the runs' stated metric; with one run, the per-step values of
 * compare.h. Median, and the distribution-free interval for the median from
 * order statistics (binomial); its achieved confidence is reported (with few
 * values the interval is [min, max] and the confidence is below the asked one).
 *
 * Ownership as everywhere: `out` objects belong to the caller and have a
 * NULL-safe _free; accessor strings are borrowed from the object; rendered
 * text is freed with mcpp_free(). Receipts and policies passed in are borrowed
 * for the call only, except where a function says otherwise.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_FRONTIER_H
#define MCPP_RECEIPTS_FRONTIER_H

#include "compare.h"
#include "policy.h"
#include "receipt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Lane keys ------------------------------------------------------------------ */

/* The canonical lane key of `receipt` under `policy` (NULL: default). *out is
 * NUL-terminated; free with mcpp_free(). */
MCPP_API int mcpp_lane_key(char **out, const mcpp_policy *policy, const mcpp_receipt *receipt);

/* The short form of a key ("lane-" + 12 hex digits) into buf (cap >= 18).
 * Returns MCPP_OK or MCPP_EARG. */
MCPP_EXPERIMENTAL int mcpp_lane_key_short(char *buf, size_t cap, const char *key);

typedef enum mcpp_lane_status {
    MCPP_LANE_STABLE = 0,
    MCPP_LANE_UNSTABLE = 1,
    MCPP_LANE_INSUFFICIENT = 2 /* the lane key lacks what the policy requires to match */
} mcpp_lane_status;

/* "stable", "unstable", "insufficient"; "unknown" otherwise. Static. */
MCPP_EXPERIMENTAL const char *mcpp_lane_status_name(mcpp_lane_status status);

/* The headline of one lane, filled by the functions below. Declare it with
 * MCPP_LANE_HEADLINE_INIT: `version` tells the library the layout the caller
 * was compiled with, and only that layout's fields are written (a version 1
 * caller gets no `unit`, and nothing past its struct); a version the library
 * does not know (0, or newer than it) is refused with MCPP_EARG. Strings are
 * borrowed. */
#define MCPP_LANE_HEADLINE_VERSION 2u
typedef struct mcpp_lane_headline {
    unsigned int version;  /* MCPP_LANE_HEADLINE_VERSION                             */
    const char *metric;    /* the metric's name ("tokens_per_s", "time_to_train_s")   */
    int higher_is_better;
    double median;
    double interval_low;   /* interval for the median                                 */
    double interval_high;
    double confidence;     /* achieved two-sided confidence of that interval          */
    size_t n;              /* values the median is taken over                         */
    size_t n_runs;         /* receipts that stated the metric                         */
    double rel_spread;     /* (p90-p10)/median of those values                        */
    int from_steps;        /* 1 when the values are one run's step values             */
    const char *unit;      /* version 2: the runs' unit for the metric, NULL if none  */
} mcpp_lane_headline;

#define MCPP_LANE_HEADLINE_INIT {MCPP_LANE_HEADLINE_VERSION, NULL, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0.0, 0, NULL}

/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* ---- Mergeable lane summaries ----------------------------------------------------- */

/*
 * Everything the frontier needs to know about one lane, computed from a
 * multiset of receipts such that summaries of disjoint sets merge into exactly
 * the summary of their union: it keeps counts, flags, reasons as sets and the
 * headline values themselves (exact quantiles; merging is multiset union,
 * about 8 bytes per value). A distributed engine builds summaries per
 * partition and merges them.
 *
 * The summary borrows `policy`, which must outlive it. `metric` (a metric
 * name, "primary" or a schema path; docs/metrics.md) NULL means the policy's
 * gate metric (copied); a malformed name is MCPP_EARG. The status, reason and headline accessors
 * evaluate once and cache the result until the next add or merge, so calls on
 * one summary must not run concurrently (different summaries are independent).
 */
/* Thread safety: not safe to share while calls overlap, even reads (see above). */
typedef struct mcpp_lane_summary mcpp_lane_summary;

MCPP_EXPERIMENTAL int mcpp_lane_summary_new(mcpp_lane_summary **out, const mcpp_policy *policy, const char *metric);
MCPP_EXPERIMENTAL void mcpp_lane_summary_free(mcpp_lane_summary *summary); /* NULL-safe */

/* Adds one receipt. The first receipt sets the lane key; a receipt of another
 * lane is refused with MCPP_EINVALID. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_add(mcpp_lane_summary *summary, const mcpp_receipt *receipt);
/* Merges `from` into `into` (from is unchanged). Keys must agree (an empty
 * summary agrees with any), as must metric and policy: MCPP_EINVALID otherwise. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_merge(mcpp_lane_summary *into, const mcpp_lane_summary *from);
/* 1 when both summarise the same multiset (same key, counts, flags, reasons,
 * receipt ids and headline values), else 0. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_equal(const mcpp_lane_summary *a, const mcpp_lane_summary *b);
/* Canonical JSON of the summary (sorted sets), equal text for equal summaries:
 * {key, receipts, ok, failed, status, reasons, headline, values}. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_serialize(char **out, const mcpp_lane_summary *summary);

/* Reads the text of mcpp_lane_summary_serialize back (another process or
 * machine made it). `policy` is borrowed as by _new and must have the settings
 * the summary was made under: the status and reasons are derived again and
 * must equal those in the text, else MCPP_EINVALID; malformed text is
 * MCPP_EINVALID too, naming the offending member. len: bytes of text. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_deserialize(mcpp_lane_summary **out, const mcpp_policy *policy,
                                                    const char *text, size_t len);
/* The receipt ids the summary holds more than once, as a sorted JSON array of
 * strings ("[]" when none): after merging summaries of partitions, the ids a
 * frontier would have counted once (the same run in two partitions). */
MCPP_EXPERIMENTAL int mcpp_lane_summary_duplicate_ids(char **out, const mcpp_lane_summary *summary);

/* The summaries of every lane of `receipts` under `metric` (NULL: the gate
 * metric), in lane-key order, as mcpp_frontier_build groups them: a receipt
 * whose id its lane already holds is left out and counted in *duplicates (may
 * be NULL). A partition's share of a distributed frontier. Free the array and
 * its summaries with mcpp_lane_summaries_free. */
MCPP_EXPERIMENTAL int mcpp_lane_summaries_build(mcpp_lane_summary ***out, size_t *n_out, size_t *duplicates,
                                                const mcpp_policy *policy, const char *metric,
                                                const mcpp_receipt *const *receipts, size_t n);
MCPP_EXPERIMENTAL void mcpp_lane_summaries_free(mcpp_lane_summary **summaries, size_t n); /* NULL-safe */

/* Borrowed key ("" while empty), receipt count (every receipt added, counted
 * or excluded), status and headline (NULL when the lane has no value of the
 * metric). Reasons: count and text. */
MCPP_EXPERIMENTAL const char *mcpp_lane_summary_key(const mcpp_lane_summary *summary);
MCPP_EXPERIMENTAL size_t mcpp_lane_summary_receipt_count(const mcpp_lane_summary *summary);
MCPP_EXPERIMENTAL mcpp_lane_status mcpp_lane_summary_status(const mcpp_lane_summary *summary);
MCPP_EXPERIMENTAL size_t mcpp_lane_summary_reason_count(const mcpp_lane_summary *summary);
MCPP_EXPERIMENTAL const char *mcpp_lane_summary_reason(const mcpp_lane_summary *summary, size_t index);
/* Fills *out; MCPP_ENOTFOUND when there is no value. Strings borrowed. */
MCPP_EXPERIMENTAL int mcpp_lane_summary_headline(mcpp_lane_headline *out, const mcpp_lane_summary *summary);
/* ==== end of EXPERIMENTAL API ==== */

/* ---- The frontier ------------------------------------------------------------------ */

/* Thread safety: a built frontier is read-only; its accessors and renderers may
 * run on several threads at once. The summaries it lends (mcpp_frontier_lane_summary)
 * memoise like any summary: calls on one of them must not overlap. */
typedef struct mcpp_frontier mcpp_frontier;

/*
 * Groups `receipts` into lanes and labels them. `policy` NULL: the default.
 * Lanes are ordered by key (deterministic). The frontier copies what it keeps.
 */
MCPP_API int mcpp_frontier_build(mcpp_frontier **out, const mcpp_policy *policy,
                                 const mcpp_receipt *const *receipts, size_t n);
MCPP_API void mcpp_frontier_free(mcpp_frontier *frontier); /* NULL-safe */
/*
 * The frontier of lane summaries (say, merged from partitions on a cluster):
 * summaries of the same lane are merged (the inputs are unchanged, empty ones
 * are ignored), then labelled as mcpp_frontier_build labels lanes. All must be
 * made under `policy` (NULL: the default) and one metric, else MCPP_EINVALID.
 * `duplicates` is the number of receipts the caller left out of the summaries
 * because their lane already held their id; it is reported as the frontier's
 * duplicates and counted in its receipts, as mcpp_frontier_build does. Equal
 * to mcpp_frontier_build over the same receipts when the summaries together
 * hold each (lane, id) once.
 */
MCPP_API int mcpp_frontier_from_summaries(mcpp_frontier **out, const mcpp_policy *policy,
                                          const mcpp_lane_summary *const *summaries, size_t n,
                                          size_t duplicates);

MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_count(const mcpp_frontier *frontier);
MCPP_EXPERIMENTAL size_t mcpp_frontier_stable_count(const mcpp_frontier *frontier);
/* Lane accessors: NULL / -1 / 0 when out of range. */
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_key(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_short_key(const mcpp_frontier *frontier, size_t lane);
/* A human label: the smallest lane.name among the lane's receipts, else its short key. */
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_label(const mcpp_frontier *frontier, size_t lane);
/* What tells the lane apart from its neighbours (its adjacent lanes and the
 * lanes sharing its label): the key fields whose values differ, as
 * "moe=jagged, seq_len=8192" in key order; "" when it has no neighbour. A
 * field's name is its last path part (the backend family for requested /
 * observed pairs), or its whole path where two key fields share that part. */
MCPP_API const char *mcpp_frontier_lane_differences(const mcpp_frontier *frontier, size_t lane);
/* The label every display uses: "LABEL (DIFFERENCES)", or LABEL alone. */
MCPP_API const char *mcpp_frontier_lane_display_label(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL int mcpp_frontier_lane_status(const mcpp_frontier *frontier, size_t lane);
/* The receipts the lane counts (its excluded runs are listed apart, below). */
MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_receipt_count(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_receipt_id(const mcpp_frontier *frontier, size_t lane, size_t index);
/* Fills *out with the lane's headline; MCPP_ENOTFOUND when it has none. */
MCPP_EXPERIMENTAL int mcpp_frontier_lane_headline(mcpp_lane_headline *out, const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_reason_count(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_reason(const mcpp_frontier *frontier, size_t lane, size_t index);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* Runs of the lane excluded from its headline and status (a request not met,
 * evidence the policy requires missing), in sorted order: id and reason.
 * They are not among mcpp_frontier_lane_receipt_id(). NULL / 0 out of range. */
MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_excluded_count(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_excluded_id(const mcpp_frontier *frontier, size_t lane, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_excluded_reason(const mcpp_frontier *frontier, size_t lane,
                                                                 size_t index);
/* ==== end of EXPERIMENTAL API ==== */
/* The next blocker: the first status.blocker stated in the lane, else its
 * first reason; NULL for a stable lane. */
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_blocker(const mcpp_frontier *frontier, size_t lane);
/* Adjacent lanes (any status), in lane order: their lane index and the
 * dimensions the keys differ in ("routing" or "routing, sequence"). A lane
 * lists a bounded number of them, so a report stays linear in lanes when
 * many lanes differ in one dimension only (a sweep of 1,000 seq_len values):
 * per dimension the 4 nearest in key order (width 1), at most 16 in all
 * (wider adjacency). _adjacent_count is the number listed; _adjacent_total
 * counts every adjacent lane, listed or not. */
MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_adjacent_count(const mcpp_frontier *frontier, size_t lane);
MCPP_API size_t mcpp_frontier_lane_adjacent_total(const mcpp_frontier *frontier, size_t lane);
MCPP_EXPERIMENTAL size_t mcpp_frontier_lane_adjacent_index(const mcpp_frontier *frontier, size_t lane, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_frontier_lane_adjacent_dimensions(const mcpp_frontier *frontier, size_t lane,
                                                                     size_t index);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* The summary lane `lane` was labelled from (borrowed; NULL when out of range). */
MCPP_EXPERIMENTAL const mcpp_lane_summary *mcpp_frontier_lane_summary(const mcpp_frontier *frontier, size_t lane);
/* ==== end of EXPERIMENTAL API ==== */
/* The index of the lane with this key or short key; MCPP_ENOTFOUND otherwise. */
MCPP_EXPERIMENTAL int mcpp_frontier_find_lane(size_t *out, const mcpp_frontier *frontier, const char *key);

/* JSON keys: schema ("mcpp.frontier/1"), policy, warning (only without lane
 * dimensions), receipts, lanes [{key, short_key, label, differences, display_label,
 * status, receipts [ids], excluded [{id, reason}], headline (null or {metric, unit, higher_is_better,
 * median, interval [low, high], confidence, n, n_runs, rel_spread, from_steps}),
 * reasons [..], blocker, adjacent [{key, short_key, status, differs_in,
 * blocker}] (the listed ones), adjacent_total}]. Free *out with mcpp_free(). */
MCPP_API int mcpp_frontier_render(char **out, const mcpp_frontier *frontier,
                                  mcpp_output_format format);
/* The same text handed to `write` piece by piece as it is rendered, never
 * held whole (TEXT and JSON; MARKDOWN is made whole first): a report of 10^5
 * lanes is ~300 MB of JSON. MCPP_EIO when `write` returns non-zero. */
MCPP_EXPERIMENTAL int mcpp_frontier_render_stream(const mcpp_frontier *frontier, mcpp_output_format format,
                                                  mcpp_write_fn write, void *ctx);
/* The JSON of mcpp_frontier_render in parts, for a caller that keeps the
 * frontier and reads its lanes one at a time (the Python binding makes a lane's
 * objects only when it is read): the document with an empty "lanes" array, and
 * lane `lane`'s object exactly as that array holds it. The document is the
 * outline with its "lanes": [] holding each lane's object after "\n  ", the
 * lanes separated by ",". MCPP_EARG for a lane out of range. Free *out with
 * mcpp_free(). */
MCPP_EXPERIMENTAL int mcpp_frontier_render_json_outline(char **out, const mcpp_frontier *frontier);
MCPP_EXPERIMENTAL int mcpp_frontier_render_lane_json(char **out, const mcpp_frontier *frontier, size_t lane);

/* ---- Claims ------------------------------------------------------------------------- */

/*
 * A lane selector is either a lane key, a short key ("lane-…"), or
 * comma-separated KEY=VALUE terms that must all hold for every receipt of the
 * lane. KEY is one of these names or any schema path ("routing.top_k=2"):
 *
 *   family      lane.family              pattern    lane.pattern
 *   depth       lane.depth               name       lane.name
 *   moe         backend.moe.observed     attention  backend.attention.observed
 *   mamba       backend.mamba.observed   recurrent  backend.recurrent.observed
 *   gemm        backend.gemm.observed    precision  backend.precision
 *   seq_len     workload.seq_len         micro_batch / global_batch  workload.*
 *   data        workload.data.path       dataset    workload.data.dataset
 *   compile     compile.posture          warmup     compile.warmup
 *   startup     startup.state            routing    routing.mode
 *   top_k       routing.top_k            experts    routing.num_experts
 *   accelerator hardware.observed.accelerator  count  hardware.observed.count
 *   substrate   topology.substrate       tp pp ep cp dp  topology.*
 *
 * VALUE is compared with the field's canonical text (numbers compare by value).
 */
typedef enum mcpp_claim_verdict {
    MCPP_CLAIM_SUPPORTED = 0,    /* a stable matching lane's interval holds the value */
    MCPP_CLAIM_UNSUPPORTED = 1,  /* no stable matching lane produced it              */
    MCPP_CLAIM_CONTRADICTED = 2, /* the stable matching lane exists; value outside it */
    MCPP_CLAIM_AMBIGUOUS = 3     /* the selector matches more than one lane           */
} mcpp_claim_verdict;

/* "supported", "unsupported", "contradicted", "ambiguous"; "unknown"
 * otherwise. Static. */
MCPP_EXPERIMENTAL const char *mcpp_claim_verdict_name(mcpp_claim_verdict verdict);

/* Thread safety: read-only once returned; threads may read one at once. */
typedef struct mcpp_claim_result mcpp_claim_result;

/*
 * Checks that `value` of `metric` (a metric name such as "time_to_train_s",
 * "primary", or a schema path; NULL = the gate metric) is
 * backed by the receipts for the lanes `lane_selector` names. The result names
 * the matching lanes and, separately, the lanes whose numbers do contain the
 * value (the value lies within the lane's interval or the range of its values
 * widened by noise_floor) — where the number really came from. MCPP_EARG for
 * a malformed selector, an unknown key, or a malformed metric name; and when
 * no lane matches, for a term's value that is a slip of one the receipts
 * state: a spelling away ("moe=jaged"), another case, or a name's first words
 * ("name=NAM56R" for "NAM56R hybrid MoE lane"), named in the message.
 */
MCPP_API int mcpp_claim_check(mcpp_claim_result **out, const mcpp_policy *policy,
                              const mcpp_receipt *const *receipts, size_t n,
                              const char *lane_selector, const char *metric, double value);
MCPP_API void mcpp_claim_result_free(mcpp_claim_result *result); /* NULL-safe */
/* Evaluates the KEY=VALUE terms of `selector` on each receipt: out[i] is 1 when
 * every term holds for receipts[i], else 0. MCPP_EARG for a malformed selector
 * or an unknown key. A partition's share of a distributed claim. */
MCPP_EXPERIMENTAL int mcpp_claim_selector_holds(unsigned char *out, const char *lane_selector,
                                                const mcpp_receipt *const *receipts, size_t n);
/* The short selector key number `index` ("family", "seq_len", "accelerator",
 * ...) with the schema path it reads in *path (may be NULL); NULL (and *path
 * NULL) past the last. The keys come from the default dimensions' table, so
 * `claim --help` lists exactly what a selector takes. Static strings. */
MCPP_EXPERIMENTAL const char *mcpp_claim_selector_key(size_t index, const char **path);
/* mcpp_claim_check on a frontier already built for `metric` (for example by
 * mcpp_frontier_from_summaries from summaries of that metric). lane_holds[i]
 * is 1 when the selector's terms hold for every receipt of lane i (the AND of
 * mcpp_claim_selector_holds over the lane); it may be NULL when the selector
 * is a lane key or short key. Same result as mcpp_claim_check on the receipts. */
MCPP_API int mcpp_claim_check_frontier(mcpp_claim_result **out, const mcpp_policy *policy,
                                       const mcpp_frontier *frontier,
                                       const unsigned char *lane_holds, const char *lane_selector,
                                       const char *metric, double value);

MCPP_API mcpp_claim_verdict mcpp_claim_result_verdict(const mcpp_claim_result *result);
/* One line saying why ("this number came from lane X (unstable: ...)"). */
MCPP_EXPERIMENTAL const char *mcpp_claim_result_reason(const mcpp_claim_result *result);
/* The policy the claim was checked under: name and content digest. */
MCPP_EXPERIMENTAL const char *mcpp_claim_result_policy_name(const mcpp_claim_result *result);
MCPP_EXPERIMENTAL const char *mcpp_claim_result_policy_digest(const mcpp_claim_result *result);
/* The policy a frontier was built under: name and content digest. */
MCPP_EXPERIMENTAL const char *mcpp_frontier_policy_digest(const mcpp_frontier *frontier);
/* The unit the receipts state for the claim's metric (the first matched lane
 * with one, else the first source lane's); NULL when none states one. */
MCPP_EXPERIMENTAL const char *mcpp_claim_result_unit(const mcpp_claim_result *result);
/* A claim that states its unit: MCPP_OK when every matched and source lane
 * with a headline states the metric in `unit`; else MCPP_EINVALID naming the
 * lane and its unit (the claim is refused, not compared: a front end exits 3). */
MCPP_EXPERIMENTAL int mcpp_claim_result_check_unit(const mcpp_claim_result *result, const char *unit);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* Lanes matching the selector. */
MCPP_EXPERIMENTAL size_t mcpp_claim_result_matched_count(const mcpp_claim_result *result);
MCPP_EXPERIMENTAL const char *mcpp_claim_result_matched_key(const mcpp_claim_result *result, size_t index);
MCPP_EXPERIMENTAL int mcpp_claim_result_matched_status(const mcpp_claim_result *result, size_t index);
/* Lanes whose numbers contain the value (any status, matching or not). */
MCPP_EXPERIMENTAL size_t mcpp_claim_result_source_count(const mcpp_claim_result *result);
MCPP_EXPERIMENTAL const char *mcpp_claim_result_source_key(const mcpp_claim_result *result, size_t index);
MCPP_EXPERIMENTAL int mcpp_claim_result_source_status(const mcpp_claim_result *result, size_t index);
/* For an unstable source lane: its reasons joined by "; ". */
MCPP_EXPERIMENTAL const char *mcpp_claim_result_source_reason(const mcpp_claim_result *result, size_t index);
/* ==== end of EXPERIMENTAL API ==== */

/* JSON keys: schema ("mcpp.claim/1"), selector, metric, value, verdict, reason,
 * matched [{key, short_key, status, headline}], sources [{key, short_key,
 * status, reasons}]. Free *out with mcpp_free(). */
MCPP_API int mcpp_claim_result_render(char **out, const mcpp_claim_result *result,
                                      mcpp_output_format format);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_FRONTIER_H */
