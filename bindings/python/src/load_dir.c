/*
 * load_dir.c — load_dir(path, recursive=True, threads=None): finds the receipt
 * files under a folder and loads them on worker threads with the GIL released.
 *
 * Where the time goes for 10^5 small files, and what is done about it:
 *   - finding them: readdir's d_type says file or folder, so no stat() per
 *     entry (only links and file systems without d_type are stat'ed);
 *   - reading them: the kernel's share (open, read, close) is about half of
 *     the whole, so each file costs as few and as cheap system calls as can
 *     be: a worker opens a file relative to its folder (openat on a folder
 *     descriptor it keeps while the sorted paths stay in that folder, so the
 *     kernel looks up one name, not the whole path), reads it with no fstat
 *     (readdir said it is a regular file; a short read is its end; only a
 *     file that fills the buffer is measured) into ONE buffer it reuses, and
 *     claims files in batches of consecutive (sorted) paths, so a folder is
 *     read together;
 *   - parsing them: the direct JSON reader binds without a tree; the cJSON
 *     subtrees it (or the tree path) still builds come from a per-thread
 *     arena (json_arena.c);
 *   - keeping them: the receipts of one call share one copy of what repeats
 *     between them (mcpp_receipt_share_pack: member names, strings, subtrees
 *     such as a suite's context), which halves what 10^5 receipts of one
 *     suite hold, for a seventh more time;
 *   - wrapping them: a Receipt object per file, with the GIL held after the
 *     workers finish; it is a small share (the object holds the C receipt
 *     and builds nothing else until asked), so it is not overlapped with
 *     the loading.
 * Any file the fast reading path cannot read is handed to
 * mcpp_receipt_load_file, so a failure reads exactly as load() reports it.
 */
#define _GNU_SOURCE /* d_type and DT_* in <dirent.h>, O_PATH in <fcntl.h> */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

enum {
    CLAIM_BATCH = 32,            /* files a worker takes at a time              */
    ARENA_BYTES = 512 * 1024,    /* per worker; a bigger tree spills to malloc  */
};

static mcpp_py_state *module_state(PyObject *module)
{
    return (mcpp_py_state *)PyModule_GetState(module);
}

/* ---- finding the files --------------------------------------------------------- */

/* A file to load: its full path (what errors and Receipt.filename name), where
 * its last component starts (the worker opens that relative to its folder),
 * and whether readdir/stat said it is a regular file (only those take the
 * fast reading path; anything else goes straight to the library). */
typedef struct path_entry {
    char *path;
    size_t name_off;
    int regular;
} path_entry;

/* The paths live in blocks, one per folder (all its files' paths, one
 * malloc instead of one per file), which the list owns. */
typedef struct path_list {
    path_entry *items;
    size_t count, cap;
    char **blocks;
    size_t n_blocks, blocks_cap;
    int unsorted; /* set when collect's folder-by-folder order may not be path order */
} path_list;

static void path_list_free(path_list *l)
{
    for (size_t i = 0; i < l->n_blocks; i++)
        free(l->blocks[i]);
    free(l->blocks);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Hands `block` to the list (freed with it); frees it and returns -1 when
 * out of memory. */
static int path_list_own(path_list *l, char *block)
{
    if (l->n_blocks == l->blocks_cap) {
        size_t cap = l->blocks_cap ? l->blocks_cap * 2 : 64;
        char **blocks = realloc(l->blocks, cap * sizeof *blocks);
        if (!blocks) {
            free(block);
            return -1;
        }
        l->blocks = blocks;
        l->blocks_cap = cap;
    }
    l->blocks[l->n_blocks++] = block;
    return 0;
}

static int path_list_push(path_list *l, char *path, int regular)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        path_entry *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    const char *slash = strrchr(path, '/');
    path_entry *e = &l->items[l->count++];
    e->path = path;
    e->name_off = slash ? (size_t)(slash - path) + 1 : 0;
    e->regular = regular;
    return 0;
}

