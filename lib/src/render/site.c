/*
 * site.c — mcpp_site_write (html_report.h): the history site of a store. Reads
 * the store only through its read API (the lanes' histories, the frontier
 * from its lane summaries, the receipts the latest gate needs), renders each
 * page (site_pages.c, site_gate.c, the frontier page here) and writes only the
 * pages whose content changed: DIR/site-digests.txt keeps the FNV-1a digest of
 * every page written, so a run after a few new receipts rewrites the index,
 * the frontier, the gate and the lanes those receipts joined. The gate page
 * is the one whose making costs more than its writing (a gate over every
 * lane): the file also keeps a digest of what it was made from
 * (mcpp_site_gate_inputs), and while that and the page on disk are unchanged
 * it is not made again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/html.h"
#include "render/site.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/struct_version.h"

#define DIGESTS_FILE "site-digests.txt"
#define DIGESTS_HEADER "mcpp-site-digests 1\n"

/* ---- the pages' frame ------------------------------------------------------------ */

void mcpp_site_page_begin(mcpp_strbuf *sb, const site_model *m, const char *title, const char *up, int inline_script)
{
    mcpp_html_page_begin_sealed(sb, title, inline_script);
    mcpp_sb_printf(sb,
                   "<nav class=\"site\"><a href=\"%sindex.html\">All lanes</a><a href=\"%sfrontier.html\">Frontier"
                   "</a><a href=\"%sgate.html\">Latest gate</a></nav>\n<h1>",
                   up, up, up);
    mcpp_sb_html(sb, title);
    mcpp_sb_puts(sb, "</h1>\n");
    (void)m;
}

/* `commit` percent-encoded for a URL: every byte but unreserved ones. */
static void put_url_part(mcpp_strbuf *sb, const char *commit)
{
    for (const unsigned char *p = (const unsigned char *)commit; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            mcpp_sb_putc(sb, (char)*p);
        else
            mcpp_sb_printf(sb, "%%%02X", *p);
    }
}

void mcpp_site_commit(mcpp_strbuf *sb, const site_model *m, const char *commit)
{
    if (!commit) {
        mcpp_sb_puts(sb, "<span class=\"muted\">none</span>");
        return;
    }
    const char *url = m->options->commit_url, *hole = url ? strstr(url, "{commit}") : NULL;
    if (!hole) {
        mcpp_sb_puts(sb, "<code>");
        mcpp_sb_html(sb, commit);
        mcpp_sb_puts(sb, "</code>");
        return;
    }
    mcpp_strbuf href;
    mcpp_sb_init_heap(&href, 256);
    mcpp_sb_put(&href, url, (size_t)(hole - url));
    put_url_part(&href, commit);
    mcpp_sb_puts(&href, hole + strlen("{commit}"));
    if (href.failed)
        sb->failed = 1;
    mcpp_sb_puts(sb, "<a href=\"");
    mcpp_sb_html(sb, href.failed ? "" : href.data);
    mcpp_sb_puts(sb, "\"><code>");
    mcpp_sb_html(sb, commit);
    mcpp_sb_puts(sb, "</code></a>");
    mcpp_sb_free(&href);
}

/* A page the HTML report rendered, given the site's sealed head and links. */
static int seal_report_page(char **out, char *page, const site_model *m)
{
    const char *head = strstr(page, "<meta charset=\"utf-8\">\n"), *body = strstr(page, "<body>\n");
    if (!head || !body || body < head) {
        mcpp_free(page);
        return mcpp_error_at(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, NULL, NULL, 0, 0,
                             "the report page has no head or body to put the site's links in");
    }
    head += strlen("<meta charset=\"utf-8\">\n");
    body += strlen("<body>\n");
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, strlen(page) + 1024);
    mcpp_sb_put(&sb, page, (size_t)(head - page));
    mcpp_sb_puts(&sb, mcpp_html_sealed_policy_meta(0));
    mcpp_sb_put(&sb, head, (size_t)(body - head));
    mcpp_sb_puts(&sb, "<nav class=\"site\"><a href=\"index.html\">All lanes</a><a href=\"frontier.html\">Frontier</a>"
                      "<a href=\"gate.html\">Latest gate</a></nav>\n");
    mcpp_sb_puts(&sb, body);
    mcpp_free(page);
    (void)m;
    return mcpp_sb_finish(&sb, out) == 0 ? MCPP_OK : mcpp_error_nomem();
}

