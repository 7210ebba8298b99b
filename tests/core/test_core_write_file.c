/*
 * test_core_write_file.c — mcpp_receipt_write_file's atomic replacement on the
 * file system: a name at NAME_MAX works, the replaced file keeps its mode, a
 * new file gets 0666 less the umask, a symbolic link is written through to its
 * target (the link stays a link), a dangling link is refused, and no temporary
 * file is left behind. The batch that an import writes a directory with
 * (io/write_batch.c): no target is touched before its commit, a batch freed
 * without one leaves nothing, and a committed batch of many files (synced
 * once) reads back whole with no temporary left; a file written as its text
 * is made (mcpp_text_write_file_from) appears whole or not at all.
 */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io_internal.h"
#include "mcpp_receipts.h"
#include "test_util.h"

static char dir[PATH_MAX];
static mcpp_receipt *receipt;

static char *in_dir(const char *name)
{
    static char buf[1024 + 1 + 256];
    snprintf(buf, sizeof buf, "%.1024s/%.255s", dir, name);
    return buf;
}

static int entries_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static void clear_dir(void)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(in_dir(e->d_name));
    if (d)
        closedir(d);
}

static int reads_back(const char *path)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_file(&r, NULL, path, NULL);
    int same = rc == MCPP_OK && strcmp(mcpp_receipt_id(r), mcpp_receipt_id(receipt)) == 0;
    mcpp_receipt_free(r);
    return same;
}

TEST(a_file_name_of_255_bytes_is_written)
{
    clear_dir();
    char name[256];
    memset(name, 'r', 250);
    memcpy(name + 250, ".json", 6); /* 255 bytes: NAME_MAX on Linux */
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, in_dir(name), MCPP_FORMAT_AUTO), MCPP_OK);
    CHECK(reads_back(in_dir(name)));
    CHECK_INT_EQ(entries_in_dir(), 1);
}

TEST(a_replaced_0600_file_stays_0600)
{
    clear_dir();
    const char *path = in_dir("private.json");
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    chmod(path, 0600);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, path, MCPP_FORMAT_AUTO), MCPP_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
    CHECK(reads_back(path));
    chmod(path, 0640);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, path, MCPP_FORMAT_AUTO), MCPP_OK);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
}

TEST(a_new_file_gets_0666_less_the_umask)
{
    clear_dir();
    mode_t old = umask(027);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, in_dir("new.yaml"), MCPP_FORMAT_AUTO), MCPP_OK);
    umask(old);
    struct stat st;
    CHECK(stat(in_dir("new.yaml"), &st) == 0 && (st.st_mode & 07777) == 0640);
    CHECK(reads_back(in_dir("new.yaml")));
}

TEST(a_symbolic_link_is_written_through_and_stays_a_link)
{
    clear_dir();
    const char *target = "target.json";
    FILE *f = fopen(in_dir(target), "w");
    fputs("old", f);
    fclose(f);
    chmod(in_dir(target), 0600);
    CHECK(symlink(target, in_dir("link.json")) == 0);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, in_dir("link.json"), MCPP_FORMAT_AUTO), MCPP_OK);
    struct stat st;
    CHECK(lstat(in_dir("link.json"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(in_dir(target), &st) == 0 && (st.st_mode & 07777) == 0600);
    CHECK(reads_back(in_dir(target)));
    CHECK_INT_EQ(entries_in_dir(), 2);
}

TEST(a_dangling_symbolic_link_is_refused_and_left_alone)
{
    clear_dir();
    CHECK(symlink("missing.json", in_dir("dangling.json")) == 0);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, in_dir("dangling.json"), MCPP_FORMAT_AUTO), MCPP_EIO);
    CHECK(strstr(mcpp_error_last()->message, "symbolic link") != NULL);
    struct stat st;
    CHECK(lstat(in_dir("dangling.json"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_INT_EQ(entries_in_dir(), 1);
}

TEST(a_directory_is_refused)
{
    clear_dir();
    CHECK(mkdir(in_dir("sub.json"), 0755) == 0);
    CHECK_INT_EQ(mcpp_receipt_write_file(receipt, in_dir("sub.json"), MCPP_FORMAT_AUTO), MCPP_EIO);
    rmdir(in_dir("sub.json"));
}

/* Whether the file at `path` holds exactly `text`. */
static int holds(const char *path, const char *text)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return f && strcmp(buf, text) == 0;
}

/* 40 files: more than the batch size from which Linux syncs the filesystem once. */
#define MANY 40

TEST(a_batch_touches_no_target_before_its_commit_and_leaves_no_temporary)
{
    clear_dir();
    FILE *f = fopen(in_dir("f7.json"), "w");
    fputs("old", f);
    fclose(f);
    chmod(in_dir("f7.json"), 0600);
    mcpp_write_batch *b = NULL;
    CHECK_INT_EQ(mcpp_write_batch_new(&b), MCPP_OK);
    char name[32], text[32];
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof name, "f%d.json", i);
        snprintf(text, sizeof text, "text of %d", i);
        CHECK_INT_EQ(mcpp_write_batch_add(b, in_dir(name), text, strlen(text)), MCPP_OK);
    }
    CHECK(holds(in_dir("f7.json"), "old"));
    CHECK(access(in_dir("f0.json"), F_OK) != 0);
    CHECK_INT_EQ(entries_in_dir(), MANY + 1); /* the temporaries and the old f7 */
    CHECK_INT_EQ(mcpp_write_batch_commit(b), MCPP_OK);
    mcpp_write_batch_free(b);
    CHECK_INT_EQ(entries_in_dir(), MANY);
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof name, "f%d.json", i);
        snprintf(text, sizeof text, "text of %d", i);
        CHECK(holds(in_dir(name), text));
    }
    struct stat st;
    CHECK(stat(in_dir("f7.json"), &st) == 0 && (st.st_mode & 07777) == 0600);
}

