/*
 * error.c — the thread-local last error, status names and the library version.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/c_locale.h"
#include "util/error_internal.h"

/* The only mutable state of the library besides what callers own: one slot per
 * thread, with its own copies of the strings so they outlive the failing call. */
static _Thread_local struct {
    mcpp_error view;
    char kind[32];
    char message[1024];
    char file[512];
    char field[256];
} last_error = {{MCPP_OK, "", "", NULL, NULL, 0, 0}, "", "", "", ""};

const char *mcpp_version_string(void) { return MCPP_VERSION_STRING; }
int mcpp_version_number(void) { return MCPP_VERSION_NUMBER; }

const char *mcpp_status_name(int status)
{
    switch (status) {
    case MCPP_OK: return "ok";
    case MCPP_EINVALID: return "invalid";
    case MCPP_ELIMIT: return "limit";
    case MCPP_ENOMEM: return "nomem";
    case MCPP_EIO: return "io";
    case MCPP_EARG: return "arg";
    case MCPP_ENOTFOUND: return "notfound";
    case MCPP_EPOLICY: return "policy";
    case MCPP_EUNSUPPORTED: return "unsupported";
    case MCPP_EINTERNAL: return "internal";
    default: return "unknown";
    }
}

#define MCPP_X_ERROR_KIND_NAME(id, name) name,
static const char *const kind_names[MCPP_ERROR_KIND_COUNT] = {MCPP_ERROR_KINDS(MCPP_X_ERROR_KIND_NAME)};
#undef MCPP_X_ERROR_KIND_NAME

const char *mcpp_error_kind_name(mcpp_error_kind kind)
{
    return (int)kind >= 0 && kind < MCPP_ERROR_KIND_COUNT ? kind_names[kind] : "";
}

mcpp_error_kind mcpp_error_kind_from_name(const char *name)
{
    if (!name || !*name)
        return MCPP_ERROR_KIND_NONE;
    for (int k = 1; k < MCPP_ERROR_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return (mcpp_error_kind)k;
    return MCPP_ERROR_KIND_NONE;
}

mcpp_error_kind mcpp_error_kind_of(const mcpp_error *error)
{
    if (!error || error->code == MCPP_OK)
        return MCPP_ERROR_KIND_NONE;
    return mcpp_error_kind_from_name(error->kind);
}

/* The kind a failure has when its setter names none. */
static mcpp_error_kind kind_of_code(int code)
{
    switch (code) {
    case MCPP_ELIMIT: return MCPP_ERROR_KIND_LIMIT;
    case MCPP_ENOMEM: return MCPP_ERROR_KIND_MEMORY;
    case MCPP_EIO: return MCPP_ERROR_KIND_IO;
    case MCPP_EARG: return MCPP_ERROR_KIND_ARGUMENT;
    case MCPP_ENOTFOUND: return MCPP_ERROR_KIND_MISSING;
    case MCPP_EPOLICY: return MCPP_ERROR_KIND_POLICY;
    case MCPP_EUNSUPPORTED: return MCPP_ERROR_KIND_UNSUPPORTED;
    case MCPP_EINVALID: return MCPP_ERROR_KIND_CONSISTENCY;
    default: return MCPP_ERROR_KIND_INTERNAL;
    }
}

static void copy_bounded(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

void mcpp_error_format_location(char *buf, size_t cap, const char *file, const char *field,
                                int line, int column, const char *text)
{
    size_t used = 0;
    buf[0] = '\0';
#define APPEND(...)                                                                \
    do {                                                                           \
        if (used < cap) {                                                          \
            int n_ = snprintf(buf + used, cap - used, __VA_ARGS__);                \
            if (n_ > 0) used += (size_t)n_;                                        \
        }                                                                          \
    } while (0)
    if (file && *file) {
        APPEND("%s", file);
        if (line > 0) {
            APPEND(":%d", line);
            if (column > 0)
                APPEND(":%d", column);
        }
        APPEND(": ");
    }
    if (field && *field)
        APPEND("%s: ", field);
    APPEND("%s", text ? text : "");
#undef APPEND
}

/* Stores the error; `kind` is its name (never NULL). */
static int error_store(int code, const char *kind, const char *file, const char *field, int line,
                       int column, const char *fmt, va_list ap)
{
    char text[768];
    mcpp_vsnprintf_c(text, sizeof text, fmt, ap);
    copy_bounded(last_error.kind, sizeof last_error.kind, kind);
    copy_bounded(last_error.file, sizeof last_error.file, file);
    copy_bounded(last_error.field, sizeof last_error.field, field);
    mcpp_error_format_location(last_error.message, sizeof last_error.message, file, field, line,
                               column, text);
    last_error.view.code = code;
    last_error.view.kind = last_error.kind;
    last_error.view.message = last_error.message;
    last_error.view.file = file ? last_error.file : NULL;
    last_error.view.field = field ? last_error.field : NULL;
    last_error.view.line = line;
    last_error.view.column = column;
    return code;
}

static const char *kind_text(int code, mcpp_error_kind kind)
{
    return mcpp_error_kind_name(kind == MCPP_ERROR_KIND_NONE ? kind_of_code(code) : kind);
}

int mcpp_error_at(int code, mcpp_error_kind kind, const char *file, const char *field, int line,
                  int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_store(code, kind_text(code, kind), file, field, line, column, fmt, ap);
    va_end(ap);
    return code;
}

int mcpp_error_report(int code, mcpp_error_kind kind, const char *file, const char *field, int line,
                      int column, const char *message)
{
    if (code >= 0 || (int)kind < 0 || kind >= MCPP_ERROR_KIND_COUNT)
        return MCPP_ERROR_ARG("mcpp_error_report: code must be a negative MCPP_E* and kind an mcpp_error_kind");
    return mcpp_error_at(code, kind, file, field, line, column, "%s", message ? message : "");
}

int mcpp_error_raise(int code, mcpp_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_store(code, kind_text(code, kind), NULL, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int mcpp_error_set(int code, const char *kind, const char *file, const char *field, int line,
                   int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_store(code, kind ? kind : kind_text(code, MCPP_ERROR_KIND_NONE), file, field, line,
                column, fmt, ap);
    va_end(ap);
    return code;
}

int mcpp_error_nomem(void)
{
    return mcpp_error_raise(MCPP_ENOMEM, MCPP_ERROR_KIND_MEMORY, "out of memory");
}

const mcpp_error *mcpp_error_last(void)
{
    if (!last_error.view.message)
        last_error.view.message = "";
    return &last_error.view;
}

void mcpp_error_clear(void)
{
    last_error.view.code = MCPP_OK;
    last_error.view.kind = "";
    last_error.view.message = "";
    last_error.view.file = NULL;
    last_error.view.field = NULL;
    last_error.view.line = last_error.view.column = 0;
}

void mcpp_free(void *ptr) { free(ptr); }
