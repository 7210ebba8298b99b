/*
 * store_codec.c — compressed bodies and images (schema versions 6 and 8), the
 * only code that includes zstd and LZ4.
 *
 * A row was ~6.2 KB (canonical body 2.6 KB, image 2.8 KB, lane key 0.6 KB):
 * the add wrote each byte twice (WAL, then checkpoint) and a query read it
 * back. Receipts of one store are small and alike, which is what
 * dictionaries are for: each store keeps its own in `store_dicts`, made from
 * the canonical bodies (and the images) of receipts of its first add, used
 * as raw content (no training: a receipt of the same suite is mostly a copy
 * of a sample). The body compresses to about a fifth, the image to a sixth.
 *
 * Both are LZ4 blocks since version 8, zstd frames before (still read, no
 * longer written). Every add packs every body, and zstd at its fastest level
 * (-3) still took 2.6 µs for a varied body of 2.4 KB where an LZ4 block
 * against the same dictionary takes 1.4 µs (plus 0.1 µs for the checksum)
 * for 2% more bytes (issue 50 item 2: the add against a plain sqlite3
 * insert of the same rows; benchmarks/README.md); every query unpacks every
 * image, which LZ4 does in well under half zstd's time.
 *
 * Blobs (a text body or an image with the plain magic is stored as before
 * and read as before, so rows written before version 6 need no rewrite):
 *
 *   body:  "MCLB" | dictionary id (u32 LE; 0 = none) | its length (u32 LE) |
 *          checksum of the text (u64 LE, util/hash.h's mcpp_checksum_blob) |
 *          LZ4 block
 *   image: "MCPPIMGL" | the image's fingerprint (its bytes 8..16) | dictionary
 *          id (u32 LE) | its length (u32 LE) | LZ4 block
 *   versions 6 and 7: body "MCZB" | dictionary id | zstd frame; image
 *          "MCPPIMGZ" | fingerprint | dictionary id | zstd frame
 *
 * The image blob starts with the 16 bytes the image cache compares to decide
 * whether a stored image is another build's (store_image_cache.c). Every blob
 * says its length and carries a checksum (zstd's, the LZ4 body's own, or the
 * image's, which the image reader checks): a damaged body is refused ("does
 * not decompress"), never read as another receipt. Nothing is inflated past
 * what the receipt limits allow: a body claiming more than the largest input
 * a receipt may come from, an image more than its own header declares
 * (itself at most receipt/image.h's bound), is refused before it is
 * decompressed. A dictionary is stored with
 * a checksum; one that fails it makes the rows that use it fail to read,
 * which `store check` reports. Dictionaries are never changed or deleted
 * once committed; ids only grow.
 */
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "receipt/image.h"
#include "store/store_internal.h"

#define LZ4_BODY_MAGIC "MCLB"
#define ZSTD_BODY_MAGIC "MCZB"
#define LZ4_IMAGE_MAGIC "MCPPIMGL"
#define ZSTD_IMAGE_MAGIC "MCPPIMGZ"
#define LZ4_BODY_HEAD 20   /* magic, dictionary id, length, checksum */
#define ZSTD_BODY_HEAD 8   /* magic, dictionary id */
#define LZ4_IMAGE_HEAD 24  /* magic, fingerprint, dictionary id, length */
#define ZSTD_IMAGE_HEAD 20 /* magic, fingerprint, dictionary id */
/* LZ4's acceleration: 4 took 1.37 µs a varied body for 537 bytes, 1 (its
 * default) 2.4 µs for 526, 8 1.2 µs for 596 (the varied corpus of
 * benchmarks/store/bench_store.py, 2.4 KB a body). */
#define LZ4_ACCELERATION 4
#define DICT_SAMPLES 16                    /* receipts a dictionary is made from */
#define DICT_MAX_BYTES (112 * 1024)        /* of samples in one dictionary */

enum { KIND_BODY, KIND_IMAGE, N_KINDS };
static const char *const KIND_NAMES[N_KINDS] = {"body", "image"};