/* The format a receipt file's extension names, or -1 for other files. */
static int extension_format(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return -1;
    if (strcmp(dot, ".json") == 0)
        return MCPP_FORMAT_JSON;
    if (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0)
        return MCPP_FORMAT_YAML;
    return -1;
}

/* Bytes before a name in "dir/name": the folder and the '/' it lacks. */
static size_t path_prefix(const char *dir, size_t dir_len)
{
    return dir_len + (dir_len > 0 && dir[dir_len - 1] != '/');
}

/* Writes "dir/name" with its NUL into dst (path_prefix + len + 1 bytes);
 * returns the bytes written. */
static size_t put_path(char *dst, const char *dir, size_t dir_len, const char *name, size_t len)
{
    size_t prefix = path_prefix(dir, dir_len);
    memcpy(dst, dir, dir_len);
    if (prefix > dir_len)
        dst[dir_len] = '/';
    memcpy(dst + prefix, name, len + 1);
    return prefix + len + 1;
}

static char *join_path(const char *dir, const char *name)
{
    size_t ld = strlen(dir), ln = strlen(name);
    char *p = malloc(path_prefix(dir, ld) + ln + 1);
    if (p)
        put_path(p, dir, ld, name, ln);
    return p;
}

static int directory_error(mcpp_py_error *err, const char *dir)
{
    const char *why = strerror(errno);
    memset(err, 0, sizeof *err);
    err->code = MCPP_EIO;
    err->kind = strdup("io");
    err->file = strdup(dir);
    size_t n = strlen(dir) + strlen(why) + 64;
    err->message = malloc(n);
    if (err->message)
        snprintf(err->message, n, "%s: cannot open directory: %s", dir, why);
    return -1;
}

/* What an entry is: its d_type when the file system gives one, else stat()
 * (which also follows links, so a linked folder is entered). Returns DT_DIR,
 * DT_REG, DT_UNKNOWN for "cannot tell" (a dangling link) or another DT_*. */
static unsigned char entry_type(const struct dirent *e, const char *full)
{
    if (e->d_type == DT_DIR || e->d_type == DT_REG)
        return e->d_type;
    if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
        return e->d_type;
    struct stat sb;
    if (stat(full, &sb) != 0)
        return DT_UNKNOWN;
    return S_ISDIR(sb.st_mode) ? DT_DIR : S_ISREG(sb.st_mode) ? DT_REG : DT_FIFO;
}

/* One entry of a folder being collected: its name (in the folder's name
 * pool) and whether it is a receipt file or a folder to enter. */
typedef struct dir_item {
    size_t off, len;
    const char *name;
    int is_dir, regular;
} dir_item;

/* Path order within one folder: a folder's paths all start with "name/", so
 * ordering folders by name + "/" and files by name, then entering each
 * folder in its place, lists the whole tree in strcmp order of the full paths
 * without sorting 10^5 long paths at the end. (Names hold no '/' and are
 * unique in a folder.) */
static int compare_items(const void *pa, const void *pb)
{
    const dir_item *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c || a->len == b->len)
        return c;
    if (a->len < b->len) /* a's next byte: '/' after a folder's name, else its end */
        return (a->is_dir ? '/' : 0) < (unsigned char)b->name[n] ? -1 : 1;
    return (unsigned char)a->name[n] < (b->is_dir ? '/' : 0) ? -1 : 1;
}

/* Collects receipt files under `dir`, in path order; hidden entries (".git",
 * editor swap files) are skipped. Returns 0, -2 when out of memory, or -1
 * with the failure in *err when `dir` itself cannot be opened. A
 * sub-directory that cannot be opened is collected like a file, so that
 * loading it fails and it shows up in ReceiptSet.errors instead of vanishing
 * (its path sorts differently from a folder's contents, so the list is then
 * sorted again); so is a dangling link named like a receipt. The folder is
 * read whole and closed before its sub-folders are entered. */
