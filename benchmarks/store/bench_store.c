/*
 * bench_store.c — the receipt store's speed, each figure next to a baseline
 * measured in the same run:
 *
 *   add       mcpp_store_add of N receipts in ONE call (canonical JSON, lane
 *             key, columns, identity checks, one transaction,
 *             synchronous=FULL; the images and lane summaries are left to the
 *             first reads)
 *             vs plain SQLite inserting the same N JSON texts with an id key
 *             in one transaction under the same pragmas (the floor). Each
 *             starts after sync(), so the write-back of what ran before it
 *             (the floor writes ~0.7 GB) does not run beside it.
 *   frontier  what `frontier --store` does: build the frontier from the lane
 *             summaries the store keeps (the first frontier after the add
 *             saves them, reading the rows the add left to it: timed on its
 *             own), vs building the frontier over the
 *             same receipts already in memory (what it costs after loading
 *             files), and vs reading every stored receipt back and building
 *             (what it cost before the summaries).
 *
 * Receipts are the example NAM52 receipt with id, created_at, commit and
 * tokens_per_s varied, spread over 128 lanes (seq_len x global_batch).
 *
 * usage: bench_store [--sizes 100000,1000000] [--dir DIR] [--smoke]
 * prints one line per measurement: "KIND key=value ..." (run.sh makes the table)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcpp_receipts.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static char *template_text;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    if (t && fread(t, 1, (size_t)n, f) == (size_t)n) t[n] = '\0';
    fclose(f);
    return t;
}

/* Writes the template with receipt i's values into out; the keys are in
 * file order, so one pass copies it. */
static size_t instantiate(char *out, size_t cap, size_t i)
{
    static const char *const keys[] = {"\"id\": \"nam52-dense-2026-03-12\"", "\"created_at\": \"2026-03-12T21:03:57Z\"",
                                       "\"git_commit\": \"4e81b7c0d2a95f63e1b8a7c4d09f2e5b6a3c1d87\"",
                                       "\"seq_len\": 4096", "\"global_batch\": 256",
                                       /* no denominator: any tokens_per_s is then consistent */
                                       "\"useful_tokens_per_step\": 1029120,", "\"tokens_per_s\": 559304.3"};
    char values[7][96];
    snprintf(values[0], sizeof values[0], "\"id\": \"bench-%08zu\"", i);
    snprintf(values[1], sizeof values[1], "\"created_at\": \"2026-%02zu-%02zuT%02zu:%02zu:%02zuZ\"", 1 + (i / 2419200) % 12,
             1 + (i / 86400) % 28, (i / 3600) % 24, (i / 60) % 60, i % 60);
    snprintf(values[2], sizeof values[2], "\"git_commit\": \"%040zx\"", i / 100);
    snprintf(values[3], sizeof values[3], "\"seq_len\": %zu", 512 * (1 + i % 16));
    snprintf(values[4], sizeof values[4], "\"global_batch\": %zu", 64 * (1 + (i / 16) % 8));
    values[5][0] = '\0';
    snprintf(values[6], sizeof values[6], "\"tokens_per_s\": %.1f", 500000.0 + (double)(i % 997));
    const char *src = template_text;
    size_t len = 0;
    for (int k = 0; k < 7; k++) {
        const char *at = strstr(src, keys[k]);
        if (!at) abort(); /* the example changed: update the keys */
        size_t head = (size_t)(at - src);
        if (len + head + strlen(values[k]) >= cap) abort();
        memcpy(out + len, src, head);
        len += head;
        len += (size_t)snprintf(out + len, cap - len, "%s", values[k]);
        src = at + strlen(keys[k]);
    }
    len += (size_t)snprintf(out + len, cap - len, "%s", src);
    return len;
}

static mcpp_receipt **generate(size_t n)
{
    mcpp_receipt **rs = malloc(n * sizeof *rs);
    char *buf = malloc(16384);
    for (size_t i = 0; i < n; i++) {
        size_t len = instantiate(buf, 16384, i);
        if (mcpp_receipt_load_buffer(&rs[i], NULL, buf, len, MCPP_FORMAT_JSON, "bench", NULL) != MCPP_OK) {
            fprintf(stderr, "bench: %s\n", mcpp_error_last()->message);
            exit(2);
        }
    }
    free(buf);
    return rs;
}

