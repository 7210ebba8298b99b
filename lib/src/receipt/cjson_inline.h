/*
 * cjson_inline.h — cJSON's type tests as inline functions. cJSON's own are
 * exported functions; the binder and the JSON reader ask them for every
 * value of every receipt, so they use these instead. Including this is
 * including cJSON: only files that parse or walk JSON trees do.
 */
#ifndef MCPP_RECEIPT_CJSON_INLINE_H
#define MCPP_RECEIPT_CJSON_INLINE_H

#include <cjson/cJSON.h>

#define MCPP_CJ_TYPE(v) ((v)->type & 0xFF)
static inline int mcpp_cj_is_number(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Number; }
static inline int mcpp_cj_is_string(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_String; }
static inline int mcpp_cj_is_object(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Object; }
static inline int mcpp_cj_is_array(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Array; }
static inline int mcpp_cj_is_true(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_True; }
static inline int mcpp_cj_is_bool(const cJSON *v)
{
    return MCPP_CJ_TYPE(v) == cJSON_True || MCPP_CJ_TYPE(v) == cJSON_False;
}

#endif /* MCPP_RECEIPT_CJSON_INLINE_H */
