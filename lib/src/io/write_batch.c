/*
 * write_batch.c — writing one file or many atomically and durably: each text
 * goes to a temporary sibling of its target (".mcpp-XXXXXXXX", a name no
 * loader reads), and only when all of them are written are they synced, put
 * in place by rename and their directories synced. A crash leaves every
 * target either as it was or whole, never a partly written file under a
 * target's name; a failure before the renames leaves no target touched.
 *
 * Many files are synced once for the batch (issue 50: an import of 10,000
 * benchmarks made 20,000 fsync calls, 7 s on an idle VM and 105 s under
 * load): on Linux one syncfs() per filesystem the temporaries are on, whose
 * writeback was already started as each was written; elsewhere one fsync per
 * temporary. Then one fsync per directory for the renames. A batch of one
 * file fsyncs that file (syncfs would flush the whole filesystem for it).
 *
 * The replaced file keeps its permission bits; a new one gets 0666 less the
 * umask; a symbolic link is written through to its target (see
 * resolve_target).
 */
/* realpath() is XSI; syncfs() and sync_file_range() are Linux's. */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/io_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"

/* From this many files a batch is synced with one syncfs() (Linux). */
#define BATCH_SYNCFS_MIN 16

typedef struct pending_file {
    char *path;   /* as the caller named it, for messages */
    char *target; /* where the bytes go (a link's target) */
    char *tmp;    /* the temporary sibling, NULL once renamed */
    dev_t dev;    /* the filesystem of the temporary */
} pending_file;

struct mcpp_write_batch {
    pending_file *files;
    size_t n, cap;
};

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
 * to -1 for a new file. Caller frees *target (NULL after a failure).
 */
static int resolve_target(char **target, int *mode, const char *path)
{
    struct stat st;
    int rc;
    *target = NULL;
    *mode = -1;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0,
                                 "cannot inspect the file: %s", strerror(errno));
        *target = mcpp_strdup(path, NULL);
        return *target ? MCPP_OK : mcpp_error_nomem();
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target || stat(*target, &st) != 0) {
            rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0,
                               "is a symbolic link whose target cannot be written: %s", strerror(errno));
            goto fail;
        }
    } else if (!(*target = mcpp_strdup(path, NULL))) {
        return mcpp_error_nomem();
    }
    if (!S_ISREG(st.st_mode)) {
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "is not a regular file");
        goto fail;
    }
    *mode = (int)(st.st_mode & 07777);
    return MCPP_OK;
fail:
    free(*target);
    *target = NULL;
    return rc;
}

/* "DIR/" of `path` ("" when it has no directory part) into a new string. */
static char *directory_prefix(const char *path)
{
    const char *slash = strrchr(path, '/');
    return mcpp_strndup(path, slash ? (size_t)(slash - path) + 1 : 0, NULL);
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
    unsigned long long seed =
        (unsigned long long)getpid() * 2654435761u ^ (unsigned long long)(size_t)tmp;
    for (int attempt = 0; attempt < 100; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x =
            seed ^ ((unsigned long long)ts.tv_nsec << 7) ^ (unsigned long long)attempt;
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

int mcpp_write_batch_new(mcpp_write_batch **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? MCPP_OK : mcpp_error_nomem();
}

/* Removes the temporaries not yet renamed. */
static void discard_pending(mcpp_write_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->files[i].tmp) {
            unlink(b->files[i].tmp);
            free(b->files[i].tmp);
            b->files[i].tmp = NULL;
        }
}

void mcpp_write_batch_free(mcpp_write_batch *b)
{
    if (!b)
        return;
    discard_pending(b);
    for (size_t i = 0; i < b->n; i++) {
        free(b->files[i].path);
        free(b->files[i].target);
    }
    free(b->files);
    free(b);
}

/* The writer a producer hands its text to: the temporary's descriptor, and
 * the errno of the first write that failed (0: none). */
typedef struct fd_writer {
    int fd;
    int err;
} fd_writer;

static int write_to_fd(void *ctx, const char *data, size_t len)
{
    fd_writer *w = ctx;
    if (w->err)
        return -1;
    if (write_all(w->fd, data, len) != 0) {
        w->err = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* A whole text as a producer. */
typedef struct whole_text {
    const char *text;
    size_t len;
} whole_text;

static int produce_whole(void *ctx, mcpp_write_fn write, void *wctx)
{
    const whole_text *t = ctx;
    return t->len && write(wctx, t->text, t->len) != 0 ? MCPP_EIO : MCPP_OK;
}

/* Writes what `produce` hands over into a new temporary sibling of `target`
 * with `mode` (-1: the umask's); starts its writeback where the system can,
 * so that the batch's sync finds most of it done. */
static int write_temp(pending_file *f, int mode, mcpp_produce_fn produce, void *ctx)
{
    char *dir = directory_prefix(f->target);
    if (!dir)
        return mcpp_error_nomem();
    int fd = create_temp(&f->tmp, dir);
    int rc = fd >= 0 ? MCPP_OK
                     : mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, f->path, NULL, 0, 0,
                                     "cannot create a temporary file in '%s': %s", *dir ? dir : ".", strerror(errno));
    free(dir);
    if (rc != MCPP_OK)
        return rc;
    struct stat st;
    fd_writer w = {fd, 0};
    if (mode >= 0 && fchmod(fd, (mode_t)mode) != 0)
        w.err = errno;
    int made = w.err ? MCPP_EIO : produce(ctx, write_to_fd, &w);
    if (w.err || (made == MCPP_OK && fstat(fd, &st) != 0))
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, f->path, NULL, 0, 0, "write failed: %s",
                           strerror(w.err ? w.err : errno));
    else if (made != MCPP_OK)
        rc = made; /* the producer's own failure, its error set */
    else
        f->dev = st.st_dev;
#ifdef SYNC_FILE_RANGE_WRITE
    if (rc == MCPP_OK)
        (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* a hint: the sync below decides */
#endif
    if (close(fd) != 0 && rc == MCPP_OK)
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, f->path, NULL, 0, 0, "write failed: %s",
                           strerror(errno));
    if (rc != MCPP_OK) {
        unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
    }
    return rc;
}

int mcpp_write_batch_add(mcpp_write_batch *b, const char *path, const char *text, size_t len)
{
    if (!text && len)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                             "batch, path and text must not be NULL");
    whole_text t = {text, len};
    return mcpp_write_batch_add_from(b, path, produce_whole, &t);
}

