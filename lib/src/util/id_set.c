/*
 * id_set.c — a set of borrowed strings by FNV-1a, linear probing, at most
 * half full (id_set.h).
 */
#include "util/id_set.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

static size_t id_slot(const mcpp_id_set *s, const char *id)
{
    size_t i = (size_t)mcpp_fnv1a(id, strlen(id), MCPP_FNV_OFFSET) & (s->cap - 1);
    while (s->slots[i] && strcmp(s->slots[i], id) != 0)
        i = (i + 1) & (s->cap - 1);
    return i;
}

int mcpp_id_set_contains(const mcpp_id_set *s, const char *id) { return s->n && s->slots[id_slot(s, id)] != NULL; }

int mcpp_id_set_add(mcpp_id_set *s, const char *id)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        mcpp_id_set bigger = {calloc(cap, sizeof(const char *)), cap, 0};
        if (!bigger.slots)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                bigger.slots[id_slot(&bigger, s->slots[i])] = s->slots[i];
        bigger.n = s->n;
        free(s->slots);
        *s = bigger;
    }
    s->slots[id_slot(s, id)] = id;
    s->n++;
    return 0;
}

void mcpp_id_set_clear(mcpp_id_set *s)
{
    if (s->slots)
        memset(s->slots, 0, s->cap * sizeof *s->slots);
    s->n = 0;
}

void mcpp_id_set_free(mcpp_id_set *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}