static int frontier_page(char **out, const site_model *m)
{
    char *page = NULL;
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.title = "Frontier: stable lanes and their unstable neighbours";
    int rc = mcpp_frontier_render_html(&page, m->frontier, &o);
    return rc ? rc : seal_report_page(out, page, m);
}

/* ---- digests: which pages changed ------------------------------------------------- */

typedef struct digest_entry {
    char *path;
    uint64_t digest;
    uint64_t inputs; /* what the page was made from (the gate page); 0: not recorded */
    int kept;        /* the new site has this page */
} digest_entry;

typedef struct digests {
    digest_entry *items;
    size_t n, cap;
    size_t next; /* where the next page is looked for first: pages come in the same order each time */
} digests;

static void digests_free(digests *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->items[i].path);
    free(d->items);
    memset(d, 0, sizeof *d);
}

static int digests_push(digests *d, const char *path, uint64_t digest, uint64_t inputs)
{
    MCPP_CHECK_ARRAY(d->items, d->cap, d->n + 1, MCPP_ARRAY_MAX_ITEMS);
    digest_entry *e = &d->items[d->n];
    if (!(e->path = mcpp_strdup(path, NULL)))
        return mcpp_error_nomem();
    e->digest = digest;
    e->inputs = inputs;
    e->kept = 0;
    d->n++;
    return MCPP_OK;
}

/* Only names this code writes: a digests file edited by hand never makes it
 * remove anything else. */
static int is_site_page(const char *path)
{
    if (strcmp(path, "index.html") == 0 || strcmp(path, "frontier.html") == 0 || strcmp(path, "gate.html") == 0)
        return 1;
    const char *name = path + strlen(SITE_LANE_DIR "/");
    if (strncmp(path, SITE_LANE_DIR "/lane-", strlen(SITE_LANE_DIR "/lane-")) != 0)
        return 0;
    size_t len = strlen(name);
    if (len < 6 || strcmp(name + len - 5, ".html") != 0)
        return 0;
    for (const char *p = name; p < name + len - 5; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return 0;
    return 1;
}

/* The digests an earlier call wrote; none when the file is missing or not ours. */
static int digests_read(digests *d, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, DIGESTS_FILE);
    FILE *f = fopen(path, "r");
    if (!f)
        return MCPP_OK;
    char line[512];
    int rc = MCPP_OK;
    if (!fgets(line, sizeof line, f) || strcmp(line, DIGESTS_HEADER) != 0) {
        fclose(f);
        return MCPP_OK;
    }
    while (rc == MCPP_OK && fgets(line, sizeof line, f)) {
        char name[400];
        unsigned long long digest, inputs = 0; /* the third field is optional */
        if (sscanf(line, "%16llx %399s %16llx", &digest, name, &inputs) >= 2 && is_site_page(name))
            rc = digests_push(d, name, digest, (uint64_t)inputs);
    }
    fclose(f);
    return rc;
}

static digest_entry *digests_find(digests *d, const char *path)
{
    for (size_t k = 0; k < d->n; k++) {
        size_t i = (d->next + k) % d->n;
        if (strcmp(d->items[i].path, path) == 0) {
            d->next = i + 1;
            return &d->items[i];
        }
    }
    return NULL;
}

typedef struct site_writer {
    const char *dir;
    digests old, now;
    mcpp_site_result result;
} site_writer;

