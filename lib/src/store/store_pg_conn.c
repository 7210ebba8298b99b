/*
 * store_pg_conn.c — the store's adapter to PostgreSQL (store_pg.h): the only
 * file that includes libpq-fe.h. Statements go with text parameters
 * (PQexecParams), results come back as text; failures become the library's
 * errors naming the store (its URL without the password) and the SQLSTATE.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "store/store_pg.h"

struct mcpp_pg {
    PGconn *conn;
    char *name;
    char failed_state[6]; /* SQLSTATE of the last failed statement, "" when none */
};

struct mcpp_pg_rows {
    PGresult *res;
};

int mcpp_store_is_pg_location(const char *location)
{
    return location && (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0);
}

int mcpp_pg_connect(mcpp_pg **out, const char *conninfo, const char *name)
{
    *out = NULL;
    mcpp_pg *pg = calloc(1, sizeof *pg);
    if (!pg || !(pg->name = mcpp_strdup(name, NULL))) {
        free(pg);
        return mcpp_error_nomem();
    }
    pg->conn = PQconnectdb(conninfo);
    if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
        const char *why = pg->conn ? PQerrorMessage(pg->conn) : "out of memory";
        char msg[512];
        snprintf(msg, sizeof msg, "%s", why);
        msg[strcspn(msg, "\n")] = '\0';
        int rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, name, NULL, 0, 0,
                               "cannot connect to the PostgreSQL store: %s", msg);
        mcpp_pg_disconnect(pg);
        return rc;
    }
    /* receipts are UTF-8; quiet notices (CREATE ... IF NOT EXISTS says "already exists") */
    PQsetClientEncoding(pg->conn, "UTF8");
    PQclear(PQexec(pg->conn, "SET client_min_messages = warning"));
    *out = pg;
    return MCPP_OK;
}

void mcpp_pg_disconnect(mcpp_pg *pg)
{
    if (!pg)
        return;
    if (pg->conn)
        PQfinish(pg->conn);
    free(pg->name);
    free(pg);
}

/* The error of a failed result: SQLSTATE class 23 (constraints), 42
 * (a missing table: not a receipt store) and 22 (bad data) are the store's
 * content; everything else (connection, server, disk) is I/O. */
static int result_error(mcpp_pg *pg, PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(pg->failed_state, sizeof pg->failed_state, "%s", state ? state : "");
    char msg[512];
    snprintf(msg, sizeof msg, "%s", res ? PQresultErrorMessage(res) : PQerrorMessage(pg->conn));
    msg[strcspn(msg, "\n")] = '\0';
    int content =
        state && (strncmp(state, "23", 2) == 0 || strncmp(state, "42", 2) == 0 || strncmp(state, "22", 2) == 0);
    return mcpp_error_at(content ? MCPP_EINVALID : MCPP_EIO, content ? MCPP_ERROR_KIND_CONSISTENCY : MCPP_ERROR_KIND_IO,
                         pg->name, NULL, 0, 0, "%s: %s%s%s%s", what, msg, state ? " (SQLSTATE " : "",
                         state ? state : "", state ? ")" : "");
}

int mcpp_pg_run(mcpp_pg_rows **out, mcpp_pg *pg, const char *sql, int n, const char *const *params, const char *what)
{
    if (out)
        *out = NULL;
    pg->failed_state[0] = '\0';
    /* every parameter is text (OID 25): the SQL casts where it needs another type,
     * and length($1) or $1 = column never meet an ambiguous unknown type */
    enum { TEXT_OID = 25 };
    Oid *types = n ? malloc((size_t)n * sizeof *types) : NULL;
    if (n && !types)
        return mcpp_error_nomem();
    for (int i = 0; i < n; i++)
        types[i] = TEXT_OID;
    PGresult *res = PQexecParams(pg->conn, sql, n, types, params, NULL, NULL, 0);
    free(types);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        int rc = result_error(pg, res, what);
        PQclear(res);
        return rc;
    }
    if (!out) {
        PQclear(res);
        return MCPP_OK;
    }
    mcpp_pg_rows *rows = malloc(sizeof *rows);
    if (!rows) {
        PQclear(res);
        return mcpp_error_nomem();
    }
    rows->res = res;
    *out = rows;
    return MCPP_OK;
}

int mcpp_pg_script(mcpp_pg *pg, const char *sql, const char *what)
{
    pg->failed_state[0] = '\0';
    PGresult *res = PQexec(pg->conn, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? MCPP_OK : result_error(pg, res, what);
    PQclear(res);
    return rc;
}

size_t mcpp_pg_rows_count(const mcpp_pg_rows *rows) { return rows ? (size_t)PQntuples(rows->res) : 0; }

size_t mcpp_pg_rows_affected(const mcpp_pg_rows *rows)
{
    const char *n = rows ? PQcmdTuples(rows->res) : "";
    return *n ? (size_t)strtoull(n, NULL, 10) : 0;
}

const char *mcpp_pg_value(const mcpp_pg_rows *rows, size_t row, int col)
{
    if (PQgetisnull(rows->res, (int)row, col))
        return NULL;
    return PQgetvalue(rows->res, (int)row, col);
}

size_t mcpp_pg_length(const mcpp_pg_rows *rows, size_t row, int col)
{
    return (size_t)PQgetlength(rows->res, (int)row, col);
}

void mcpp_pg_rows_free(mcpp_pg_rows *rows)
{
    if (!rows)
        return;
    PQclear(rows->res);
    free(rows);
}

void mcpp_pg_rollback(mcpp_pg *pg) { PQclear(PQexec(pg->conn, "ROLLBACK")); }

int mcpp_pg_failed_with(const mcpp_pg *pg, const char *state) { return strcmp(pg->failed_state, state) == 0; }

int mcpp_pg_each_batch(mcpp_pg *pg, const char *sql, int n, const char *const *params, const char *what,
                       int (*each)(void *ctx, const mcpp_pg_rows *rows), void *ctx)
{
    size_t len = strlen(sql) + 64;
    char *declare = malloc(len);
    if (!declare)
        return mcpp_error_nomem();
    snprintf(declare, len, "DECLARE mcpp_rows NO SCROLL CURSOR FOR %s", sql);
    int rc = mcpp_pg_run(NULL, pg, declare, n, params, what);
    free(declare);
    while (rc == MCPP_OK) {
        mcpp_pg_rows *rows = NULL;
        rc = mcpp_pg_run(&rows, pg, "FETCH 4096 FROM mcpp_rows", 0, NULL, what);
        if (rc == MCPP_OK && mcpp_pg_rows_count(rows) == 0) {
            mcpp_pg_rows_free(rows);
            break;
        }
        if (rc == MCPP_OK)
            rc = each(ctx, rows);
        mcpp_pg_rows_free(rows);
    }
    if (rc == MCPP_OK)
        rc = mcpp_pg_run(NULL, pg, "CLOSE mcpp_rows", 0, NULL, what);
    return rc;
}