typedef struct codec_dict {
    uint32_t id;
    int kind;
    size_t samples;
    int damaged; /* its checksum failed: rows using it do not read */
    ZSTD_DDict *d; /* for the zstd frames of versions 6 and 7 */
    /* its bytes (LZ4 reads a block against them), and for the newest of its
     * kind, a stream that has loaded them, copied before each blob is packed
     * (loading 64 KB of dictionary a blob would cost more than packing it) */
    unsigned char *bytes;
    size_t len;
    LZ4_stream_t *lz;
} codec_dict;

struct mcpp_store_codec {
    codec_dict *dicts;
    size_t n, cap;
    uint32_t last_id;       /* the highest id read */
    long newest[N_KINDS];   /* index in dicts of the newest of each kind; -1: none */
};

/* One thread's contexts, and its scratch: the text of the body it packs
 * next and the frame it compresses into, reused row after row (a fresh 4 KiB
 * text and a compressBound-sized frame a row, kept until the insert, cost
 * 3-4% of an add's CPU in malloc and page faults; the row keeps a copy of
 * the frame's few hundred bytes). */
struct mcpp_store_zctx {
    ZSTD_DCtx *d;
    LZ4_stream_t lz; /* the newest dictionary's stream, copied per blob */
    mcpp_strbuf text;
    unsigned char *frame;
    size_t frame_cap;
};

mcpp_store_zctx *mcpp_store_zctx_new(void)
{
    mcpp_store_zctx *z = calloc(1, sizeof(mcpp_store_zctx));
    if (z)
        mcpp_sb_init(&z->text, NULL, 0);
    return z;
}

void mcpp_store_zctx_free(mcpp_store_zctx *z)
{
    if (!z)
        return;
    ZSTD_freeDCtx(z->d);
    mcpp_sb_free(&z->text);
    free(z->frame);
    free(z);
}

mcpp_strbuf *mcpp_store_zctx_text(mcpp_store_zctx *z)
{
    z->text.len = 0;
    z->text.failed = 0;
    if (z->text.data)
        z->text.data[0] = '\0';
    return &z->text;
}

void mcpp_store_codec_forget(mcpp_store *s)
{
    mcpp_store_codec *c = s->codec;
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        ZSTD_freeDDict(c->dicts[i].d);
        free(c->dicts[i].bytes);
        LZ4_freeStream(c->dicts[i].lz);
    }
    free(c->dicts);
    free(c);
    s->codec = NULL;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const codec_dict *find_dict(const mcpp_store_codec *c, uint32_t id)
{
    size_t lo = 0, hi = c ? c->n : 0; /* ids ascend */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->dicts[mid].id == id) return &c->dicts[mid];
        if (c->dicts[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* One row of store_dicts into the codec (the statement is on it). */
static int load_dict(mcpp_store_codec *c, sqlite3_stmt *st)
{
    MCPP_CHECK_ARRAY(c->dicts, c->cap, c->n + 1, MCPP_ARRAY_MAX_ITEMS);
    codec_dict *d = &c->dicts[c->n];
    memset(d, 0, sizeof *d);
    d->id = (uint32_t)sqlite3_column_int64(st, 0);
    const char *kind = (const char *)sqlite3_column_text(st, 1);
    d->kind = kind && strcmp(kind, "image") == 0 ? KIND_IMAGE : KIND_BODY;
    d->samples = (size_t)sqlite3_column_int64(st, 2);
    const void *bytes = sqlite3_column_blob(st, 4);
    size_t len = (size_t)sqlite3_column_bytes(st, 4);
    uint64_t sum = (uint64_t)sqlite3_column_int64(st, 3);
    d->damaged = !bytes || mcpp_checksum_blob(bytes, len, MCPP_FNV_OFFSET) != sum;
    if (!d->damaged) {
        /* raw content: neither samples start with zstd's dictionary magic
         * ('{' and "MCPPIMG1"), and the checksum passed */
        d->d = ZSTD_createDDict(bytes, len);
        d->bytes = malloc(len ? len : 1);
        d->lz = LZ4_createStream();
        if (d->d && d->bytes && d->lz) {
            memcpy(d->bytes, bytes, len);
            d->len = len;
            LZ4_loadDict(d->lz, (const char *)d->bytes, (int)len); /* its last 64 KB: LZ4's window */
        } else {
            ZSTD_freeDDict(d->d);
            free(d->bytes);
            LZ4_freeStream(d->lz);
            return mcpp_error_nomem();
        }
    }
    if (d->id > c->last_id) c->last_id = d->id;
    c->n++;
    if (!d->damaged) {
        long *newest = &c->newest[d->kind];
        if (*newest >= 0) { /* only the newest compresses */
            LZ4_freeStream(c->dicts[*newest].lz);
            c->dicts[*newest].lz = NULL;
        }
        *newest = (long)(c->n - 1);
    }
    return MCPP_OK;
}

/* 1 when the file has the dictionaries' table (version 6 on). */
static int has_dict_table(mcpp_store *s)
{
    sqlite3_stmt *st = NULL;
    int found = sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_dicts'",
                                   -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int mcpp_store_codec_refresh(mcpp_store *s)
{
    /* an older store opened read-only has text bodies and plain images */
    if (s->version < 6 && !s->codec && !has_dict_table(s)) return MCPP_OK;
    if (!s->codec) {
        if (!(s->codec = calloc(1, sizeof *s->codec))) return mcpp_error_nomem();
        s->codec->newest[KIND_BODY] = s->codec->newest[KIND_IMAGE] = -1;
    }
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT id, kind, samples, checksum, dict FROM store_dicts WHERE id > ?1 ORDER BY id",
                                "reading the compression dictionaries");
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, s->codec->last_id);
    int step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) rc = load_dict(s->codec, st);
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "reading the compression dictionaries");
    sqlite3_finalize(st);
    return rc;
}