/* Writes the page unless the same content is there already. Takes `text`. */
static int put_page(site_writer *w, const char *name, char *text)
{
    size_t len = strlen(text);
    uint64_t digest = mcpp_fnv1a(text, len, MCPP_FNV_OFFSET);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    digest_entry *was = digests_find(&w->old, name);
    struct stat st;
    int rc = MCPP_OK;
    w->result.pages++;
    if (was && was->digest == digest && stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
        w->result.unchanged++;
    } else {
        rc = mcpp_text_write_file(path, text, len);
        if (rc == MCPP_OK)
            w->result.written++;
    }
    if (was)
        was->kept = 1;
    mcpp_free(text);
    return rc ? rc : digests_push(&w->now, name, digest, 0);
}

/* The FNV-1a digest of the file at `path` into *out; 0 when it cannot be read. */
static int file_digest(uint64_t *out, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[1 << 16];
    uint64_t h = MCPP_FNV_OFFSET;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = mcpp_fnv1a(buf, n, h);
    int ok = !ferror(f);
    fclose(f);
    *out = h;
    return ok;
}

/* Keeps the page `name` of the earlier site, without making it again, when it
 * was made from `inputs` and the file is still the page written then (not
 * edited or removed since). Returns 1 when kept, 0 when it must be made. */
static int keep_page(site_writer *w, const char *name, uint64_t inputs, int *rc)
{
    digest_entry *was = digests_find(&w->old, name);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    uint64_t on_disk;
    if (!was || !was->inputs || was->inputs != inputs || !file_digest(&on_disk, path) || on_disk != was->digest)
        return 0;
    was->kept = 1;
    w->result.pages++;
    w->result.unchanged++;
    *rc = digests_push(&w->now, name, was->digest, inputs);
    return 1;
}

static int put_rendered(site_writer *w, const char *name, mcpp_strbuf *sb)
{
    char *text = NULL;
    if (mcpp_sb_finish(sb, &text) != 0)
        return mcpp_error_nomem();
    return put_page(w, name, text);
}

/* Removes the pages of the earlier site that this one no longer has, then
 * writes the new digests. */
static int finish_site(site_writer *w)
{
    for (size_t i = 0; i < w->old.n; i++) {
        if (w->old.items[i].kept)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", w->dir, w->old.items[i].path);
        if (unlink(path) == 0)
            w->result.removed++;
    }
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 64 * (w->now.n + 1));
    mcpp_sb_puts(&sb, DIGESTS_HEADER);
    for (size_t i = 0; i < w->now.n; i++)
        if (w->now.items[i].inputs)
            mcpp_sb_printf(&sb, "%016" PRIx64 " %s %016" PRIx64 "\n", w->now.items[i].digest, w->now.items[i].path,
                           w->now.items[i].inputs);
        else
            mcpp_sb_printf(&sb, "%016" PRIx64 " %s\n", w->now.items[i].digest, w->now.items[i].path);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, DIGESTS_FILE);
    int rc = sb.failed ? mcpp_error_nomem() : mcpp_text_write_file(path, sb.data, sb.len);
    mcpp_sb_free(&sb);
    return rc;
}

static int make_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) == 0 || (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return MCPP_OK;
    return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot create the site's directory: %s",
                         errno == EEXIST ? "it exists and is not a directory" : strerror(errno));
}

/* ---- the model ---------------------------------------------------------------------- */

static int build_model(site_model *m, const mcpp_history *h, const mcpp_frontier *f)
{
    m->history = h;
    m->frontier = f;
    m->n_lanes = h->n_lanes;
    if (h->n_lanes && !(m->lanes = calloc(h->n_lanes, sizeof *m->lanes)))
        return mcpp_error_nomem();
    for (size_t i = 0; i < h->n_lanes; i++) {
        site_lane *l = &m->lanes[i];
        l->history = &h->lanes[i];
        if (mcpp_frontier_find_lane(&l->frontier_index, f, l->history->key) != MCPP_OK) {
            mcpp_error_clear();
            l->frontier_index = SIZE_MAX;
        }
        size_t same = 0; /* lanes before this one with its short key (never in practice) */
        for (size_t k = 0; k < i; k++)
            same += strcmp(h->lanes[k].short_key, l->history->short_key) == 0;
        if (same)
            snprintf(l->page, sizeof l->page, SITE_LANE_DIR "/%s-%zu.html", l->history->short_key, same);
        else
            snprintf(l->page, sizeof l->page, SITE_LANE_DIR "/%s.html", l->history->short_key);
    }
    return MCPP_OK;
}

