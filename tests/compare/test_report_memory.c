/*
 * test_report_memory.c — what a frontier and a gate keep of many lanes
 * (issue 50 item 5): a Google Benchmark result of 2,000 benchmarks, imported
 * with the real importer, each benchmark its own lane, every lane adjacent to
 * every other (the benchmark name is the only key field that differs).
 *
 * The bytes kept are glibc's own count of the heap in use (mallinfo2: the
 * arenas' chunks plus the mmapped blocks) after the call less before it:
 * deterministic for one glibc, no timing. The budgets sit between what the
 * builds before and after the change kept, so a lane that copies again what
 * its summary holds, or arrays left at their doubled size, fail them.
 */
#include <malloc.h>
#include <stdint.h>
#include <unistd.h>

#include "../test_util.h"
#include "mcpp_receipts.h"

enum { N = 2000, BIG = 20000 };

static char dir[64];
static char base_path[128], cand_path[128], big_path[128];

static void write_gbench(const char *path, int n, double slower)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("{\"context\": {\"date\": \"2026-11-20T10:00:00+00:00\", \"host_name\": \"bench-host\", "
          "\"executable\": \"./bench_suite\", \"num_cpus\": 16, \"mhz_per_cpu\": 3000, "
          "\"cpu_scaling_enabled\": false, \"library_build_type\": \"release\"}, \"benchmarks\": [\n",
          f);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < 3; r++) {
            double t = (100.0 + i % 997) * slower * (1.0 + 0.01 * (r - 1));
            fprintf(f,
                    "%s{\"name\": \"BM_Kernel/%d\", \"family_index\": 0, \"per_family_instance_index\": %d, "
                    "\"run_name\": \"BM_Kernel/%d\", \"run_type\": \"iteration\", \"repetitions\": 3, "
                    "\"repetition_index\": %d, \"threads\": 1, \"iterations\": 1000000, \"real_time\": %.6f, "
                    "\"cpu_time\": %.6f, \"time_unit\": \"ns\"}\n",
                    i || r ? "," : "", i, i, i, r, t, t * 0.999);
        }
    fputs("]}\n", f);
    fclose(f);
}

static mcpp_receipt_set *import(const char *path)
{
    mcpp_import_format fmt;
    mcpp_receipt_set *set = NULL;
    const char *paths[1] = {path};
    if (mcpp_import_format_from_name(&fmt, "google-benchmark") != MCPP_OK ||
        mcpp_import_files(&set, fmt, paths, 1) != MCPP_OK)
        return NULL;
    return set;
}

/* Bytes of heap in use, as glibc counts them. */
static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* 1 when mallinfo2 sees this process's allocations (not under a sanitizer's
 * allocator, which has its own heap and leaves glibc's counts at zero). */
static int heap_counted(void)
{
    size_t before = heap_in_use();
    char *p = malloc(1 << 20);
    if (p)
        p[0] = 1;
    size_t after = heap_in_use();
    free(p);
    return p && after >= before + (1 << 20);
}

/* In a test: returns, saying why, when the heap cannot be counted. */
#define SKIP_UNLESS_HEAP_COUNTED()                                                                                     \
    do {                                                                                                               \
        if (!heap_counted()) {                                                                                         \
            printf("skipped: glibc's mallinfo2 does not see this allocator (a sanitizer build)\n");                    \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* The process's peak resident size in KiB (VmHWM), after resetting it when
 * `reset` (writing 5 to /proc/self/clear_refs, Linux >= 4.0); -1 when the
 * kernel does not offer either. */
static long peak_rss_kib(int reset)
{
    if (reset) {
        FILE *c = fopen("/proc/self/clear_refs", "w");
        if (!c)
            return -1;
        int ok = fputs("5", c) >= 0;
        if (fclose(c) != 0 || !ok)
            return -1;
    }
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

TEST(a_frontier_keeps_under_1700_bytes_a_lane)
{
    SKIP_UNLESS_HEAP_COUNTED();
    mcpp_receipt_set *set = import(base_path);
    CHECK(set && mcpp_receipt_set_count(set) == N);
    if (!set)
        return;
    size_t before = heap_in_use();
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, mcpp_receipt_set_items(set), N), MCPP_OK);
    double per_lane = ((double)heap_in_use() - (double)before) / N;
    printf("# frontier: %.0f bytes a lane kept\n", per_lane);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), N);
    /* 2,783 before the lanes referred to their summaries, 1,801 after; 1,672
     * with 32-bit list counts; 1,624 with the blocker borrowed */
    CHECK(per_lane < 1700);
    /* the lanes name their adjacent lanes' dimension with one shared text */
    CHECK(mcpp_frontier_lane_adjacent_count(f, 0) > 0 && mcpp_frontier_lane_adjacent_count(f, 1) > 0);
    CHECK_STR_EQ(mcpp_frontier_lane_adjacent_dimensions(f, 0, 0), "benchmark");
    CHECK(mcpp_frontier_lane_adjacent_dimensions(f, 0, 0) == mcpp_frontier_lane_adjacent_dimensions(f, 1, 0));
    /* an unstable lane's blocker without a stated one is its first reason, the same text, not a copy */
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_UNSTABLE);
    CHECK(mcpp_frontier_lane_blocker(f, 0) && mcpp_frontier_lane_blocker(f, 0) == mcpp_frontier_lane_reason(f, 0, 0));
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
}