/* Bytes of the database and its WAL, if any (the on-disk cost per receipt). */
static double db_bytes(const char *path)
{
    char wal[600];
    struct stat st;
    double n = stat(path, &st) == 0 ? (double)st.st_size : 0;
    snprintf(wal, sizeof wal, "%s-wal", path);
    return n + (stat(wal, &st) == 0 ? (double)st.st_size : 0);
}

static void remove_db(const char *path)
{
    char extra[600];
    unlink(path);
    snprintf(extra, sizeof extra, "%s-wal", path);
    unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path);
    unlink(extra);
}

/* The floor: the same JSON texts inserted by plain SQLite in one transaction.
 * *bytes gets the size of its database. */
static double raw_sqlite_insert(const char *path, size_t n, double *bytes)
{
    remove_db(path);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                     "CREATE TABLE r(id TEXT PRIMARY KEY, body TEXT NOT NULL)", NULL, NULL, NULL);
    char *buf = malloc(16384), id[32];
    sync(); /* the writes before this one are not written back while it runs */
    double t0 = now_s();
    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?1, ?2)", -1, &st, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t len = instantiate(buf, 16384, i);
        snprintf(id, sizeof id, "bench-%08zu", i);
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, buf, (int)len, SQLITE_STATIC);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    double t = now_s() - t0;
    sqlite3_close(db);
    *bytes = db_bytes(path);
    free(buf);
    return t;
}

/* Takes the third field (what the gate page was made from) off every line of
 * the site's digests file: the next site makes the gate page again, as every
 * run did before the gate page was skipped when that was unchanged. */