/* ---- Making a dictionary (inside an add's transaction) ------------------------------ */

/* Samples of one kind, concatenated: the receipts at evenly spaced places of
 * the add, the last ones nearest the end (zstd prefers the end of a raw
 * dictionary). */
static int sample(mcpp_strbuf *out, size_t *taken, int kind, const mcpp_receipt *const *rs, size_t n)
{
    size_t want = n < DICT_SAMPLES ? n : DICT_SAMPLES;
    *taken = 0;
    for (size_t k = 0; k < want; k++) {
        const mcpp_receipt *r = rs[k * n / want];
        unsigned char *bytes = NULL;
        size_t len = 0;
        int rc;
        if (kind == KIND_BODY) {
            char *text = NULL;
            rc = mcpp_receipt_write(&text, &len, r, MCPP_FORMAT_JSON);
            if (!rc) len = mcpp_store_fold_json(text, len);
            bytes = (unsigned char *)text;
        } else {
            rc = mcpp_receipt_image_write(&bytes, &len, r);
        }
        if (rc == MCPP_ENOMEM) return rc;
        if (!rc && bytes && out->len + len <= DICT_MAX_BYTES) {
            mcpp_sb_put(out, (const char *)bytes, len);
            (*taken)++;
        }
        if (kind == KIND_BODY) mcpp_free(bytes);
        else free(bytes);
    }
    return out->failed ? mcpp_error_nomem() : MCPP_OK;
}

static int store_dict(mcpp_store *s, int kind, const mcpp_receipt *const *rs, size_t n)
{
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 64 * 1024);
    size_t taken = 0;
    int rc = sample(&b, &taken, kind, rs, n);
    if (rc || taken == 0) {
        mcpp_sb_free(&b);
        return rc;
    }
    sqlite3_stmt *st = NULL;
    rc = mcpp_store_prepare(&st, s, "INSERT INTO store_dicts(kind, samples, checksum, dict) VALUES (?1, ?2, ?3, ?4)",
                            "storing a compression dictionary");
    if (!rc) {
        sqlite3_bind_text(st, 1, KIND_NAMES[kind], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)taken);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)mcpp_checksum_blob(b.data, b.len, MCPP_FNV_OFFSET));
        sqlite3_bind_blob(st, 4, b.data, (int)b.len, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "storing a compression dictionary");
    }
    sqlite3_finalize(st);
    mcpp_sb_free(&b);
    return rc;
}