/* A candidate of one compared metric keeps its reason once: the metric's
 * reason is the tail of the candidate's ("against 1 comparable baseline: "
 * and the metric's), ~480 bytes a pair. */
TEST(a_gate_keeps_under_2100_bytes_a_pair)
{
    SKIP_UNLESS_HEAP_COUNTED();
    mcpp_receipt_set *base = import(base_path), *cand = import(cand_path);
    CHECK(base && cand && mcpp_receipt_set_count(cand) == N);
    if (base && cand) {
        size_t before = heap_in_use();
        mcpp_gate_report *g = NULL;
        CHECK_INT_EQ(mcpp_gate_run(&g, NULL, mcpp_receipt_set_items(base), N, mcpp_receipt_set_items(cand), N),
                     MCPP_OK);
        double per_pair = ((double)heap_in_use() - (double)before) / N;
        printf("# gate: %.0f bytes a pair kept\n", per_pair);
        CHECK_INT_EQ(mcpp_gate_report_count(g), N);
        /* 2,721 before its reasons and lists were cut to their length, 2,402
         * after, 1,984 with a metric's reason kept inside its candidate's */
        CHECK(per_pair < 2100);
        mcpp_gate_metric m = MCPP_GATE_METRIC_INIT;
        CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, g, 0, 0), MCPP_OK);
        const char *whole = mcpp_gate_report_entry_reason(g, 0);
        CHECK(m.reason && whole && strlen(whole) > strlen(m.reason) &&
              m.reason == whole + strlen(whole) - strlen(m.reason));
        mcpp_gate_report_free(g);
    }
    mcpp_receipt_set_free(base);
    mcpp_receipt_set_free(cand);
}

/* While it is built a frontier holds more than it keeps: the adjacency's
 * buckets were lanes x (key dimensions + 1) of 24 bytes, and qsort's copy of
 * them, though a bucket of a dimension no two lanes differ in holds one lane.
 * The peak resident size the build adds (the kernel's high-water mark, reset
 * first; what the receipts' import freed is reused, so it is below what the
 * frontier keeps), a lane of 20,000: 1,619-1,777 bytes before, 1,080-1,242
 * after (the case alone or after the others, several runs each). Pages are
 * 4 KiB; the bound is 3-4 MiB from both. */
TEST(building_a_frontier_raises_the_peak_rss_under_1450_bytes_a_lane)
{
    SKIP_UNLESS_HEAP_COUNTED();
    mcpp_receipt_set *set = import(big_path);
    CHECK(set && mcpp_receipt_set_count(set) == BIG);
    if (!set)
        return;
    malloc_trim(0);
    long start = peak_rss_kib(0);
    if (start < 0 || peak_rss_kib(1) < 0) {
        printf("skipped: this kernel offers no resettable VmHWM (/proc/self/clear_refs)\n");
        mcpp_receipt_set_free(set);
        return;
    }
    size_t before = heap_in_use();
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, mcpp_receipt_set_items(set), BIG), MCPP_OK);
    double kept = ((double)heap_in_use() - (double)before) / BIG;
    double peak = (double)(peak_rss_kib(0) - start) * 1024 / BIG;
    printf("# frontier of %d lanes: peak %.0f bytes a lane above the start, %.0f kept\n", BIG, peak, kept);
    CHECK(peak < 1450);
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/mcpp-report-memory-XXXXXX");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    snprintf(base_path, sizeof base_path, "%s/base.json", dir);
    snprintf(cand_path, sizeof cand_path, "%s/cand.json", dir);
    snprintf(big_path, sizeof big_path, "%s/big.json", dir);
    write_gbench(base_path, N, 1.0);
    write_gbench(cand_path, N, 1.002);
    write_gbench(big_path, BIG, 1.0);
    RUN(a_frontier_keeps_under_1700_bytes_a_lane);
    RUN(a_gate_keeps_under_2100_bytes_a_pair);
    RUN(building_a_frontier_raises_the_peak_rss_under_1450_bytes_a_lane);
    unlink(base_path);
    unlink(cand_path);
    unlink(big_path);
    rmdir(dir);
    TEST_MAIN_END();
}
