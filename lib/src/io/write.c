/*
 * write.c — the public writers: mcpp_receipt_write (to memory),
 * mcpp_receipt_write_file and mcpp_text_write_file (atomic: temp file in the same directory, fsync,
 * rename, directory fsync — a crash leaves the old file or the new one).
 * The replaced file keeps its permission bits; a new one gets 0666 less the
 * umask; a symbolic link is written through to its target (see below).
 */
/* realpath() is XSI; the rest of the library needs only POSIX 2008. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/*
 * Where the bytes for `path` really go. A symbolic link is written through:
 * its target is replaced (atomically, in the target's directory) and the
 * link itself stays a link; a link to nothing is refused rather than turned
 * into a regular file. Sets *mode to the existing file's permission bits, or
 * to -1 for a new file. Caller frees *target.
 */
static int resolve_target(char **target, int *mode, const char *path)
{
    struct stat st;
    *target = NULL;
    *mode = -1;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot inspect the file: %s",
                                  strerror(errno));
        *target = strdup(path);
        return *target ? MCPP_OK : mcpp_error_nomem();
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target || stat(*target, &st) != 0) {
            int err = errno;
            free(*target);
            *target = NULL;
            return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0,
                                  "is a symbolic link whose target cannot be written: %s",
                                  strerror(err));
        }
    } else {
        *target = strdup(path);
        if (!*target)
            return mcpp_error_nomem();
    }
    if (!S_ISREG(st.st_mode)) {
        free(*target);
        *target = NULL;
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "is not a regular file");
    }
    *mode = (int)(st.st_mode & 07777);
    return MCPP_OK;
}

/* "DIR/" of `path` ("" when it has no directory part) into a new string. */
static char *directory_prefix(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

/*
 * Creates DIR/.mcpp-XXXXXXXX exclusively. The name is short so that a target
 * whose own name is at NAME_MAX still has a temporary sibling, and it is
 * created with mode 0666 so the kernel applies the umask (mkstemp's 0600
 * would have to be widened by hand, ignoring the umask).
 */
static int create_temp(char **tmp_out, const char *dir)
{
    static const char ALNUM[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t dlen = strlen(dir);
    char *tmp = malloc(dlen + 16);
    if (!tmp)
        return -1;
    unsigned long long seed = (unsigned long long)getpid() * 2654435761u ^ (unsigned long long)(size_t)tmp;
    for (int attempt = 0; attempt < 100; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = seed ^ ((unsigned long long)ts.tv_nsec << 7) ^ (unsigned long long)attempt;
        memcpy(tmp, dir, dlen);
        memcpy(tmp + dlen, ".mcpp-", 6);
        for (int i = 0; i < 8; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            tmp[dlen + 6 + i] = ALNUM[(x >> 33) % (sizeof ALNUM - 1)];
        }
        tmp[dlen + 14] = '\0';
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    free(tmp);
    return -1;
}

static void sync_directory(const char *dir)
{
    int dfd = open(*dir ? dir : ".", O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd); /* the rename itself must survive a crash */
        close(dfd);
    }
}

/* Writes `text` to `target` by temp file + fsync + rename; keeps `mode` (-1: new file). */
static int replace_file(const char *path, const char *target, int mode, const char *text, size_t len)
{
    char *dir = directory_prefix(target);
    char *tmp = NULL;
    if (!dir)
        return mcpp_error_nomem();
    int fd = create_temp(&tmp, dir);
    if (fd < 0) {
        int rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot create a temporary file in '%s': %s",
                                *dir ? dir : ".", strerror(errno));
        free(dir);
        return rc;
    }
    int rc = MCPP_OK;
    if ((mode >= 0 && fchmod(fd, (mode_t)mode) != 0) || write_all(fd, text, len) != 0 || fsync(fd) != 0) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "write failed: %s", strerror(errno));
        close(fd);
        unlink(tmp);
    } else if (close(fd) != 0 || rename(tmp, target) != 0) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot replace the file: %s",
                            strerror(errno));
        unlink(tmp);
    } else {
        sync_directory(dir);
    }
    free(tmp);
    free(dir);
    return rc;
}

int mcpp_text_write_file(const char *path, const char *text, size_t len)
{
    if (!path || (!text && len))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0, "path and text must not be NULL");
    char *target = NULL;
    int mode;
    int rc = resolve_target(&target, &mode, path);
    if (rc == MCPP_OK)
        rc = replace_file(path, target, mode, text ? text : "", len);
    free(target);
    return rc;
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
    char *target = NULL;
    int mode;
    int rc = resolve_target(&target, &mode, path);
    if (rc != MCPP_OK)
        return rc;
    char *text = NULL;
    size_t len = 0;
    rc = mcpp_receipt_write(&text, &len, receipt, format);
    if (rc == MCPP_OK)
        rc = replace_file(path, target, mode, text, len);
    free(text);
    free(target);
    return rc;
}
