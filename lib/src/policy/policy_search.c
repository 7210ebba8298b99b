/*
 * policy_search.c — where a policy file named in `include = {"NAME"}` (or a
 * shipped policy asked for by name) is looked for: the including policy's own
 * directory, then the installed policy directory, then each entry of
 * MCPP_POLICY_PATH (':'-separated, empty entries ignored).
 *
 * The installed directory is found relative to the code that is running, so
 * `cmake --install --prefix X` works without a rebuild: a shared object looks
 * first in a `policies` directory beside itself (how the Python package ships
 * them next to its extension), then in LIBDIR/<rel>, then LIBDIR/lua/5.4/<rel>
 * (the Lua module, which carries the core); a statically linked program in
 * BINDIR/<rel> (each rel is computed by CMake from the install layout). Code
 * running from the build tree it was built in (the build-tree CLI, the GitHub
 * Action's build) uses the source tree's policy/ directory, so a team policy
 * that includes "default.lua" works there without any variable. Otherwise the
 * configured prefix's directory is used.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcpp_receipts/policy_lua.h"
#include "policy/policy_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/strbuf.h"

#ifndef MCPP_POLICY_INSTALL_DIR /* set by lib/CMakeLists.txt */
#define MCPP_POLICY_INSTALL_DIR "/usr/local/share/mcpp_receipts/policy"
#define MCPP_POLICY_DIR_FROM_LIBDIR "../share/mcpp_receipts/policy"
#define MCPP_POLICY_DIR_FROM_BINDIR "../share/mcpp_receipts/policy"
#endif
#ifndef MCPP_POLICY_DIR_FROM_LUADIR
#define MCPP_POLICY_DIR_FROM_LUADIR "../../../share/mcpp_receipts/policy"
#endif

int mcpp_policy_name_is_plain(const char *name)
{
    if (!name || !*name || strcmp(name, ".") == 0 || strstr(name, "..") != NULL)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '.' || *c == '-'))
            return 0;
    return 1;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The file this library's code was loaded from (the shared library, or the
 * program it is linked into) and whether that is a shared object. */
static int running_image(char *buf, size_t cap, int *is_shared)
{
    Dl_info info;
    *is_shared = 0;
    if (dladdr((void *)(size_t)&mcpp_policy_find, &info) && info.dli_fname && *info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (strstr(base, ".so") && strlen(info.dli_fname) < cap) {
            strcpy(buf, info.dli_fname);
            *is_shared = 1;
            return 1;
        }
    }
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return 1;
}

/* Appends IMAGE_DIR/rel to sb when that is a directory; 1 when it did. */
static int put_if_directory(mcpp_strbuf *sb, const char *image_dir, const char *rel)
{
    mcpp_strbuf dir;
    mcpp_sb_init_heap(&dir, PATH_MAX);
    mcpp_sb_puts(&dir, image_dir);
    mcpp_sb_puts(&dir, rel);
    int found = !dir.failed && is_directory(dir.data);
    if (found)
        mcpp_sb_puts(sb, dir.data);
    mcpp_sb_free(&dir);
    return found;
}

/* 1 when IMAGE_DIR lies in the build tree this file was compiled for (both
 * resolved, so a symbolic link on either path does not hide it). */
static int in_build_tree(const char *image_dir)
{
#ifdef MCPP_BUILD_TREE_DIR
    char image[PATH_MAX], tree[PATH_MAX];
    if (!realpath(image_dir, image) || !realpath(MCPP_BUILD_TREE_DIR, tree))
        return 0;
    size_t n = strlen(tree);
    return strncmp(image, tree, n) == 0 && (image[n] == '/' || image[n] == '\0');
#else
    (void)image_dir;
    return 0;
#endif
}

/* Appends the installed policy directory to sb. */
static void put_install_dir(mcpp_strbuf *sb)
{
    char image[PATH_MAX];
    int is_shared = 0;
    char *slash = running_image(image, sizeof image, &is_shared) ? strrchr(image, '/') : NULL;
    if (slash) {
        slash[1] = '\0';
        if (is_shared ? put_if_directory(sb, image, "policies") || put_if_directory(sb, image, MCPP_POLICY_DIR_FROM_LIBDIR) ||
                            put_if_directory(sb, image, MCPP_POLICY_DIR_FROM_LUADIR)
                      : put_if_directory(sb, image, MCPP_POLICY_DIR_FROM_BINDIR))
            return;
#ifdef MCPP_SOURCE_POLICY_DIR
        if (in_build_tree(image) && put_if_directory(sb, "", MCPP_SOURCE_POLICY_DIR))
            return;
#endif
    }
    mcpp_sb_puts(sb, MCPP_POLICY_INSTALL_DIR);
}

