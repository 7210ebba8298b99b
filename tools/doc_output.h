/*
 * doc_output.h — the end of a documentation generator (gen_fields_doc.c,
 * gen_dimensions_doc.c): write the generated text to its file, or with
 * --check compare it with the committed file, which ctest runs so that a
 * stale document fails the build's tests.
 */
#ifndef MCPP_TOOLS_DOC_OUTPUT_H
#define MCPP_TOOLS_DOC_OUTPUT_H

#include <stdio.h>
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

#endif /* MCPP_TOOLS_DOC_OUTPUT_H */
