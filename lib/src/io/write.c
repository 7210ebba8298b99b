/*
 * write.c — the public writers: mcpp_receipt_write (to memory),
 * mcpp_receipt_write_file (atomic and durable through mcpp_text_write_file,
 * write_batch.c: a crash leaves the old file or the new one).
 */
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "receipt/canonical_json.h"
#include "io/io_internal.h"

int mcpp_receipt_write(char **out, size_t *out_len, const mcpp_receipt *receipt,
                       mcpp_format format)
{
    return mcpp_receipt_write_schema(out, out_len, receipt, format, 2);
}

int mcpp_receipt_write_schema(char **out, size_t *out_len, const mcpp_receipt *receipt,
                              mcpp_format format, int schema_version)
{
    mcpp_strbuf sb;
    if (out_len)
        *out_len = 0;
    MCPP_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    MCPP_CHECK_ARG(receipt, "receipt is NULL");
    MCPP_CHECK_ARG(schema_version == 1 || schema_version == 2,
                   "expected schema version 1 or 2, got %d", schema_version);
    int v1 = schema_version == 1;
    if (v1 && mcpp_schema1_check(receipt) != 0)
        return MCPP_EINVALID; /* the last error names the field */
    mcpp_sb_init(&sb, NULL, 0);
    int rc = format == MCPP_FORMAT_YAML ? mcpp_write_yaml(&sb, receipt, v1)
                                        : mcpp_write_json(&sb, receipt, 1, v1);
    if (rc != 0 || sb.failed || !sb.data) {
        mcpp_sb_free(&sb);
        return mcpp_error_nomem();
    }
    *out = sb.data; /* heap-owned: the caller frees with mcpp_free */
    if (out_len)
        *out_len = sb.len;
    return MCPP_OK;
}

int mcpp_receipt_write_file(const mcpp_receipt *receipt, const char *path, mcpp_format format)
{
    if (!receipt || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                              "receipt and path must not be NULL");
    if (format == MCPP_FORMAT_AUTO) {
        const char *dot = strrchr(path, '.');
        format = dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0)
                     ? MCPP_FORMAT_YAML
                     : MCPP_FORMAT_JSON;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = mcpp_receipt_write(&text, &len, receipt, format);
    if (rc == MCPP_OK)
        rc = mcpp_text_write_file(path, text, len);
    free(text);
    return rc;
}
