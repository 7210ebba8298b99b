/*
 * fuzz_receipt_load.h — the property the JSON and YAML fuzz targets check:
 * any bytes either load as a receipt or are refused with an error (never a
 * crash, leak or undefined behaviour, which the sanitizers catch), and a
 * receipt that loads writes back as canonical JSON and YAML that load again
 * to the same id.
 */
#ifndef MCPP_FUZZ_RECEIPT_LOAD_H
#define MCPP_FUZZ_RECEIPT_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"

static void fuzz_reload(const mcpp_receipt *r, mcpp_format format)
{
    char *text = NULL;
    size_t len = 0;
    if (mcpp_receipt_write(&text, &len, r, format) != MCPP_OK) {
        fprintf(stderr, "a loaded receipt cannot be written: %s\n", mcpp_error_last()->message);
        abort();
    }
    mcpp_receipt *again = NULL;
    if (mcpp_receipt_load_buffer(&again, NULL, text, len, format, "written", NULL) != MCPP_OK ||
        strcmp(mcpp_receipt_id(again), mcpp_receipt_id(r)) != 0) {
        fprintf(stderr, "a written receipt does not load again: %s\n%s\n", mcpp_error_last()->message, text);
        abort();
    }
    mcpp_receipt_free(again);
    mcpp_free(text);
}

static int fuzz_receipt_load(const uint8_t *data, size_t size, mcpp_format format)
{
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    if (mcpp_receipt_load_buffer(&r, &report, (const char *)data, size, format, "fuzz", NULL) == MCPP_OK) {
        fuzz_reload(r, MCPP_FORMAT_JSON);
        fuzz_reload(r, MCPP_FORMAT_YAML);
    }
    mcpp_report_free(report);
    mcpp_receipt_free(r);
    return 0;
}

#endif /* MCPP_FUZZ_RECEIPT_LOAD_H */
