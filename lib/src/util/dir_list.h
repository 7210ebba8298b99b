/*
 * dir_list.h — the entries of one directory in byte order of their names:
 * the importers and mcpp_receipt_set walk trees with it, so every walk
 * visits files in the same order on every file system (readdir's order is
 * the file system's own) and skips the same hidden names.
 */
#ifndef MCPP_UTIL_DIR_LIST_H
#define MCPP_UTIL_DIR_LIST_H

#include <stddef.h>

typedef struct mcpp_dir_list {
    char **paths;       /* "DIR/NAME" for each NAME not starting with '.' */
    size_t count, cap;
    size_t name_offset; /* paths[i] + name_offset is NAME */
} mcpp_dir_list;

/* Reads `dir` into `out` (sorted bytewise by name). Returns 0; MCPP_EIO
 * when the directory cannot be opened (last error "DIR: cannot open the
 * directory: REASON", errno kept); MCPP_ENOMEM. `out` is then empty. */
int mcpp_dir_list_read(mcpp_dir_list *out, const char *dir);
void mcpp_dir_list_free(mcpp_dir_list *list);

#endif /* MCPP_UTIL_DIR_LIST_H */