TEST(a_batch_freed_without_its_commit_leaves_the_directory_as_it_was)
{
    clear_dir();
    FILE *f = fopen(in_dir("kept.json"), "w");
    fputs("old", f);
    fclose(f);
    mcpp_write_batch *b = NULL;
    CHECK_INT_EQ(mcpp_write_batch_new(&b), MCPP_OK);
    CHECK_INT_EQ(mcpp_write_batch_add(b, in_dir("kept.json"), "new", 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_write_batch_add(b, in_dir("other.json"), "new", 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_write_batch_add(b, dir, "x", 1), MCPP_EIO); /* a directory: refused, nothing kept */
    mcpp_write_batch_free(b);
    CHECK_INT_EQ(entries_in_dir(), 1);
    CHECK(holds(in_dir("kept.json"), "old"));
}

/* A producer of `pieces` pieces "0123456789" each, failing (MCPP_ENOMEM, as
 * a render out of memory) after `fail_after` of them when that is >= 0. */
typedef struct pieces {
    int pieces, fail_after;
} pieces;

static int produce_pieces(void *ctx, mcpp_write_fn write, void *wctx)
{
    const pieces *p = ctx;
    for (int i = 0; i < p->pieces; i++) {
        if (i == p->fail_after)
            return MCPP_ENOMEM;
        if (write(wctx, "0123456789", 10) != 0)
            return MCPP_EIO;
    }
    return MCPP_OK;
}

/* mcpp_text_write_file_from: what the producer hands over becomes the file
 * whole; a producer that fails part way leaves the earlier file and no
 * temporary, and its own status is returned. */
TEST(a_file_written_as_it_is_made_appears_whole_or_not_at_all)
{
    clear_dir();
    pieces whole = {1000, -1};
    CHECK_INT_EQ(mcpp_text_write_file_from(in_dir("made.txt"), produce_pieces, &whole), MCPP_OK);
    struct stat st;
    CHECK(stat(in_dir("made.txt"), &st) == 0 && st.st_size == 10000);
    CHECK_INT_EQ(mcpp_text_write_file(in_dir("kept.txt"), "old", 3), MCPP_OK);
    pieces failing = {1000, 500};
    CHECK_INT_EQ(mcpp_text_write_file_from(in_dir("kept.txt"), produce_pieces, &failing), MCPP_ENOMEM);
    CHECK(holds(in_dir("kept.txt"), "old"));
    CHECK_INT_EQ(entries_in_dir(), 2);
    CHECK_INT_EQ(mcpp_text_write_file_from(in_dir("x"), NULL, NULL), MCPP_EARG);
    CHECK_INT_EQ(mcpp_text_write_file_from(dir, produce_pieces, &whole), MCPP_EIO); /* a directory */
    CHECK_INT_EQ(entries_in_dir(), 2);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/mcpp-write-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (mcpp_receipt_load_file(&receipt, NULL, MCPP_EXAMPLES_DIR "/receipts/nam56r_padded.json", NULL) != MCPP_OK) {
        fprintf(stderr, "cannot load the example receipt: %s\n", mcpp_error_last()->message);
        return 1;
    }
    RUN(a_file_name_of_255_bytes_is_written);
    RUN(a_replaced_0600_file_stays_0600);
    RUN(a_new_file_gets_0666_less_the_umask);
    RUN(a_symbolic_link_is_written_through_and_stays_a_link);
    RUN(a_dangling_symbolic_link_is_refused_and_left_alone);
    RUN(a_directory_is_refused);
    RUN(a_batch_touches_no_target_before_its_commit_and_leaves_no_temporary);
    RUN(a_batch_freed_without_its_commit_leaves_the_directory_as_it_was);
    RUN(a_file_written_as_it_is_made_appears_whole_or_not_at_all);
    clear_dir();
    rmdir(dir);
    mcpp_receipt_free(receipt);
    TEST_MAIN_END();
}