static int collect(path_list *out, const char *dir, int recursive, int depth, mcpp_py_error *err)
{
    DIR *d = opendir(dir);
    if (!d && depth > 0) {
        char *copy = strdup(dir);
        if (!copy || path_list_own(out, copy) < 0 || path_list_push(out, copy, 0) < 0)
            return -2;
        out->unsorted = 1;
        return 0;
    }
    if (!d)
        return directory_error(err, dir);
    size_t dir_len = strlen(dir);
    size_t prefix = path_prefix(dir, dir_len); /* "dir/" */
    char *names = NULL, *full = NULL;
    size_t names_used = 0, names_cap = 0, full_cap = 0, file_bytes = 0;
    dir_item *items = NULL;
    size_t n_items = 0, items_cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(e->d_name);
        unsigned char type = e->d_type;
        if (type != DT_DIR && type != DT_REG) { /* a link or no d_type: stat the full path */
            if (prefix + len + 1 > full_cap) {
                char *grown = realloc(full, prefix + len + 1);
                if (!grown) {
                    rc = -2;
                    break;
                }
                full = grown;
                full_cap = prefix + len + 1;
            }
            put_path(full, dir, dir_len, e->d_name, len);
            type = entry_type(e, full);
        }
        int keep = (type == DT_REG || type == DT_UNKNOWN) && extension_format(e->d_name) >= 0;
        int enter = type == DT_DIR && recursive && depth < 64;
        if (!keep && !enter)
            continue;
        if (n_items == items_cap || names_used + len + 1 > names_cap) {
            size_t icap = n_items == items_cap ? (items_cap ? items_cap * 2 : 256) : items_cap;
            size_t ncap = names_cap;
            while (names_used + len + 1 > ncap)
                ncap = ncap ? ncap * 2 : 16384;
            dir_item *gi = icap != items_cap ? realloc(items, icap * sizeof *items) : items;
            if (gi)
                items = gi, items_cap = icap;
            char *gn = ncap != names_cap ? realloc(names, ncap) : names;
            if (gn)
                names = gn, names_cap = ncap;
            if (!gi || !gn) {
                rc = -2;
                break;
            }
        }
        memcpy(names + names_used, e->d_name, len + 1);
        items[n_items++] = (dir_item){names_used, len, NULL, enter, type == DT_REG};
        names_used += len + 1;
        if (keep)
            file_bytes += prefix + len + 1;
    }
    closedir(d);
    free(full);
    char *block = NULL;
    if (rc == 0 && file_bytes && (!(block = malloc(file_bytes)) || path_list_own(out, block) < 0))
        rc = -2;
    if (rc == 0) {
        for (size_t i = 0; i < n_items; i++)
            items[i].name = names + items[i].off;
        qsort(items, n_items, sizeof *items, compare_items);
    }
    for (size_t i = 0; rc == 0 && i < n_items; i++) {
        const dir_item *it = &items[i];
        if (it->is_dir) {
            char *sub = join_path(dir, it->name);
            rc = sub ? collect(out, sub, recursive, depth + 1, err) : -2;
            free(sub);
            continue;
        }
        size_t used = put_path(block, dir, dir_len, it->name, it->len);
        if (path_list_push(out, block, it->regular) < 0)
            rc = -2;
        block += used;
    }
    free(items);
    free(names);
    return rc;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(((const path_entry *)a)->path, ((const path_entry *)b)->path);
}

/* ---- loading them ---------------------------------------------------------------- */

/* One file's outcome, filled without the GIL. */
typedef struct load_slot {
    mcpp_receipt *receipt;
    mcpp_py_error error;
} load_slot;

/* Files are independent, so worker threads claim the next batch of unclaimed
 * indexes until none are left; each slot is written by exactly one worker.
 * The library's last error is thread-local, so each worker captures its own. */
typedef struct load_job {
    path_entry *files;
    load_slot *slots;
    size_t count;
    size_t max_bytes; /* the default input limit, checked before reading */
    atomic_size_t next;
    mcpp_receipt_share *share; /* what the receipts share, or NULL (out of memory: none) */
} load_job;