static void forget_gate_inputs(const char *site)
{
    char path[600], line[600];
    snprintf(path, sizeof path, "%s/site-digests.txt", site);
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = f ? open_memstream(&text, &len) : NULL;
    if (!out)
        exit(2);
    while (fgets(line, sizeof line, f)) {
        char digest[64], name[512];
        if (sscanf(line, "%63s %511s", digest, name) == 2 && strcmp(digest, "mcpp-site-digests") != 0)
            fprintf(out, "%s %s\n", digest, name);
        else
            fputs(line, out);
    }
    fclose(f);
    fclose(out);
    if (!(f = fopen(path, "w")) || fwrite(text, 1, len, f) != len || fclose(f) != 0)
        exit(2);
    free(text);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { SITE_ROUNDS = 5 };

/* What `site` costs: the history it reads (mcpp_history_build + its JSON, the
 * baseline: what `history --store --format json` does), the first site (every
 * page written), then SITE_ROUNDS rounds of a site with nothing new (no page
 * written, the gate page not made again) alternated with the same after
 * forget_gate_inputs (no page written either, but the gate made again: the
 * build before), medians of wall and CPU seconds; then one after 100 new
 * receipts (the pages of the lanes they joined, the index, frontier and gate). */
static void bench_site(size_t n, const char *dir, const char *path)
{
    char site[512];
    snprintf(site, sizeof site, "%s/bench-site-%zu", dir, n);
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, 0) != MCPP_OK)
        exit(2);
    double t0 = now_s();
    mcpp_history *h = NULL;
    char *json = NULL;
    if (mcpp_history_build(&h, s, NULL, NULL, NULL) != MCPP_OK || mcpp_history_render(&json, h, MCPP_OUTPUT_JSON))
        exit(2);
    double history = now_s() - t0;
    mcpp_free(json);
    mcpp_history_free(h);
    mcpp_site_result first, again = {0, 0, 0, 0}, regate = {0, 0, 0, 0}, after;
    double first_s = 0, after_s = 0, wall[2][SITE_ROUNDS], cpu[2][SITE_ROUNDS];
    for (int k = 0; k < 2 + 2 * SITE_ROUNDS; k++) {
        int last = k == 1 + 2 * SITE_ROUNDS, skip = k % 2 == 1; /* odd: nothing new; even: the gate forgotten */
        if (last) { /* 100 new receipts: the next ids, so the lanes of the first 100 */
            mcpp_receipt **more = generate(n + 100);
            mcpp_store_add_result res;
            if (mcpp_store_add(&res, s, (const mcpp_receipt *const *)more + n, 100) != MCPP_OK)
                exit(2);
            for (size_t i = 0; i < n + 100; i++)
                mcpp_receipt_free(more[i]);
            free(more);
        } else if (k > 0 && !skip) {
            forget_gate_inputs(site);
        }
        mcpp_site_result *res = k == 0 ? &first : last ? &after : skip ? &again : &regate;
        t0 = now_s();
        double c0 = cpu_s();
        if (mcpp_site_write(res, s, site, NULL) != MCPP_OK) {
            fprintf(stderr, "bench: site: %s\n", mcpp_error_last()->message);
            exit(2);
        }
        double t = now_s() - t0, c = cpu_s() - c0;
        if (k == 0)
            first_s = t;
        else if (last)
            after_s = t;
        else {
            wall[skip][(k - 1) / 2] = t;
            cpu[skip][(k - 1) / 2] = c;
        }
        if (k > 0 && !last && res->written != 0) {
            fprintf(stderr, "bench: site with nothing new wrote %zu pages\n", res->written);
            exit(2);
        }
    }
    for (int i = 0; i < 2; i++) {
        qsort(wall[i], SITE_ROUNDS, sizeof wall[i][0], cmp_double);
        qsort(cpu[i], SITE_ROUNDS, sizeof cpu[i][0], cmp_double);
    }
    double again_s = wall[1][SITE_ROUNDS / 2], regate_s = wall[0][SITE_ROUNDS / 2];
    printf("site n=%zu history_s=%.3f first_s=%.3f pages=%zu unchanged_s=%.3f written_again=%zu after_add_s=%.3f "
           "written_after_add=%zu ratio=%.2f again_ratio=%.2f regate_s=%.3f unchanged_cpu_s=%.3f regate_cpu_s=%.3f "
           "skip_ratio=%.2f skip_cpu_ratio=%.2f\n",
           n, history, first_s, first.pages, again_s, again.written, after_s, after.written, first_s / history,
           again_s / history, regate_s, cpu[1][SITE_ROUNDS / 2], cpu[0][SITE_ROUNDS / 2], again_s / regate_s,
           cpu[1][SITE_ROUNDS / 2] / cpu[0][SITE_ROUNDS / 2]);
    mcpp_store_close(s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", site);
    if (system(cmd) != 0)
        fprintf(stderr, "bench: could not remove %s\n", site);
}