int mcpp_store_codec_prepare_add(mcpp_store *s, const mcpp_receipt *const *rs, size_t n)
{
    int rc = mcpp_store_codec_refresh(s);
    if (rc || !s->codec || n == 0) return rc;
    /* A new dictionary when there is none, or when the newest was made from
     * fewer receipts than this add brings (a store begun with one receipt):
     * at most a few per store, each better sampled. */
    int added = 0;
    for (int kind = 0; kind < N_KINDS && !rc; kind++) {
        long newest = s->codec->newest[kind];
        size_t have = newest >= 0 ? s->codec->dicts[newest].samples : 0;
        if (have < DICT_SAMPLES && n > have) {
            rc = store_dict(s, kind, rs, n);
            added = 1;
        }
    }
    return rc || !added ? rc : mcpp_store_codec_refresh(s);
}

/* ---- Packing (any thread) ------------------------------------------------------------- */

/* z's frame buffer, at least `cap` bytes. */
static int frame_room(mcpp_store_zctx *z, size_t cap)
{
    if (cap <= z->frame_cap)
        return MCPP_OK;
    unsigned char *grown = realloc(z->frame, cap);
    MCPP_CHECK_ALLOC(grown);
    z->frame = grown;
    z->frame_cap = cap;
    return MCPP_OK;
}

/* The first n bytes of z's frame, copied exactly: rows wait in the add's window. */
static int blob_of(unsigned char **out, size_t *out_len, const mcpp_store_zctx *z, size_t n)
{
    unsigned char *blob = malloc(n);
    MCPP_CHECK_ALLOC(blob);
    memcpy(blob, z->frame, n);
    *out = blob;
    *out_len = n;
    return MCPP_OK;
}

/* A blob: `head` (head_len bytes), the dictionary id, the length, the
 * checksum of the data when `with_checksum` (an image has its own), and
 * the LZ4 block, against the newest dictionary of `kind`. */
static int pack(const mcpp_store_codec *c, int kind, mcpp_store_zctx *z, const void *data, size_t len,
                const unsigned char *head, size_t head_len, int with_checksum, unsigned char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (len > (size_t)LZ4_MAX_INPUT_SIZE)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_LIMIT, "a %s of %zu bytes is more than a store keeps",
                                KIND_NAMES[kind], len);
    const codec_dict *d = c && c->newest[kind] >= 0 ? &c->dicts[c->newest[kind]] : NULL;
    size_t at = head_len + 8 + (with_checksum ? 8 : 0), bound = (size_t)LZ4_compressBound((int)len);
    int rc = frame_room(z, at + bound);
    if (rc)
        return rc;
    unsigned char *buf = z->frame;
    memcpy(buf, head, head_len);
    put_u32(buf + head_len, d ? d->id : 0);
    put_u32(buf + head_len + 4, (uint32_t)len);
    if (with_checksum)
        put_u64(buf + head_len + 8, mcpp_checksum_blob(data, len, MCPP_FNV_OFFSET));
    char *block = (char *)buf + at;
    int got;
    if (d && d->lz) {
        memcpy(&z->lz, d->lz, sizeof z->lz);
        got = LZ4_compress_fast_continue(&z->lz, data, block, (int)len, (int)bound, LZ4_ACCELERATION);
    } else {
        got = LZ4_compress_fast(data, block, (int)len, (int)bound, LZ4_ACCELERATION);
    }
    if (got <= 0)
        return mcpp_error_raise(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, "compressing a %s: LZ4 failed",
                                KIND_NAMES[kind]);
    return blob_of(out, out_len, z, at + (size_t)got);
}

int mcpp_store_pack_body(const mcpp_store_codec *c, mcpp_store_zctx *z, const char *text, size_t len,
                         unsigned char **out, size_t *out_len)
{
    return pack(c, KIND_BODY, z, text, len, (const unsigned char *)LZ4_BODY_MAGIC, 4, 1, out, out_len);
}

int mcpp_store_pack_image(const mcpp_store_codec *c, mcpp_store_zctx *z, const unsigned char *image, size_t len,
                          unsigned char **out, size_t *out_len)
{
    unsigned char head[16];
    memcpy(head, LZ4_IMAGE_MAGIC, 8);
    memset(head + 8, 0, 8);
    if (len >= 16) memcpy(head + 8, image + 8, 8); /* the fingerprint, where a plain image has it */
    return pack(c, KIND_IMAGE, z, image, len, head, 16, 0, out, out_len);
}

/* ---- Unpacking (any thread) ----------------------------------------------------------- */