/* A worker's read buffer, grown as needed and reused for every file, and the
 * folder it has open: files are opened relative to it (openat), so the kernel
 * looks up one name per file instead of walking the whole path again. A batch
 * of sorted paths is mostly one folder, so it is opened once per batch or less. */
typedef struct worker_io {
    char *data;
    size_t cap;
    int dir_fd;       /* -1: none open */
    const char *dir;  /* the path whose first dir_len bytes name the open folder */
    size_t dir_len;
    char *dir_name;   /* that folder, NUL-terminated, for open() */
    size_t dir_name_cap;
} worker_io;

enum { FIRST_BUFFER = 16 * 1024 }; /* a receipt is ~2 KB; bigger files grow it */

/* O_PATH: the folder is only a base for openat, so it need not be readable,
 * and the open is cheaper. */
#ifdef O_PATH
#define FOLDER_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define FOLDER_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

static int grow_buffer(worker_io *io, size_t want)
{
    if (want <= io->cap)
        return 0;
    size_t cap = io->cap ? io->cap : FIRST_BUFFER;
    while (cap < want)
        cap *= 2;
    char *data = realloc(io->data, cap);
    if (!data)
        return -1;
    io->data = data;
    io->cap = cap;
    return 0;
}

/* The folder of `e`, open: the one already open when it is the same folder
 * (same leading bytes), else that one is closed and this one opened. Returns
 * the descriptor, or -1 when the folder cannot be opened. */
static int folder_of(worker_io *io, const path_entry *e)
{
    if (e->name_off == 0)
        return AT_FDCWD; /* a bare name (collect never makes one): the working folder */
    if (io->dir_fd >= 0 && io->dir_len == e->name_off && memcmp(io->dir, e->path, e->name_off) == 0)
        return io->dir_fd;
    if (io->dir_fd >= 0)
        close(io->dir_fd);
    io->dir_fd = -1;
    if (e->name_off + 1 > io->dir_name_cap) {
        char *name = realloc(io->dir_name, e->name_off + 1);
        if (!name)
            return -1;
        io->dir_name = name;
        io->dir_name_cap = e->name_off + 1;
    }
    memcpy(io->dir_name, e->path, e->name_off); /* with its trailing '/' */
    io->dir_name[e->name_off] = '\0';
    io->dir_fd = open(io->dir_name, FOLDER_FLAGS);
    io->dir = e->path;
    io->dir_len = e->name_off;
    return io->dir_fd;
}

/* Reads the regular file `e` (at most max_bytes) into io's buffer. Returns its
 * size, or -1 for anything unusual, which the caller leaves to the library.
 *
 * No fstat() per file: readdir (or collect's stat) already said the entry is a
 * regular file, and a read that returns less than it asked for of a regular
 * file has reached its end. Only a file that fills the buffer is fstat'ed,
 * so that one over the size limit is refused (by the library) without being
 * read, and the buffer grows to the file's size. */
