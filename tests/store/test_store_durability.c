/*
 * test_store_durability.c — what survives a crash and what two writers do:
 *
 *  - a child adds batches of receipts in a loop and is killed with SIGKILL at
 *    a random moment, 220 times: every batch whose add returned (the child
 *    says so on a pipe after the call) is present and loads intact, and every
 *    batch is all there or not there at all;
 *  - two processes add at the same time (each receipt in its own call, plus
 *    receipts both add): nothing is lost and neither fails.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../test_util.h"
#include "store_fixture.h"

#define KILLS 220
#define BATCH 5

static char tmpdir[256], db[320];

static double value_of(int batch, int k) { return 1000.0 + batch + k / 10.0; }

static mcpp_receipt *crash_receipt(int iter, int batch, int k)
{
    char id[64];
    snprintf(id, sizeof id, "k%03d-%04d-%d", iter, batch, k);
    return fixture_receipt(id, "2026-05-01T00:00:00Z", "deadbeef00", value_of(batch, k));
}

/* The child: adds batches until killed, acknowledging each after add returns. */
static void writer_child(int iter, int ack_fd)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db, MCPP_STORE_CREATE) != MCPP_OK) {
        dprintf(ack_fd, "E %s\n", mcpp_error_last()->message);
        _exit(1);
    }
    for (int batch = 0;; batch++) {
        mcpp_receipt *rs[BATCH];
        for (int k = 0; k < BATCH; k++) rs[k] = crash_receipt(iter, batch, k);
        if (mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, BATCH) != MCPP_OK) {
            dprintf(ack_fd, "E %s\n", mcpp_error_last()->message);
            _exit(1);
        }
        dprintf(ack_fd, "%d\n", batch);
        for (int k = 0; k < BATCH; k++) mcpp_receipt_free(rs[k]);
    }
}

typedef struct iteration_result {
    int acked;          /* batches acknowledged (0..acked-1)            */
    int child_error;    /* the child reported an error                  */
    int present[4096];  /* receipts of each batch found in the store    */
    int intact_bad;     /* stored receipts that failed to load or check */
    int max_batch;
} iteration_result;

static void read_acks(int fd, iteration_result *res)
{
    FILE *f = fdopen(fd, "r");
    char line[600];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == 'E') {
            res->child_error = 1;
            printf("# child error: %s", line);
        } else {
            res->acked = atoi(line) + 1;
        }
    }
    if (f) fclose(f);
}

/* Reads this iteration's rows from the stored bodies (export reads the
 * bodies only, decompressing them: store_codec.c) and loads each. */
static void inspect(int iter, iteration_result *res)
{
    mcpp_store *s = NULL;
    char *text = NULL, prefix[32];
    snprintf(prefix, sizeof prefix, "k%03d-", iter);
    if (mcpp_store_open(&s, db, MCPP_STORE_READ_ONLY) != MCPP_OK ||
        mcpp_store_export(&text, s, NULL, "jsonl") != MCPP_OK) {
        printf("# inspect %d: %s\n", iter, mcpp_error_last()->message);
        res->intact_bad++;
        mcpp_store_close(s);
        return;
    }
    for (char *line = text, *next; *line; line = next) {
        char *end = strchr(line, '\n');
        next = end ? end + 1 : line + strlen(line);
        mcpp_receipt *r = NULL;
        if (mcpp_receipt_load_buffer(&r, NULL, line, (size_t)(next - line), MCPP_FORMAT_JSON, "export", NULL) !=
            MCPP_OK) {
            res->intact_bad++;
            continue;
        }
        int it = 0, batch = 0, k = 0;
        mcpp_value v = MCPP_VALUE_INIT;
        const char *id = mcpp_receipt_id(r);
        if (strncmp(id, prefix, strlen(prefix)) == 0) {
            if (sscanf(id, "k%d-%d-%d", &it, &batch, &k) != 3 || batch >= 4096 ||
                mcpp_receipt_get(r, "metrics.tokens_per_s", &v) != MCPP_OK || v.number != value_of(batch, k)) {
                res->intact_bad++;
            } else {
                res->present[batch]++;
                if (batch > res->max_batch) res->max_batch = batch;
            }
        }
        mcpp_receipt_free(r);
    }
    mcpp_free(text);
    mcpp_store_close(s);
}