int mcpp_write_batch_add_from(mcpp_write_batch *b, const char *path, mcpp_produce_fn produce, void *ctx)
{
    if (!b || !path || !produce)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                             "batch, path and text must not be NULL");
    MCPP_CHECK_ARRAY(b->files, b->cap, b->n + 1, MCPP_ARRAY_MAX_ITEMS);
    pending_file *f = &b->files[b->n];
    memset(f, 0, sizeof *f);
    int mode;
    int rc = resolve_target(&f->target, &mode, path);
    if (rc == MCPP_OK && !(f->path = mcpp_strdup(path, NULL)))
        rc = mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = write_temp(f, mode, produce, ctx);
    if (rc != MCPP_OK) {
        free(f->path);
        free(f->target);
        return rc;
    }
    b->n++;
    return MCPP_OK;
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int err = errno;
    close(fd);
    errno = err;
    return rc;
}

/* Makes the temporaries' bytes durable: one syncfs() per filesystem they are
 * on (Linux, BATCH_SYNCFS_MIN files or more), else one fsync each. */
static int sync_temps(mcpp_write_batch *b)
{
#ifdef __linux__
    if (b->n >= BATCH_SYNCFS_MIN) {
        for (size_t i = 0; i < b->n; i++) {
            size_t first = 0; /* the first temporary on this filesystem */
            while (b->files[first].dev != b->files[i].dev)
                first++;
            if (first != i)
                continue;
            int fd = open(b->files[i].tmp, O_RDONLY | O_CLOEXEC);
            int ok = fd >= 0 && syncfs(fd) == 0;
            int err = errno;
            if (fd >= 0)
                close(fd);
            if (!ok)
                return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, b->files[i].path, NULL, 0, 0,
                                     "cannot sync the written files: %s", strerror(err));
        }
        return MCPP_OK;
    }
#endif
    for (size_t i = 0; i < b->n; i++)
        if (fsync_path(b->files[i].tmp) != 0)
            return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, b->files[i].path, NULL, 0, 0,
                                 "write failed: %s", strerror(errno));
    return MCPP_OK;
}

/* Syncs the target directories: the renames themselves must survive a crash.
 * One fsync for each run of files in one directory (an import writes all of
 * its files into one). A directory that cannot be synced (some filesystems
 * refuse) is left as the single-file writer always left it. */
static void sync_directories(const mcpp_write_batch *b)
{
    char *last = NULL;
    for (size_t i = 0; i < b->n; i++) {
        char *dir = directory_prefix(b->files[i].target);
        if (!dir || (last && strcmp(dir, last) == 0)) {
            free(dir); /* out of memory: the renames are done, the sync is best effort */
            continue;
        }
        int dfd = open(*dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(last);
        last = dir;
    }
    free(last);
}

int mcpp_write_batch_commit(mcpp_write_batch *b)
{
    if (!b)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                             "batch is NULL");
    int rc = sync_temps(b);
    for (size_t i = 0; rc == MCPP_OK && i < b->n; i++) {
        pending_file *f = &b->files[i];
        if (rename(f->tmp, f->target) != 0) {
            rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, f->path, NULL, 0, 0,
                               "cannot replace the file: %s", strerror(errno));
            break;
        }
        free(f->tmp);
        f->tmp = NULL;
    }
    if (rc != MCPP_OK) {
        discard_pending(b);
        return rc;
    }
    sync_directories(b);
    return MCPP_OK;
}

int mcpp_text_write_file_from(const char *path, mcpp_produce_fn produce, void *ctx)
{
    if (!path || !produce)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                             "path and producer must not be NULL");
    mcpp_write_batch *b = NULL;
    int rc = mcpp_write_batch_new(&b);
    if (rc == MCPP_OK)
        rc = mcpp_write_batch_add_from(b, path, produce, ctx);
    if (rc == MCPP_OK)
        rc = mcpp_write_batch_commit(b);
    mcpp_write_batch_free(b);
    return rc;
}

int mcpp_text_write_file(const char *path, const char *text, size_t len)
{
    if (!path || (!text && len))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                             "path and text must not be NULL");
    whole_text t = {text, len};
    return mcpp_text_write_file_from(path, produce_whole, &t);
}
