/*
 * block_families.h — questions about the block families of lane.pattern
 * (A attention, E MoE, M Mamba, R recurrent), answered from the one table
 * MCPP_BLOCK_FAMILIES beside the field list.
 */
#ifndef MCPP_BLOCK_FAMILIES_H
#define MCPP_BLOCK_FAMILIES_H

#include <string.h>

#include "receipt/schema_fields.h"

/* 1 when `letter` names a block family. */
static inline int mcpp_block_letter_valid(char letter)
{
#define MCPP_X_LETTER_IS(l, name, section) if (letter == (l)) return 1;
    MCPP_BLOCK_FAMILIES(MCPP_X_LETTER_IS)
#undef MCPP_X_LETTER_IS
    return 0;
}

/* The letter of the family whose fields `path` belongs to (its backend
 * section, or routing.* for E); 0 when the field applies to every model. */
static inline char mcpp_block_letter_of_path(const char *path)
{
    if (strncmp(path, "routing.", 8) == 0)
        return 'E';
#define MCPP_X_LETTER_OF(l, name, section)                                                         \
    if (strncmp(path, section ".", sizeof section) == 0)                                          \
        return l;
    MCPP_BLOCK_FAMILIES(MCPP_X_LETTER_OF)
#undef MCPP_X_LETTER_OF
    return 0;
}

#endif /* MCPP_BLOCK_FAMILIES_H */
