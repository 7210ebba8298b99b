/*
 * mcpp_receipts/common.h — version, status codes and the thread-local last error.
 *
 * Every function in this library that can fail returns an int: 0 (MCPP_OK) on
 * success, a negative MCPP_E* code on failure. The details of the most recent
 * failure on the calling thread are kept in a thread-local mcpp_error that
 * mcpp_error_last() returns. The library never prints.
 */
#ifndef MCPP_RECEIPTS_COMMON_H
#define MCPP_RECEIPTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version --------------------------------------------------------------- */

#define MCPP_VERSION_MAJOR 0
#define MCPP_VERSION_MINOR 1
#define MCPP_VERSION_PATCH 0
#define MCPP_VERSION_NUMBER \
    (MCPP_VERSION_MAJOR * 10000 + MCPP_VERSION_MINOR * 100 + MCPP_VERSION_PATCH)
#define MCPP_VERSION_STRING "0.1.0"

/* The receipt schema this library reads and writes. */
#define MCPP_SCHEMA_ID "mcpp.receipt/1"

#if defined(_WIN32) && defined(MCPP_SHARED_BUILD)
#define MCPP_API __declspec(dllexport)
#elif defined(__GNUC__)
#define MCPP_API __attribute__((visibility("default")))
#else
#define MCPP_API
#endif

/* Runtime version, to check that the library loaded matches the header:
 * mcpp_version_number() == MCPP_VERSION_NUMBER. Returns a static string. */
MCPP_API const char *mcpp_version_string(void);
MCPP_API int mcpp_version_number(void);

/* ---- Status codes -------------------------------------------------------- */

typedef enum mcpp_status {
    MCPP_OK = 0,
    MCPP_EINVALID = -1,     /* input is malformed or fails validation          */
    MCPP_ELIMIT = -2,       /* input exceeds a configured limit (size, depth)   */
    MCPP_ENOMEM = -3,       /* allocation failed                                */
    MCPP_EIO = -4,          /* file could not be read or written                */
    MCPP_EARG = -5,         /* caller passed a bad argument (NULL, bad path)     */
    MCPP_ENOTFOUND = -6,    /* the field or item asked for is absent            */
    MCPP_EPOLICY = -7,      /* a policy is invalid or failed while running      */
    MCPP_EUNSUPPORTED = -8, /* feature not available in this build or machine   */
    MCPP_EINTERNAL = -9     /* a bug: please report it                          */
} mcpp_status;

/* A short, stable name for a status code ("invalid", "limit", ...). Static. */
MCPP_API const char *mcpp_status_name(int status);

/* ---- Output formats ------------------------------------------------------ */

/* Output formats of every renderer in this library (receipt, compare, gate,
 * frontier, claims): TEXT for people (aligned columns), JSON for tools (stable keys,
 * documented in README), MARKDOWN for pull-request comments. */
typedef enum mcpp_output_format {
    MCPP_OUTPUT_TEXT = 0,
    MCPP_OUTPUT_JSON = 1,
    MCPP_OUTPUT_MARKDOWN = 2
} mcpp_output_format;

/* Parses "text", "json", "markdown" (also "md"); MCPP_EARG otherwise. */
MCPP_API int mcpp_output_format_parse(mcpp_output_format *out, const char *name);

/* ---- The last error -------------------------------------------------------- */

/*
 * Where and why the last call on this thread failed. All strings are owned by
 * the library and stay valid until the next failing call on the same thread.
 * Fields that are unknown are NULL (strings) or 0 (line, column).
 *
 *   kind     a stable category for tools and tests: "syntax", "encoding",
 *            "duplicate_key", "limit", "type", "enum", "range", "unknown_field",
 *            "missing", "consistency", "yaml_feature", "io", "argument",
 *            "policy", "memory", "internal", "unsupported"
 *   message  one line for people: "FILE:LINE:COL: FIELD: what was expected"
 *   file     the input's name (path, or the name given for a buffer)
 *   field    the dotted field path, e.g. "routing.top_k"
 */
typedef struct mcpp_error {
    int code;
    const char *kind;
    const char *message;
    const char *file;
    const char *field;
    int line;   /* 1-based, 0 when the format gives none */
    int column; /* 1-based, 0 when the format gives none */
} mcpp_error;

/* The last error on this thread. Never NULL: when nothing failed, code is
 * MCPP_OK and message is "". Borrowed; do not free. */
MCPP_API const mcpp_error *mcpp_error_last(void);

/* Resets the last error on this thread to MCPP_OK. */
MCPP_API void mcpp_error_clear(void);

/* Frees memory that the library handed out as plain bytes (char * outputs such
 * as mcpp_receipt_write()). NULL is a no-op. */
MCPP_API void mcpp_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_COMMON_H */
