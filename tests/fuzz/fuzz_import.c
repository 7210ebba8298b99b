/*
 * fuzz_import.c — libFuzzer target: the bytes as the input of every importer
 * of the registry (written to a file, as importers read files). Each import
 * gives receipts that write as JSON and load again to the same id, or is
 * refused with MCPP_EINVALID, MCPP_ELIMIT, MCPP_EIO or MCPP_ENOMEM; anything
 * else (MCPP_EINTERNAL, a crash, a sanitizer report) is a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcpp_receipts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const mcpp_receipt *r)
{
    char *json = NULL;
    size_t len = 0;
    mcpp_receipt *again = NULL;
    if (mcpp_receipt_write(&json, &len, r, MCPP_FORMAT_JSON) != MCPP_OK ||
        mcpp_receipt_load_buffer(&again, NULL, json, len, MCPP_FORMAT_JSON, "imported", NULL) != MCPP_OK ||
        strcmp(mcpp_receipt_id(again), mcpp_receipt_id(r)) != 0) {
        fprintf(stderr, "an imported receipt does not load again: %s\n", mcpp_error_last()->message);
        abort();
    }
    mcpp_receipt_free(again);
    mcpp_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/mcpp-fuzz-import-%d.txt", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    const char *paths[] = {path};
    for (int fmt = 1; mcpp_import_format_name((mcpp_import_format)fmt); fmt++) {
        mcpp_receipt_set *set = NULL;
        int rc = mcpp_import_files(&set, (mcpp_import_format)fmt, paths, 1);
        if (rc == MCPP_OK) {
            for (size_t i = 0; i < mcpp_receipt_set_count(set); i++)
                check_round_trip(mcpp_receipt_set_at(set, i));
        } else if (rc != MCPP_EINVALID && rc != MCPP_ELIMIT && rc != MCPP_EIO && rc != MCPP_ENOMEM) {
            fprintf(stderr, "import %s: unexpected status %d: %s\n", mcpp_import_format_name((mcpp_import_format)fmt),
                    rc, mcpp_error_last()->message);
            abort();
        }
        mcpp_receipt_set_free(set);
    }
    return 0;
}