static int write_pages(site_writer *w, site_model *m, mcpp_store *store)
{
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 1 << 16);
    mcpp_site_index_page(&sb, m);
    int rc = put_rendered(w, "index.html", &sb);
    for (size_t i = 0; i < m->n_lanes && rc == MCPP_OK; i++) {
        mcpp_sb_init_heap(&sb, 1 << 16);
        mcpp_site_lane_page(&sb, m, i);
        rc = put_rendered(w, m->lanes[i].page, &sb);
    }
    char *page = NULL;
    if (rc == MCPP_OK && (rc = frontier_page(&page, m)) == MCPP_OK)
        rc = put_page(w, "frontier.html", page);
    page = NULL;
    uint64_t gate_inputs = mcpp_site_gate_inputs(m, store) | 1; /* never 0, which means "not recorded" */
    if (rc != MCPP_OK || keep_page(w, "gate.html", gate_inputs, &rc))
        return rc;
    if ((rc = mcpp_site_gate_page(&page, m, store)) == MCPP_OK) {
        char *sealed = page;
        if (strstr(page, "<nav class=\"site\">") == NULL)
            rc = seal_report_page(&sealed, page, m);
        if (rc == MCPP_OK)
            rc = put_page(w, "gate.html", sealed);
        if (rc == MCPP_OK)
            w->now.items[w->now.n - 1].inputs = gate_inputs;
    }
    return rc;
}

int mcpp_site_write(mcpp_site_result *out, mcpp_store *store, const char *dir, const mcpp_site_options *options)
{
    MCPP_CHECK_ARG(store && dir && *dir, "mcpp_site_write: a store and a directory are needed");
    mcpp_site_options defaults = MCPP_SITE_OPTIONS_INIT;
    if (!options)
        options = &defaults;
    int rc = mcpp_struct_version_check(options->version, MCPP_SITE_OPTIONS_VERSION, "mcpp_site_options");
    if (rc)
        return rc;
    if (out)
        memset(out, 0, sizeof *out);
    char lanes_dir[4096];
    snprintf(lanes_dir, sizeof lanes_dir, "%s/%s", dir, SITE_LANE_DIR);
    mcpp_history *history = NULL;
    mcpp_frontier *frontier = NULL;
    site_model m = {options, NULL, NULL, NULL, 0, 0};
    site_writer w = {dir, {NULL, 0, 0, 0}, {NULL, 0, 0, 0}, {0, 0, 0, 0}};
    rc = mcpp_history_build(&history, store, NULL, NULL, NULL);
    if (rc == MCPP_OK)
        rc = mcpp_store_frontier(&frontier, store, NULL);
    if (rc == MCPP_OK)
        rc = build_model(&m, history, frontier);
    if (rc == MCPP_OK)
        rc = make_dir(dir);
    if (rc == MCPP_OK)
        rc = make_dir(lanes_dir);
    if (rc == MCPP_OK)
        rc = digests_read(&w.old, dir);
    if (rc == MCPP_OK)
        rc = write_pages(&w, &m, store);
    if (rc == MCPP_OK)
        rc = finish_site(&w);
    if (rc == MCPP_OK && out)
        *out = w.result;
    digests_free(&w.old);
    digests_free(&w.now);
    free(m.lanes);
    mcpp_frontier_free(frontier);
    mcpp_history_free(history);
    return rc;
}