int mcpp_store_body_is_packed(const void *blob, size_t len)
{
    return blob && ((len >= LZ4_BODY_HEAD && memcmp(blob, LZ4_BODY_MAGIC, 4) == 0) ||
                    (len >= ZSTD_BODY_HEAD && memcmp(blob, ZSTD_BODY_MAGIC, 4) == 0));
}

int mcpp_store_image_is_packed(const void *blob, size_t len)
{
    return blob && ((len >= LZ4_IMAGE_HEAD && memcmp(blob, LZ4_IMAGE_MAGIC, 8) == 0) ||
                    (len >= ZSTD_IMAGE_HEAD && memcmp(blob, ZSTD_IMAGE_MAGIC, 8) == 0));
}

/* The frame of a packed blob (head_len bytes before the dictionary id) and
 * its dictionary (NULL: none); MCPP_EINVALID with `why` when it cannot be
 * read, MCPP_EUNSUPPORTED when its dictionary was added since `c` was read. */
static int frame_of(const codec_dict **dict, const unsigned char **frame, size_t *frame_len, const mcpp_store_codec *c,
                    const unsigned char *blob, size_t len, size_t head_len, char *why, size_t why_len)
{
    if (len < head_len + 4) {
        snprintf(why, why_len, "too short");
        return MCPP_EINVALID;
    }
    uint32_t id = get_u32(blob + head_len);
    const codec_dict *d = id ? find_dict(c, id) : NULL;
    if (id && !d && (!c || id > c->last_id)) {
        snprintf(why, why_len, "compression dictionary %u is not read yet", (unsigned)id);
        return MCPP_EUNSUPPORTED; /* added since the codec was read: refresh it and try again */
    }
    if (id && (!d || d->damaged)) {
        snprintf(why, why_len, d ? "its compression dictionary %u is damaged" : "compression dictionary %u is missing",
                 (unsigned)id);
        return MCPP_EINVALID;
    }
    *dict = d;
    *frame = blob + head_len + 4;
    *frame_len = len - head_len - 4;
    return MCPP_OK;
}

/* The length a frame says it inflates to, when it says one of at most `max`
 * bytes (a frame is refused before anything is inflated). */
static int content_size(size_t *size, const unsigned char *frame, size_t frame_len, int kind, size_t max, char *why,
                        size_t why_len)
{
    unsigned long long claimed = ZSTD_getFrameContentSize(frame, frame_len);
    if (claimed == ZSTD_CONTENTSIZE_ERROR || claimed == ZSTD_CONTENTSIZE_UNKNOWN) {
        snprintf(why, why_len, "not a compressed frame");
        return MCPP_EINVALID;
    }
    if (claimed > max) {
        snprintf(why, why_len, "claims %llu bytes, more than the %zu a stored %s may have", claimed, max,
                 KIND_NAMES[kind]);
        return MCPP_EINVALID;
    }
    *size = (size_t)claimed;
    return MCPP_OK;
}

/* Inflates the frame into out[out->pos..out->size) on a streaming context
 * already started, *left getting zstd's last answer (0: the frame ended);
 * MCPP_EINVALID with `why` when it does not, or the frame ends before. */
static int inflate_to(ZSTD_DCtx *d, ZSTD_outBuffer *out, ZSTD_inBuffer *in, size_t *left, char *why, size_t why_len)
{
    while (out->pos < out->size) {
        size_t at_out = out->pos, at_in = in->pos;
        *left = ZSTD_decompressStream(d, out, in);
        if (ZSTD_isError(*left)) {
            snprintf(why, why_len, "does not decompress (%s)", ZSTD_getErrorName(*left));
            return MCPP_EINVALID;
        }
        if (out->pos == at_out && in->pos == at_in) break; /* no progress: the frame ended */
    }
    if (out->pos < out->size) {
        snprintf(why, why_len, "does not decompress (short)");
        return MCPP_EINVALID;
    }
    return MCPP_OK;
}

/* An image: the header is inflated first, and the rest only when the length
 * it declares (receipt/image.h: within what an image may have) is the
 * frame's, so a forged frame costs at most one image of the largest size a
 * receipt may have, and a frame of zeros nothing. Another build's image is
 * inflated within that bound; the image reader then refuses it as another
 * build's, which the loader and `store check` tell from a forged one. */