int mcpp_policy_install_dir(char **out)
{
    MCPP_CHECK_ARG(out, "mcpp_policy_install_dir: out is NULL");
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 256);
    put_install_dir(&sb);
    return mcpp_sb_finish(&sb, out);
}

int mcpp_policy_search_path(char **out, const char *from_dir)
{
    MCPP_CHECK_ARG(out, "mcpp_policy_search_path: out is NULL");
    *out = NULL;
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 512);
    if (from_dir && *from_dir) {
        mcpp_sb_puts(&sb, from_dir);
        mcpp_sb_putc(&sb, '\n');
    }
    put_install_dir(&sb);
    const char *env = getenv("MCPP_POLICY_PATH");
    for (const char *p = env; p && *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {
            mcpp_sb_putc(&sb, '\n');
            mcpp_sb_put(&sb, p, n);
        }
        p += n + (end != NULL);
    }
    return mcpp_sb_finish(&sb, out);
}

/* Sets *out to DIR/NAME when something exists there (a symbolic link counts,
 * so that the loader can refuse it rather than look further); 1 when found. */
static int try_dir(char **out, const char *dir, size_t dir_len, const char *name)
{
    mcpp_strbuf path;
    mcpp_sb_init_heap(&path, dir_len + strlen(name) + 2);
    if (!(dir_len == 1 && dir[0] == '.')) { /* "./x" is written "x", as the caller wrote it */
        mcpp_sb_put(&path, dir, dir_len);
        if (dir_len && dir[dir_len - 1] != '/')
            mcpp_sb_putc(&path, '/');
    }
    mcpp_sb_puts(&path, name);
    struct stat st;
    if (!path.failed && lstat(path.data, &st) == 0)
        return mcpp_sb_finish(&path, out) == MCPP_OK;
    mcpp_sb_free(&path);
    return 0;
}

int mcpp_policy_find(char **out, const char *name, const char *from_dir)
{
    MCPP_CHECK_ARG(out, "mcpp_policy_find: out is NULL");
    *out = NULL;
    MCPP_CHECK_ARG(mcpp_policy_name_is_plain(name),
                   "policy name '%s' refused: a plain file name is expected "
                   "(letters, digits, '_', '-', '.'; no '/', no '..')", name ? name : "(null)");
    char *dirs = NULL;
    int rc = mcpp_policy_search_path(&dirs, from_dir);
    if (rc != MCPP_OK)
        return rc;
    for (const char *d = dirs; *d && !*out;) {
        size_t n = strcspn(d, "\n");
        try_dir(out, d, n, name);
        d += n + (d[n] == '\n');
    }
    if (!*out) {
        for (char *c = dirs; *c; c++)
            if (*c == '\n')
                *c = ':';
        rc = mcpp_error_raise(MCPP_ENOTFOUND, MCPP_ERROR_KIND_IO,
                              "policy '%s' not found; searched %s (the including policy's directory, "
                              "the installed policies, then MCPP_POLICY_PATH)", name, dirs);
    }
    mcpp_free(dirs);
    return rc;
}

int mcpp_policy_locate(char **out, const char *arg)
{
    MCPP_CHECK_ARG(out && arg, "mcpp_policy_locate: NULL argument");
    *out = NULL;
    size_t n = strlen(arg);
    struct stat st;
    if (!strchr(arg, '/') && !(n >= 4 && strcmp(arg + n - 4, ".lua") == 0) && stat(arg, &st) != 0) {
        char *name = malloc(n + 5);
        MCPP_CHECK_ALLOC(name);
        memcpy(name, arg, n);
        memcpy(name + n, ".lua", 5);
        int rc = mcpp_policy_name_is_plain(name) ? mcpp_policy_find(out, name, NULL) : MCPP_ENOTFOUND;
        free(name);
        if (rc == MCPP_OK)
            return MCPP_OK;
        if (rc != MCPP_ENOTFOUND)
            return rc;
        mcpp_error_clear(); /* the load names the file it cannot open */
    }
    MCPP_CHECK_ALLOC(*out = mcpp_strdup(arg, NULL));
    return MCPP_OK;
}