static void bench_size(size_t n, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench-store-%zu.db", dir, n);
    double t0 = now_s();
    mcpp_receipt **rs = generate(n);
    double gen = now_s() - t0;

    double raw_bytes = 0, raw = raw_sqlite_insert(path, n, &raw_bytes);
    remove_db(path);
    mcpp_store *s = NULL;
    mcpp_store_add_result res;
    if (mcpp_store_open(&s, path, MCPP_STORE_CREATE) != MCPP_OK) exit(2);
    sync(); /* as for the floor: the floor's writes are not written back during the add */
    t0 = now_s();
    double c0 = cpu_s();
    int rc = mcpp_store_add(&res, s, (const mcpp_receipt *const *)rs, n);
    double add = now_s() - t0, add_cpu = cpu_s() - c0;
    mcpp_store_close(s);
    if (rc) {
        fprintf(stderr, "bench: add: %s\n", mcpp_error_last()->message);
        exit(2);
    }
    printf("add n=%zu add_s=%.3f per_s=%.0f cpu_s=%.3f raw_sqlite_s=%.3f raw_per_s=%.0f ratio=%.2f generate_s=%.1f "
           "bytes_per_receipt=%.0f raw_bytes_per_receipt=%.0f\n",
           n, add, (double)n / add, add_cpu, raw, (double)n / raw, add / raw, gen, db_bytes(path) / (double)n,
           raw_bytes / (double)n);

    /* frontier over the receipts in memory: the baseline */
    mcpp_frontier *f = NULL;
    t0 = now_s();
    mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, n);
    double mem = now_s() - t0;
    size_t lanes = mcpp_frontier_lane_count(f);
    mcpp_frontier_free(f);
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(rs[i]);
    free(rs);

    /* the same without summaries: read every receipt back, build */
    mcpp_receipt_set *set = NULL;
    mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY);
    t0 = now_s();
    mcpp_store_query_set(&set, s, NULL);
    double read = now_s() - t0;
    mcpp_frontier_build(&f, NULL, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set));
    double read_all = now_s() - t0;
    size_t read_lanes = mcpp_frontier_lane_count(f), read_stable = mcpp_frontier_stable_count(f);
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
    /* the add stored no image; that first read made them: read again */
    t0 = now_s();
    mcpp_store_query_set(&set, s, NULL);
    double read_again = now_s() - t0;
    mcpp_store_close(s);
    /* the first frontier after the add: it reads the rows the add left to it
     * (from their images, made above) and saves their lane summaries */
    t0 = now_s();
    mcpp_store_open(&s, path, 0);
    if (mcpp_store_frontier(&f, s, NULL) != MCPP_OK) {
        fprintf(stderr, "bench: frontier: %s\n", mcpp_error_last()->message);
        exit(2);
    }
    double first = now_s() - t0;
    mcpp_frontier_free(f);
    mcpp_store_close(s);
    /* frontier --store: open, build from the saved lane summaries */
    t0 = now_s();
    mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY);
    if (mcpp_store_frontier(&f, s, NULL) != MCPP_OK) {
        fprintf(stderr, "bench: frontier: %s\n", mcpp_error_last()->message);
        exit(2);
    }
    double total = now_s() - t0;
    if (mcpp_frontier_lane_count(f) != read_lanes || mcpp_frontier_stable_count(f) != read_stable) {
        fprintf(stderr, "bench: the two frontiers differ\n");
        exit(2);
    }
    mcpp_frontier_free(f);
    printf("frontier n=%zu lanes=%zu store_total_s=%.3f first_after_add_s=%.3f read_all_s=%.3f read_s=%.3f "
           "read_again_s=%.3f memory_build_s=%.3f ratio=%.2f loaded=%zu\n",
           n, lanes, total, first, read_all, read, read_again, mem, total / mem, mcpp_receipt_set_count(set));
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
    /* the file with the images the read made (a writer's close folds the WAL in) */
    if (mcpp_store_open(&s, path, 0) == MCPP_OK)
        mcpp_store_close(s);
    printf("images n=%zu bytes_per_receipt=%.0f\n", n, db_bytes(path) / (double)n);
    bench_site(n, dir, path);
    remove_db(path);
}

static const char USAGE[] =
    "usage: bench_store [--sizes N,N...] [--dir DIR] [--smoke]\n"
    "\n"
    "The receipt store's speed next to baselines from the same run: adding N receipts\n"
    "in one call (vs plain SQLite inserting the same JSON texts under the same pragmas)\n"
    "and frontier --store (vs the frontier of the same receipts in memory). Prints one\n"
    "line per measurement; benchmarks/store/run.sh makes the tables.\n"
    "\n"
    "  --sizes N,N...  receipts per run (default 100000,1000000)\n"
    "  --dir DIR       where the databases go (default /tmp)\n"
    "  --smoke         one small run (2000 receipts): checks that it runs\n"
    "  -h, --help      print this and exit\n";

int main(int argc, char **argv)
{
    const char *sizes = "100000,1000000", *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(argv[i], "--smoke") == 0) {
            sizes = "2000";
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            sizes = argv[++i];
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else { /* an unknown word ran the whole 10^5 + 10^6 benchmark */
            fprintf(stderr, "bench_store: unknown argument '%s'\n%s", argv[i], USAGE);
            return 2;
        }
    }
    if (!(template_text = read_all(MCPP_STORE_EXAMPLE))) {
        fprintf(stderr, "bench: cannot read %s\n", MCPP_STORE_EXAMPLE);
        return 2;
    }
    char *list = strdup(sizes), *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bench_size((size_t)strtoull(tok, NULL, 10), dir);
        fflush(stdout);
    }
    free(list);
    free(template_text);
    return 0;
}
