/*
 * store_read_only_handle.c — one read-only handle kept open while another
 * process writes (pg_store_test.py lane_keys, on a SQLite file and on a
 * PostgreSQL URL): a read-only open of a store whose lane columns are in
 * another key format reads columns derived for its session; rows another
 * process adds later must still be seen through them.
 *
 * usage: store_read_only_handle STORE LANE COMMAND...
 * Opens STORE read-only, counts its receipts and those `--lane LANE`
 * selects, runs COMMAND (fork/exec; it must exit 0), counts again through
 * the same handle, and prints "BEFORE LANE_BEFORE AFTER LANE_AFTER".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcpp_receipts/common.h"
#include "mcpp_receipts/receipt_set.h"
#include "mcpp_receipts/store.h"

static int counts(size_t *all, size_t *lane, mcpp_store *s, const char *selector)
{
    size_t removed = 0;
    int rc = mcpp_store_count(all, &removed, s);
    mcpp_receipt_set *set = NULL;
    mcpp_store_query q = {0};
    q.lane = selector;
    if (!rc)
        rc = mcpp_store_query_set(&set, s, &q);
    *lane = set ? mcpp_receipt_set_count(set) : 0;
    mcpp_receipt_set_free(set);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: store_read_only_handle STORE LANE COMMAND...\n");
        return 2;
    }
    mcpp_store *s = NULL;
    size_t before = 0, lane_before = 0, after = 0, lane_after = 0;
    int rc = mcpp_store_open(&s, argv[1], MCPP_STORE_READ_ONLY);
    if (!rc)
        rc = counts(&before, &lane_before, s, argv[2]);
    pid_t pid = rc ? -1 : fork();
    if (pid == 0) {
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int status = 0;
    if (pid > 0 && (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        fprintf(stderr, "store_read_only_handle: %s failed (status %d)\n", argv[3], status);
        mcpp_store_close(s);
        return 1;
    }
    if (!rc)
        rc = counts(&after, &lane_after, s, argv[2]);
    if (rc)
        fprintf(stderr, "store_read_only_handle: %s\n", mcpp_error_last()->message);
    mcpp_store_close(s);
    printf("%zu %zu %zu %zu\n", before, lane_before, after, lane_after);
    return rc ? 1 : 0;
}