static long long read_whole_file(const path_entry *e, worker_io *io, size_t max_bytes)
{
    int dir = folder_of(io, e);
    int fd = dir == -1 ? -1 : openat(dir, e->path + e->name_off, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    long long size = -1;
    size_t got = 0;
    if (grow_buffer(io, FIRST_BUFFER) < 0)
        goto done;
    for (;;) {
        if (got == io->cap) { /* full: measure, refuse or grow to its size + 1 */
            struct stat sb;
            if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
                (unsigned long long)sb.st_size > max_bytes || got >= max_bytes)
                goto done;
            size_t size_now = (size_t)sb.st_size > got ? (size_t)sb.st_size : got;
            if (grow_buffer(io, size_now + 1) < 0) /* + 1: the short read that ends it */
                goto done;
        }
        ssize_t n = read(fd, io->data + got, io->cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto done;
        got += (size_t)n;
        if (n == 0 || got < io->cap)
            break; /* end of the file (a short read of a regular file is its end) */
    }
    if (got <= max_bytes)
        size = (long long)got;
done:
    close(fd);
    return size;
}

static void load_one(load_job *job, size_t i, worker_io *io)
{
    load_slot *slot = &job->slots[i];
    const path_entry *e = &job->files[i];
    long long size = e->regular ? read_whole_file(e, io, job->max_bytes) : -1;
    int format = extension_format(e->path + e->name_off);
    int rc;
    if (size >= 0)
        rc = mcpp_receipt_load_buffer(&slot->receipt, NULL, io->data, (size_t)size,
                                      format < 0 ? MCPP_FORMAT_AUTO : (mcpp_format)format, e->path,
                                      NULL);
    else /* fails again there, with the library's own message and kind */
        rc = mcpp_receipt_load_file(&slot->receipt, NULL, e->path, NULL);
    if (rc < 0) {
        mcpp_py_error_capture(&slot->error, rc);
        return;
    }
    mcpp_receipt *shared = NULL; /* out of memory: the receipt keeps its own copy */
    if (job->share && mcpp_receipt_share_pack(&shared, slot->receipt, job->share) == MCPP_OK) {
        mcpp_receipt_free(slot->receipt);
        slot->receipt = shared;
    }
}

static void *load_worker(void *arg)
{
    load_job *job = arg;
    worker_io io = {NULL, 0, -1, NULL, 0, NULL, 0};
    mcpp_py_json_arena arena;
    int have_arena = mcpp_py_json_arena_open(&arena, ARENA_BYTES) == 0;
    size_t start;
    while ((start = atomic_fetch_add(&job->next, CLAIM_BATCH)) < job->count) {
        size_t end = start + CLAIM_BATCH < job->count ? start + CLAIM_BATCH : job->count;
        for (size_t i = start; i < end; i++) {
            load_one(job, i, &io);
            if (have_arena)
                mcpp_py_json_arena_rewind(&arena);
        }
    }
    if (have_arena)
        mcpp_py_json_arena_close(&arena);
    if (io.dir_fd >= 0)
        close(io.dir_fd);
    free(io.dir_name);
    free(io.data);
    return NULL;
}

/* Runs the job on `threads` threads (the calling one included); falls back
 * to fewer when a thread cannot be started. */
static void load_all(load_job *job, size_t threads)
{
    pthread_t extra[63];
    size_t started = 0;
    if (threads > job->count / CLAIM_BATCH + 1)
        threads = job->count / CLAIM_BATCH + 1; /* small directories: not worth a thread */
    for (size_t t = 1; t < threads && t <= 63; t++) {
        if (pthread_create(&extra[started], NULL, load_worker, job) != 0)
            break;
        started++;
    }
    load_worker(job);
    for (size_t t = 0; t < started; t++)
        pthread_join(extra[t], NULL);
}

/* Moves each slot's receipt (or error, as an exception) into new lists
 * *receipts and *errors, in path order. Returns 0, or -1 with an exception
 * set (the caller releases the lists and what is left in the slots). */
static int wrap_results(mcpp_py_state *st, load_slot *slots, size_t count, PyObject **receipts,
                        PyObject **errors)
{
    if (!(*receipts = PyList_New(0)) || !(*errors = PyList_New(0)))
        return -1;
    for (size_t i = 0; i < count; i++) {
        PyObject *item, *list;
        if (slots[i].receipt) {
            item = mcpp_py_receipt_wrap(st, slots[i].receipt);
            slots[i].receipt = NULL; /* wrap took it */
            list = *receipts;
        } else {
            item = mcpp_py_error_to_exception(st, &slots[i].error);
            list = *errors;
        }
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            return -1;
        }
        Py_DECREF(item);
    }
    return 0;
}

static size_t default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return (size_t)(n > 8 ? 8 : n);
}

/* Parses load_dir(path, recursive=True, threads=None). Returns 0, or -1 with
 * a Python exception set. */