static int unpack_zstd_image(const codec_dict *d, mcpp_store_zctx *z, const unsigned char *frame, size_t frame_len,
                             unsigned char **out, size_t *out_len, char *why, size_t why_len)
{
    size_t size = 0;
    int rc = content_size(&size, frame, frame_len, KIND_IMAGE, mcpp_receipt_image_max_bytes(), why, why_len);
    if (rc) return rc;
    if (!z->d && !(z->d = ZSTD_createDCtx())) return mcpp_error_nomem();
    ZSTD_DCtx_reset(z->d, ZSTD_reset_session_and_parameters);
    if (d) ZSTD_DCtx_refDDict(z->d, d->d);
    unsigned char head[MCPP_IMAGE_HEADER_BYTES];
    ZSTD_inBuffer in = {frame, frame_len, 0};
    ZSTD_outBuffer o = {head, size < sizeof head ? size : sizeof head, 0};
    size_t declared = 0, left = 1;
    if ((rc = inflate_to(z->d, &o, &in, &left, why, why_len))) return rc;
    rc = mcpp_receipt_image_declared_size(&declared, head, o.pos, why, why_len);
    if (rc == MCPP_EUNSUPPORTED) declared = size; /* another build's: the image reader says so, as before */
    else if (rc) return rc;
    if (declared != size) {
        snprintf(why, why_len, "its header says %zu bytes, its frame %zu", declared, size);
        return MCPP_EINVALID;
    }
    unsigned char *buf = malloc(size + 1);
    MCPP_CHECK_ALLOC(buf);
    memcpy(buf, head, sizeof head);
    o = (ZSTD_outBuffer){buf, size, sizeof head};
    rc = inflate_to(z->d, &o, &in, &left, why, why_len);
    unsigned char extra; /* the frame must end here: its checksum read, no byte more */
    ZSTD_outBuffer more = {&extra, 1, 0};
    if (!rc && left != 0) left = ZSTD_decompressStream(z->d, &more, &in);
    if (!rc && (left != 0 || more.pos || in.pos < in.size)) {
        snprintf(why, why_len, "does not decompress (more than its header says)");
        rc = MCPP_EINVALID;
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[size] = '\0';
    *out = buf;
    *out_len = size;
    return MCPP_OK;
}

/* A body: at most the receipt limits' largest input (the loader refuses a
 * longer one), with a NUL after it. */
static int unpack_zstd_body(const codec_dict *d, mcpp_store_zctx *z, const unsigned char *frame, size_t frame_len,
                            unsigned char **out, size_t *out_len, char *why, size_t why_len)
{
    mcpp_limits limits = MCPP_LIMITS_INIT;
    size_t size = 0;
    int rc = content_size(&size, frame, frame_len, KIND_BODY, limits.max_input_bytes, why, why_len);
    if (rc) return rc;
    if (!z->d && !(z->d = ZSTD_createDCtx())) return mcpp_error_nomem();
    unsigned char *buf = malloc(size + 1);
    MCPP_CHECK_ALLOC(buf);
    size_t got = d ? ZSTD_decompress_usingDDict(z->d, buf, size, frame, frame_len, d->d)
                   : ZSTD_decompressDCtx(z->d, buf, size, frame, frame_len);
    if (ZSTD_isError(got) || got != size) {
        free(buf);
        snprintf(why, why_len, "does not decompress (%s)", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
        return MCPP_EINVALID;
    }
    buf[got] = '\0';
    *out = buf;
    *out_len = got;
    return MCPP_OK;
}

/* The LZ4 part of a blob: the length it states (at most `max`), then
 * `skip` bytes (a body's checksum), then the block; refused when it is
 * short, states more than `max`, or names another kind's dictionary. */
static int lz4_block(size_t *size, const char **block, int *block_len, const codec_dict *d, int kind,
                     const unsigned char *frame, size_t frame_len, size_t skip, size_t max, char *why, size_t why_len)
{
    if (frame_len < 4 + skip || frame_len - 4 - skip > (size_t)INT32_MAX) {
        snprintf(why, why_len, "too %s", frame_len < 4 + skip ? "short" : "long");
        return MCPP_EINVALID;
    }
    *size = get_u32(frame);
    if (*size > max) {
        snprintf(why, why_len, "claims %zu bytes, more than the %zu a stored %s may have", *size, max,
                 KIND_NAMES[kind]);
        return MCPP_EINVALID;
    }
    if (d && d->kind != kind) {
        snprintf(why, why_len, "names compression dictionary %u, which is %s %s dictionary", (unsigned)d->id,
                 d->kind == KIND_IMAGE ? "an" : "a", KIND_NAMES[d->kind]);
        return MCPP_EINVALID;
    }
    *block = (const char *)frame + 4 + skip;
    *block_len = (int)(frame_len - 4 - skip);
    return MCPP_OK;
}

/* The block inflated into a new buffer of `size` bytes and a NUL, handed
 * out when it is a block of exactly that length and, with `sum`, when its
 * checksum is the one stored at `sum`; MCPP_EINVALID with `why` otherwise. */
static int inflate_lz4(unsigned char **out, size_t *out_len, size_t size, const char *block, int block_len,
                       const codec_dict *d, const unsigned char *sum, char *why, size_t why_len)
{
    char *buf = malloc(size + 1);
    MCPP_CHECK_ALLOC(buf);
    int got = d ? LZ4_decompress_safe_usingDict(block, buf, block_len, (int)size, (const char *)d->bytes, (int)d->len)
                : LZ4_decompress_safe(block, buf, block_len, (int)size);
    const char *damage = got < 0               ? "not an LZ4 block of its length"
                         : (size_t)got != size ? "short"
                         : sum && mcpp_checksum_blob(buf, size, MCPP_FNV_OFFSET) != get_u64(sum) ? "checksum"
                                                                                                 : NULL;
    if (damage) {
        free(buf);
        snprintf(why, why_len, "does not decompress (%s)", damage);
        return MCPP_EINVALID;
    }
    buf[size] = '\0';
    *out = (unsigned char *)buf;
    *out_len = size;
    return MCPP_OK;
}

/* An LZ4 body: its length, its text's checksum, the block. The length is
 * checked against the receipt limits before anything is inflated, and LZ4
 * is held to it; the checksum then tells a damaged block from the text. */
static int unpack_lz4_body(const codec_dict *d, const unsigned char *frame, size_t frame_len, unsigned char **out,
                           size_t *out_len, char *why, size_t why_len)
{
    mcpp_limits limits = MCPP_LIMITS_INIT;
    size_t size = 0;
    const char *block = NULL;
    int block_len = 0;
    int rc =
        lz4_block(&size, &block, &block_len, d, KIND_BODY, frame, frame_len, 8, limits.max_input_bytes, why, why_len);
    return rc ? rc : inflate_lz4(out, out_len, size, block, block_len, d, frame + 4, why, why_len);
}

/* An LZ4 image: as a zstd one, its header is inflated first and the rest
 * only when the length the header declares is the blob's (so a forged blob
 * costs at most one image of the largest size); the image's own checksum is
 * the image reader's to check. */
static int unpack_lz4_image(const codec_dict *d, const unsigned char *frame, size_t frame_len, unsigned char **out,
                            size_t *out_len, char *why, size_t why_len)
{
    size_t size = 0, declared = 0;
    const char *block = NULL;
    int block_len = 0;
    int rc = lz4_block(&size, &block, &block_len, d, KIND_IMAGE, frame, frame_len, 0, mcpp_receipt_image_max_bytes(),
                       why, why_len);
    if (rc)
        return rc;
    char head[MCPP_IMAGE_HEADER_BYTES];
    int want = size < sizeof head ? (int)size : (int)sizeof head;
    int got = d ? LZ4_decompress_safe_partial_usingDict(block, head, block_len, want, (int)sizeof head,
                                                        (const char *)d->bytes, (int)d->len)
                : LZ4_decompress_safe_partial(block, head, block_len, want, (int)sizeof head);
    if (got < 0) {
        snprintf(why, why_len, "does not decompress (not an LZ4 block)");
        return MCPP_EINVALID;
    }
    rc = mcpp_receipt_image_declared_size(&declared, head, (size_t)got, why, why_len);
    if (rc == MCPP_EUNSUPPORTED)
        declared = size; /* another build's: the image reader says so, as before */
    else if (rc)
        return rc;
    if (declared != size) {
        snprintf(why, why_len, "its header says %zu bytes, its frame %zu", declared, size);
        return MCPP_EINVALID;
    }
    return inflate_lz4(out, out_len, size, block, block_len, d, NULL, why, why_len);
}

/* The bytes of a packed blob of `kind`, with a NUL after them; MCPP_EINVALID
 * with `why` when it does not decompress. */
static int unpack(const mcpp_store_codec *c, mcpp_store_zctx *z, const unsigned char *blob, size_t len, int kind,
                  unsigned char **out, size_t *out_len, char *why, size_t why_len)
{
    *out = NULL;
    *out_len = 0;
    const codec_dict *d = NULL;
    const unsigned char *frame = NULL;
    size_t frame_len = 0;
    int rc = frame_of(&d, &frame, &frame_len, c, blob, len, kind == KIND_IMAGE ? 16 : 4, why, why_len);
    if (rc) return rc;
    if (kind == KIND_IMAGE)
        return memcmp(blob, LZ4_IMAGE_MAGIC, 8) == 0
                   ? unpack_lz4_image(d, frame, frame_len, out, out_len, why, why_len)
                   : unpack_zstd_image(d, z, frame, frame_len, out, out_len, why, why_len);
    return memcmp(blob, LZ4_BODY_MAGIC, 4) == 0 ? unpack_lz4_body(d, frame, frame_len, out, out_len, why, why_len)
                                                : unpack_zstd_body(d, z, frame, frame_len, out, out_len, why, why_len);
}

int mcpp_store_unpack_image(const mcpp_store_codec *c, mcpp_store_zctx *z, const void *blob, size_t len,
                            unsigned char **out, size_t *out_len, char *why, size_t why_len)
{
    return unpack(c, z, blob, len, KIND_IMAGE, out, out_len, why, why_len);
}

int mcpp_store_unpack_body(const mcpp_store_codec *c, mcpp_store_zctx *z, const void *blob, size_t len, char **out,
                           size_t *out_len, char *why, size_t why_len)
{
    if (!mcpp_store_body_is_packed(blob, len)) {
        snprintf(why, why_len, "a blob that is not a compressed body");
        return MCPP_EINVALID;
    }
    return unpack(c, z, blob, len, KIND_BODY, (unsigned char **)out, out_len, why, why_len);
}

int mcpp_store_column_body(mcpp_store *s, sqlite3_stmt *st, int col, char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_NULL) return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "body", 0, 0, "it is missing");
    if (type != SQLITE_BLOB) { /* canonical JSON, as before version 6 */
        const char *text = (const char *)sqlite3_column_text(st, col);
        size_t len = (size_t)sqlite3_column_bytes(st, col);
        if (!text) return mcpp_error_nomem();
        if (!(*out = malloc(len + 1))) return mcpp_error_nomem();
        memcpy(*out, text, len + 1);
        *out_len = len;
        return MCPP_OK;
    }
    if (!s->zctx && !(s->zctx = mcpp_store_zctx_new())) return mcpp_error_nomem();
    char why[160];
    const void *blob = sqlite3_column_blob(st, col);
    size_t len = (size_t)sqlite3_column_bytes(st, col);
    int rc = mcpp_store_unpack_body(s->codec, s->zctx, blob, len, out, out_len, why, sizeof why);
    if (rc == MCPP_EUNSUPPORTED && !(rc = mcpp_store_codec_refresh(s))) /* a dictionary added since */
        rc = mcpp_store_unpack_body(s->codec, s->zctx, blob, len, out, out_len, why, sizeof why);
    if (rc == MCPP_EINVALID || rc == MCPP_EUNSUPPORTED)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "body", 0, 0, "the stored body %s", why);
    return rc;
}

int mcpp_store_codec_check(mcpp_strbuf *report, size_t *problems, const mcpp_store *s)
{
    const mcpp_store_codec *c = s->codec;
    for (size_t i = 0; c && i < c->n; i++) {
        if (!c->dicts[i].damaged) continue;
        mcpp_sb_printf(report, "dictionary %u (%s): damaged (checksum); the rows compressed with it do not read\n",
                       (unsigned)c->dicts[i].id, KIND_NAMES[c->dicts[i].kind]);
        (*problems)++;
    }
    return MCPP_OK;
}
