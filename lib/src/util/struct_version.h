/*
 * struct_version.h — checking the version field of public structs that callers
 * allocate (mcpp_limits, mcpp_noise_settings, mcpp_gate_settings,
 * mcpp_lua_limits): a caller compiled against another layout gets a clear
 * MCPP_EARG instead of fields read at the wrong offsets.
 */
#ifndef MCPP_UTIL_STRUCT_VERSION_H
#define MCPP_UTIL_STRUCT_VERSION_H

/* MCPP_OK when `got` is `expected`; else MCPP_EARG with a message naming the
 * struct and its _INIT initialiser. */
int mcpp_struct_version_check(unsigned int got, unsigned int expected, const char *type_name);

/* For a struct the library fills for a caller (mcpp_lane_headline): the caller
 * declares, through its _INIT, the layout it was compiled with. MCPP_OK when
 * that is a layout this library can write (1 to `newest`); the filler then
 * writes only that layout's fields, never past the caller's struct. Else
 * MCPP_EARG naming the struct and its initialiser. */
int mcpp_struct_out_version_check(unsigned int declared, unsigned int newest, const char *type_name);

#endif /* MCPP_UTIL_STRUCT_VERSION_H */
