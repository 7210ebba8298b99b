/*
 * write.c — the public writers: mcpp_receipt_write (to memory) and
 * mcpp_receipt_write_file (atomic: temp file in the same directory, fsync,
 * rename, directory fsync — a crash leaves the old file or the new one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error_internal.h"
#include "receipt/receipt_internal.h"

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

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
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
    if (rc != MCPP_OK)
        return rc;

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    char *dir = malloc(plen + 2);
    if (!tmp || !dir) {
        free(text);
        free(tmp);
        free(dir);
        return mcpp_error_nomem();
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot create a temporary file: %s",
                            strerror(errno));
        goto cleanup;
    }
    if (write_all(fd, text, len) != 0 || fsync(fd) != 0) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "write failed: %s",
                            strerror(errno));
        close(fd);
        unlink(tmp);
        goto cleanup;
    }
    /* mkstemp creates 0600; a receipt is an ordinary document */
    (void)fchmod(fd, 0644);
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot replace the file: %s",
                            strerror(errno));
        unlink(tmp);
        goto cleanup;
    }
    memcpy(dir, path, plen + 1);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd); /* the rename itself must survive a crash */
        close(dfd);
    }
    rc = MCPP_OK;
cleanup:
    free(text);
    free(tmp);
    free(dir);
    return rc;
}
