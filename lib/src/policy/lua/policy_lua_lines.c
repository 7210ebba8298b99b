/*
 * policy_lua_lines.c — the line where a value of a policy table stands
 * (policy_lua_lines.h). A small Lua lexer (comments, short and long strings,
 * names, numbers, operators) feeds a walk over the table constructors: each
 * field's path (its table's path, then its name, string key or position) is
 * compared with the path asked for, and the line of the value's first token
 * kept. Code inside functions and parentheses is skipped, so only the
 * constructors that build the policy table count. Runs only when an error is
 * reported, once per error, in time linear in the source.
 */
#include <string.h>

#include "policy/lua/policy_lua_lines.h"

enum { MAX_PATH = 64, MAX_NEST = 256, LOOKBACK = 16 };

enum tok_type { T_EOF, T_NAME, T_STRING, T_NUMBER, T_OP };

typedef struct tok {
    int type;
    const char *s; /* the token's text; a short string's without its quotes */
    size_t n;
    int line;
} tok;

typedef struct lexer {
    const char *p, *end;
    int line;
} lexer;

/* One step of a path: a name or string key (s, n), or a position (idx > 0).
 * idx < 0 marks the root of a table whose owner is unknown: it matches nothing. */
typedef struct comp {
    const char *s;
    size_t n;
    long idx;
} comp;

static int is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* Length of "[==[" at p (the level's opening bracket), 0 when p does not open one. */
static size_t long_bracket(const char *p, const char *end, size_t *level)
{
    const char *q = p + 1;
    if (p >= end || *p != '[')
        return 0;
    while (q < end && *q == '=')
        q++;
    if (q >= end || *q != '[')
        return 0;
    *level = (size_t)(q - p - 1);
    return (size_t)(q - p + 1);
}

/* Skips past the "]==]" closing a long bracket of `level`, counting lines. */
static void skip_long(lexer *lx, size_t level)
{
    while (lx->p < lx->end) {
        if (*lx->p == '\n')
            lx->line++;
        if (*lx->p == ']') {
            const char *q = lx->p + 1;
            while (q < lx->end && *q == '=')
                q++;
            if (q < lx->end && *q == ']' && (size_t)(q - lx->p - 1) == level) {
                lx->p = q + 1;
                return;
            }
        }
        lx->p++;
    }
}

static tok lex(lexer *lx)
{
    for (;;) {
        while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n' ||
                                   *lx->p == '\f' || *lx->p == '\v')) {
            if (*lx->p == '\n')
                lx->line++;
            lx->p++;
        }
        if (lx->end - lx->p >= 2 && lx->p[0] == '-' && lx->p[1] == '-') {
            size_t level, open = long_bracket(lx->p + 2, lx->end, &level);
            lx->p += 2 + open;
            if (open) {
                skip_long(lx, level);
            } else {
                while (lx->p < lx->end && *lx->p != '\n')
                    lx->p++;
            }
            continue;
        }
        break;
    }
    tok t = {T_EOF, lx->p, 0, lx->line};
    if (lx->p >= lx->end)
        return t;
    const char *start = lx->p;
    char c = *lx->p;
    size_t level, open = long_bracket(lx->p, lx->end, &level);
    if (open) {
        lx->p += open;
        skip_long(lx, level);
        t.type = T_STRING;
        t.n = 0; /* a long string is never a key the loader names */
    } else if (c == '"' || c == '\'') {
        lx->p++;
        while (lx->p < lx->end && *lx->p != c && *lx->p != '\n') {
            if (*lx->p == '\\' && lx->p + 1 < lx->end) {
                if (lx->p[1] == '\n')
                    lx->line++;
                lx->p++;
            }
            lx->p++;
        }
        t.type = T_STRING;
        t.s = start + 1;
        t.n = (size_t)(lx->p - start - 1);
        if (lx->p < lx->end && *lx->p == c)
            lx->p++;
    } else if ((c >= '0' && c <= '9') || (c == '.' && lx->p + 1 < lx->end && lx->p[1] >= '0' && lx->p[1] <= '9')) {
        while (lx->p < lx->end && (is_name_char(*lx->p) || *lx->p == '.' ||
                                   ((*lx->p == '+' || *lx->p == '-') && strchr("eEpP", lx->p[-1]) != NULL)))
            lx->p++;
        t.type = T_NUMBER;
        t.n = (size_t)(lx->p - start);
    } else if (is_name_start(c)) {
        while (lx->p < lx->end && is_name_char(*lx->p))
            lx->p++;
        t.type = T_NAME;
        t.n = (size_t)(lx->p - start);
    } else {
        static const char *const TWO[] = {"==", "~=", "<=", ">=", "::", "//", "..", "<<", ">>"};
        t.type = T_OP;
        t.n = 1;
        for (size_t i = 0; i < sizeof TWO / sizeof *TWO; i++)
            if (lx->end - lx->p >= 2 && memcmp(lx->p, TWO[i], 2) == 0)
                t.n = 2;
        lx->p += t.n;
    }
    return t;
}

