/*
 * doc_output.h — the end of a documentation generator (gen_fields_doc.c,
 * gen_dimensions_doc.c, gen_metrics_doc.c): write the generated text to its
 * file (or only the block between two marker lines of it), or with --check
 * compare it with the committed file, which ctest runs so that a stale
 * document fails the build's tests.
 */
#ifndef MCPP_TOOLS_DOC_OUTPUT_H
#define MCPP_TOOLS_DOC_OUTPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file a generator was given: "FILE" (write it) or "--check FILE"
 * (*check set); NULL after printing the usage. An option is never taken as
 * the output path (a file named --help once got committed). */
static const char *doc_args(int argc, char **argv, int *check)
{
    *check = argc == 3 && strcmp(argv[1], "--check") == 0;
    if ((argc != 2 && !*check) || (!*check && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s FILE.md | %s --check FILE.md\n", argv[0], argv[0]);
        return NULL;
    }
    return argv[argc - 1];
}

/* 0 when `path` holds exactly `text`. */
static int doc_file_equals(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = strlen(text), i = 0;
    int c, same = 1;
    while ((c = fgetc(f)) != EOF) {
        if (i >= n || (char)c != text[i]) same = 0;
        i++;
    }
    fclose(f);
    return same && i == n ? 0 : -1;
}

/* Checks (`check`) or writes `text` as `path`; 0 when current or written.
 * `tool` names the command that regenerates it; `ok` is printed when current. */
static int doc_output(const char *path, const char *text, int check, const char *tool, const char *ok)
{
    if (check) {
        if (doc_file_equals(path, text) == 0) {
            printf("ok - %s %s\n", path, ok);
            return 0;
        }
        fprintf(stderr, "%s is stale: regenerate it with %s %s\n", path, tool, path);
        return 1;
    }
    FILE *f = fopen(path, "wb");
    int rc = !f || fputs(text, f) < 0;
    if (f && fclose(f) != 0) rc = 1;
    if (rc) fprintf(stderr, "cannot write %s\n", path);
    return rc;
}

/* The whole file at `path` with the text from the line `begin` to the line
 * `end` (both kept) replaced by what `put` writes (the markers included);
 * NULL when the file cannot be read or lacks the markers. Freed by the caller. */
static inline char *doc_with_block(const char *path, const char *begin, const char *end, void (*put)(FILE *))
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *old = NULL, *text = NULL;
    size_t old_len = 0, len = 0;
    FILE *o = open_memstream(&old, &old_len);
    int c;
    while (o && (c = fgetc(f)) != EOF)
        fputc(c, o);
    fclose(f);
    if (!o || fclose(o) != 0)
        return NULL;
    char *b0 = strstr(old, begin), *e0 = b0 ? strstr(b0, end) : NULL;
    FILE *b = e0 ? open_memstream(&text, &len) : NULL;
    if (b) {
        fwrite(old, 1, (size_t)(b0 - old), b);
        put(b);
        fputs(e0 + strlen(end), b);
        if (fclose(b) != 0)
            free(text), text = NULL;
    }
    free(old);
    return text;
}

/* The main of a generator of one block (from the line `begin` to the line
 * `end`) of a document: FILE writes it, --check FILE compares; `ok` says what
 * the block holds when it is current. */
static inline int doc_block_main(int argc, char **argv, const char *begin, const char *end, void (*put)(FILE *),
                                 const char *ok)
{
    int check;
    const char *path = doc_args(argc, argv, &check);
    if (!path)
        return 2;
    char *text = doc_with_block(path, begin, end, put);
    if (!text) {
        fprintf(stderr, "%s: cannot read it, or it lacks the marker lines\n%s%s", path, begin, end);
        return 1;
    }
    int rc = doc_output(path, text, check, argv[0], ok);
    free(text);
    return rc;
}

#endif /* MCPP_TOOLS_DOC_OUTPUT_H */