TEST(sigkill_at_random_moments_loses_no_returned_add_and_leaves_nothing_partial)
{
    srand(12345);
    int lost = 0, partial = 0, bad = 0, child_errors = 0, open_failures = 0, kills_during_add = 0;
    for (int iter = 0; iter < KILLS; iter++) {
        int fds[2];
        if (pipe(fds) != 0) abort();
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            writer_child(iter, fds[1]);
        }
        close(fds[1]);
        struct timespec pause = {0, (long)(rand() % 40000) * 1000L};
        nanosleep(&pause, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        static iteration_result res;
        memset(&res, 0, sizeof res);
        res.max_batch = -1;
        read_acks(fds[0], &res);
        /* the store must open (recovering the WAL) after every crash */
        mcpp_store *s = NULL;
        if (mcpp_store_open(&s, db, MCPP_STORE_CREATE) != MCPP_OK) {
            open_failures++;
            printf("# open after kill %d: %s\n", iter, mcpp_error_last()->message);
        }
        mcpp_store_close(s);
        inspect(iter, &res);
        for (int b = 0; b < res.acked; b++) lost += res.present[b] != BATCH;
        for (int b = 0; b <= res.max_batch; b++) partial += res.present[b] != 0 && res.present[b] != BATCH;
        if (res.max_batch >= res.acked) kills_during_add++; /* committed but not yet acknowledged */
        bad += res.intact_bad;
        child_errors += res.child_error;
    }
    CHECK_INT_EQ(lost, 0);
    CHECK_INT_EQ(partial, 0);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(child_errors, 0);
    CHECK_INT_EQ(open_failures, 0);
    printf("# %d kills; in %d the last batch was stored though its add had not returned (killed inside the commit)\n",
           KILLS, kills_during_add);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, db, MCPP_STORE_READ_ONLY), MCPP_OK);
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK);
    CHECK_STR_EQ(report, "ok\n");
    mcpp_free(report);
    mcpp_store_close(s);
}

#define PER_WRITER 150
#define SHARED 40

static void concurrent_child(const char *path, const char *prefix)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_CREATE) != MCPP_OK) {
        fprintf(stderr, "%s\n", mcpp_error_last()->message);
        _exit(1);
    }
    for (size_t i = 0; i < PER_WRITER + SHARED; i++) {
        /* interleave own receipts with the shared ones both writers add */
        mcpp_receipt *r = i < PER_WRITER ? fixture_numbered(prefix, i, 1000.0 + (double)i)
                                         : fixture_numbered("shared", i - PER_WRITER, 7.0);
        const mcpp_receipt *one[1] = {r};
        if (mcpp_store_add(NULL, s, one, 1) != MCPP_OK) {
            fprintf(stderr, "writer %s: %s\n", prefix, mcpp_error_last()->message);
            _exit(1);
        }
        mcpp_receipt_free(r);
    }
    mcpp_store_close(s);
    _exit(0);
}

TEST(two_processes_adding_at_once_lose_nothing)
{
    char path[400];
    snprintf(path, sizeof path, "%s/concurrent.db", tmpdir);
    pid_t a = fork();
    if (a == 0) concurrent_child(path, "a");
    pid_t b = fork();
    if (b == 0) concurrent_child(path, "b");
    int status_a = -1, status_b = -1;
    waitpid(a, &status_a, 0);
    waitpid(b, &status_b, 0);
    CHECK(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0);
    CHECK(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    size_t live = 0;
    CHECK_INT_EQ(mcpp_store_count(&live, NULL, s), MCPP_OK);
    CHECK_INT_EQ((int)live, 2 * PER_WRITER + SHARED);
    mcpp_store_close(s);
}

/* Two processes creating one new store at the same moment both get it: the
 * switch to WAL waits for the other's lock instead of failing "database is
 * locked" (it did about once in 20 runs of the test above). */
TEST(two_processes_creating_one_store_at_once_both_open_it)
{
    enum { ROUNDS = 40 };
    int failed = 0;
    for (int round = 0; round < ROUNDS; round++) {
        char path[400];
        snprintf(path, sizeof path, "%s/race-%d.db", tmpdir, round);
        pid_t kids[2];
        for (int k = 0; k < 2; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                mcpp_store *s = NULL;
                int rc = mcpp_store_open(&s, path, MCPP_STORE_CREATE);
                if (rc != MCPP_OK) fprintf(stderr, "round %d: %s\n", round, mcpp_error_last()->message);
                mcpp_store_close(s);
                _exit(rc == MCPP_OK ? 0 : 1);
            }
        }
        for (int k = 0; k < 2; k++) {
            int status = -1;
            waitpid(kids[k], &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
        }
    }
    CHECK_INT_EQ(failed, 0);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-durability-XXXXXX");
    if (!mkdtemp(tmpdir)) return 2;
    snprintf(db, sizeof db, "%s/crash.db", tmpdir);
    RUN(sigkill_at_random_moments_loses_no_returned_add_and_leaves_nothing_partial);
    RUN(two_processes_adding_at_once_lose_nothing);
    RUN(two_processes_creating_one_store_at_once_both_open_it);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_MAIN_END();
}