static int is(const tok *t, int type, const char *text)
{
    return t->type == type && t->n == strlen(text) && memcmp(t->s, text, t->n) == 0;
}

static int comp_eq(const comp *a, const comp *b)
{
    if (a->idx != 0 || b->idx != 0)
        return a->idx == b->idx && a->idx > 0;
    return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

/* "gate.metrics[2].confidence" -> {gate}, {metrics}, {[2]}, {confidence};
 * ["name"] and .name are the same step. Returns the count, -1 when too long. */
static int parse_path(const char *path, comp *out)
{
    int n = 0;
    const char *p = path;
    while (*p) {
        if (n == MAX_PATH)
            return -1;
        comp c = {NULL, 0, 0};
        if (p[0] == '[' && p[1] == '"') {
            const char *close = strstr(p + 2, "\"]");
            if (!close)
                return -1;
            c.s = p + 2;
            c.n = (size_t)(close - p - 2);
            p = close + 2;
        } else if (p[0] == '[') {
            for (p++; *p >= '0' && *p <= '9'; p++)
                c.idx = c.idx * 10 + (*p - '0');
            if (*p++ != ']' || c.idx <= 0)
                return -1;
        } else {
            c.s = p;
            while (*p && *p != '.' && *p != '[')
                p++;
            c.n = (size_t)(p - c.s);
        }
        out[n++] = c;
        if (*p == '.')
            p++;
    }
    return n;
}

typedef struct search {
    const comp *query;
    int nq;
    int best_score; /* lower is better: 2 * steps of the query left out + (not the whole path) */
    int line;
} search;

/* Scores a field at `path` (n steps) whose value starts on `line`. A field of
 * the returned table must match the whole path; one of a table known by a
 * variable's name matches by the longest tail that starts with a name. */
static void consider(search *s, const comp *path, int n, int line, int rooted)
{
    for (int k = 0; k < (rooted ? 1 : s->nq); k++) {
        int tail = s->nq - k;
        if (n < tail || (rooted && n != tail) || s->query[k].idx != 0)
            continue;
        int same = 1;
        for (int i = 0; i < tail && same; i++)
            same = comp_eq(&path[n - tail + i], &s->query[k + i]);
        if (!same)
            continue;
        int score = 2 * k + (n != s->nq);
        if (score < s->best_score) {
            s->best_score = score;
            s->line = line;
        }
        return;
    }
}

int mcpp_lua_line_of_path(const char *src, size_t len, const char *path)
{
    comp query[MAX_PATH], stack[MAX_PATH];
    search s = {query, 0, 1 << 30, 0};
    if (!src || !path || (s.nq = parse_path(path, query)) < 0)
        return 0;
    lexer lx = {src, src + len, 1};
    char nest[MAX_NEST];       /* 'T' a table constructor walked, 'P' a bracket, 'B' a block */
    int frame_depth[MAX_NEST]; /* for a 'T': steps of its path */
    long frame_pos[MAX_NEST];  /* for a 'T': its last position */
    int at_field[MAX_NEST];    /* for a 'T': the next token starts a field */
    int rooted[MAX_NEST];      /* for a 'T': inside the table `return` hands back */
    int depth = 0, nstack = 0;
    tok back[LOOKBACK];
    int nback = 0;
    tok t = lex(&lx);
    while (t.type != T_EOF) {
        if (depth && nest[depth - 1] == 'T' && at_field[depth - 1] && !is(&t, T_OP, "}")) {
            int d = depth - 1;
            comp key = {NULL, 0, 0};
            lexer peek = lx;
            tok t1 = lex(&peek), value = t;
            if (t.type == T_NAME && is(&t1, T_OP, "=")) {
                key.s = t.s;
                key.n = t.n;
                lx = peek;
                value = lex(&lx);
            } else if (is(&t, T_OP, "[")) {
                tok t2 = lex(&peek), t3 = lex(&peek);
                if ((t1.type == T_STRING || t1.type == T_NUMBER) && is(&t2, T_OP, "]") && is(&t3, T_OP, "=")) {
                    key.s = t1.s;
                    key.n = t1.n;
                    if (t1.type == T_NUMBER) {
                        key.s = NULL;
                        for (size_t i = 0; i < t1.n && t1.s[i] >= '0' && t1.s[i] <= '9'; i++)
                            key.idx = key.idx * 10 + (t1.s[i] - '0');
                    }
                    lx = peek;
                    value = lex(&lx);
                } else {
                    key.idx = -1; /* a computed key: the field cannot be named */
                }
            } else {
                key.idx = ++frame_pos[d];
            }
            at_field[d] = 0;
            nstack = frame_depth[d];
            if (nstack == MAX_PATH)
                break;
            stack[nstack++] = key;
            if (key.idx >= 0 && value.type != T_EOF)
                consider(&s, stack, nstack, value.line, rooted[d]);
            t = value;
            if (is(&t, T_OP, "{") && key.idx >= 0) {
                if (depth == MAX_NEST)
                    break;
                nest[depth] = 'T';
                frame_depth[depth] = nstack;
                frame_pos[depth] = 0;
                rooted[depth] = rooted[d];
                at_field[depth++] = 1;
                t = lex(&lx);
                continue;
            }
        }
        if (is(&t, T_OP, "{") && depth == 0) {
            /* A statement-level constructor: `return {` is the policy table,
             * `name = {` / `local name = {` a table known by that name. */
            const tok *last = nback ? &back[(nback - 1) % LOOKBACK] : NULL;
            nstack = 0;
            if (last && is(last, T_OP, "=")) {
                int i = nback - 2; /* back over `a.b.c` */
                while (i >= 0 && nback - i < LOOKBACK && back[i % LOOKBACK].type == T_NAME) {
                    if (!(i >= 1 && is(&back[(i - 1) % LOOKBACK], T_OP, ".")))
                        break;
                    i -= 2;
                }
                if (i < nback - LOOKBACK + 1)
                    i = nback - LOOKBACK + 1; /* a longer chain keeps its last names */
                for (int j = i; j >= 0 && j < nback - 1; j++)
                    if (back[j % LOOKBACK].type == T_NAME && nstack < MAX_PATH)
                        stack[nstack++] = (comp){back[j % LOOKBACK].s, back[j % LOOKBACK].n, 0};
            }
            if (nstack == 0 && !(last && is(last, T_NAME, "return")))
                stack[nstack++] = (comp){NULL, 0, -1}; /* an argument, `x[1] = {`: not a named table */
            nest[depth] = 'T';
            frame_depth[depth] = nstack;
            frame_pos[depth] = 0;
            rooted[depth] = nstack == 0;
            at_field[depth++] = 1;
        } else if (is(&t, T_OP, "{") || is(&t, T_OP, "(") || is(&t, T_OP, "[")) {
            if (depth == MAX_NEST)
                break;
            nest[depth++] = 'P';
        } else if (is(&t, T_OP, "}") || is(&t, T_OP, ")") || is(&t, T_OP, "]")) {
            if (depth && nest[depth - 1] != 'B')
                depth--;
        } else if (is(&t, T_NAME, "function") || is(&t, T_NAME, "if") || is(&t, T_NAME, "do") ||
                   is(&t, T_NAME, "repeat")) {
            if (depth == MAX_NEST)
                break;
            nest[depth++] = 'B';
        } else if (is(&t, T_NAME, "end") || is(&t, T_NAME, "until")) {
            if (depth && nest[depth - 1] == 'B')
                depth--;
        } else if ((is(&t, T_OP, ",") || is(&t, T_OP, ";")) && depth && nest[depth - 1] == 'T') {
            at_field[depth - 1] = 1;
        }
        back[nback % LOOKBACK] = t;
        nback++;
        t = lex(&lx);
    }
    return s.line;
}