static int parse_load_dir_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               PyObject **path_arg, int *recursive, size_t *threads)
{
    PyObject *threads_arg = nargs > 2 ? args[2] : Py_None;
    *path_arg = nargs > 0 ? args[0] : NULL;
    *recursive = 1;
    if (nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "load_dir() takes at most 3 positional arguments");
        return -1;
    }
    if (nargs > 1 && (*recursive = PyObject_IsTrue(args[1])) < 0)
        return -1;
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++) {
        const char *kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (kw && strcmp(kw, "recursive") == 0 && nargs < 2) {
            if ((*recursive = PyObject_IsTrue(args[nargs + k])) < 0)
                return -1;
        } else if (kw && strcmp(kw, "threads") == 0 && nargs < 3) {
            threads_arg = args[nargs + k];
        } else if (kw && strcmp(kw, "path") == 0 && nargs < 1) {
            *path_arg = args[nargs + k];
        } else {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "load_dir() got an unexpected keyword '%s'", kw);
            return -1;
        }
    }
    if (!*path_arg) {
        PyErr_SetString(PyExc_TypeError, "load_dir() missing required argument 'path'");
        return -1;
    }
    *threads = default_threads();
    if (threads_arg != Py_None) {
        Py_ssize_t t = PyLong_AsSsize_t(threads_arg);
        if (t == -1 && PyErr_Occurred())
            return -1;
        if (t < 1 || t > 64) {
            PyErr_SetString(PyExc_ValueError, "load_dir(): threads must be 1..64 or None");
            return -1;
        }
        *threads = (size_t)t;
    }
    return 0;
}

PyObject *mcpp_py_load_dir(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PyObject *path_arg;
    int recursive;
    size_t threads;
    if (parse_load_dir_args(args, nargs, kwnames, &path_arg, &recursive, &threads) < 0)
        return NULL;
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(path_arg, &path))
        return NULL;

    mcpp_py_state *st = module_state(module);
    path_list files = {0};
    load_slot *slots = NULL;
    mcpp_py_error dir_err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = collect(&files, PyBytes_AS_STRING(path), recursive, 0, &dir_err);
    if (rc == 0) {
        if (files.unsorted) /* collect's order is path order but for this corner */
            qsort(files.items, files.count, sizeof *files.items, compare_paths);
        slots = calloc(files.count ? files.count : 1, sizeof *slots);
        if (!slots)
            rc = -2;
    }
    if (rc == 0) {
        mcpp_limits lim;
        mcpp_limits_default(&lim);
        load_job job = {files.items, slots, files.count, lim.max_input_bytes, 0, NULL};
        (void)mcpp_receipt_share_new(&job.share);
        load_all(&job, threads);
        mcpp_receipt_share_free(job.share); /* each receipt holds what it shares */
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(path);

    PyObject *receipts = NULL, *errors = NULL, *result = NULL;
    if (rc == -2) {
        PyErr_NoMemory();
        goto cleanup;
    }
    if (rc < 0) {
        mcpp_py_raise_captured(st, &dir_err);
        goto cleanup;
    }
    /* 10^5 new objects would start the collector ~150 times, and its older
     * generations would walk the growing lists each time: nothing here can
     * form a cycle, so it is paused while the results are wrapped. */
    int collector_was_on = PyGC_Disable();
    int wrapped = wrap_results(st, slots, files.count, &receipts, &errors);
    if (collector_was_on)
        PyGC_Enable();
    if (wrapped < 0)
        goto cleanup;
    result = PyTuple_Pack(2, receipts, errors);

cleanup:
    for (size_t i = 0; slots && i < files.count; i++) {
        mcpp_receipt_free(slots[i].receipt);
        mcpp_py_error_clear(&slots[i].error);
    }
    free(slots);
    path_list_free(&files);
    mcpp_py_error_clear(&dir_err);
    Py_XDECREF(receipts);
    Py_XDECREF(errors);
    return result;
}
