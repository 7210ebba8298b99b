/*
 * json_arena.c — a per-thread bump arena for the cJSON tree of one load.
 *
 * Why: a receipt's tree is a few hundred small heap blocks that live for one
 * load and are freed together. With many files in a row, malloc/free of those
 * blocks (and glibc consolidating its fastbins afterwards) was a quarter of
 * load_dir's time. cJSON takes allocation hooks, so while a load_dir worker
 * loads a file, cJSON's blocks come from that thread's arena and "free" of
 * them does nothing; the arena is rewound after each file.
 *
 * The hooks are process-wide (cJSON has no per-call allocator), so they are
 * installed once, when the module is initialised, and behave exactly like
 * malloc/free on every thread that has no arena open and for every block
 * outside the arena (a tree bigger than the arena spills over to malloc).
 */
#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core.h"

static _Thread_local mcpp_py_json_arena *current;

static void *arena_malloc(size_t size)
{
    mcpp_py_json_arena *a = current;
    if (a) {
        /* malloc's alignment; a zero-byte block still gets its own address */
        size_t need = size ? (size + 15u) & ~(size_t)15u : 16u;
        if (need >= size && need <= a->cap - a->used) {
            void *p = a->base + a->used;
            a->used += need;
            return p;
        }
    }
    return malloc(size);
}

static int in_arena(const mcpp_py_json_arena *a, const void *p)
{
    uintptr_t u = (uintptr_t)p, lo = (uintptr_t)a->base;
    return u >= lo && u < lo + a->cap;
}

static void arena_free(void *p)
{
    mcpp_py_json_arena *a = current;
    if (a && in_arena(a, p))
        return; /* released all at once by mcpp_py_json_arena_rewind */
    free(p);
}

void mcpp_py_json_arena_install(void)
{
    cJSON_Hooks hooks = {arena_malloc, arena_free};
    cJSON_InitHooks(&hooks);
}

int mcpp_py_json_arena_open(mcpp_py_json_arena *a, size_t cap)
{
    a->base = malloc(cap);
    a->cap = a->base ? cap : 0;
    a->used = 0;
    current = a->base ? a : NULL;
    return a->base ? 0 : -1;
}

void mcpp_py_json_arena_rewind(mcpp_py_json_arena *a)
{
    a->used = 0;
}

void mcpp_py_json_arena_close(mcpp_py_json_arena *a)
{
    if (current == a)
        current = NULL;
    free(a->base);
    a->base = NULL;
    a->cap = a->used = 0;
}
