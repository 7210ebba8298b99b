/*
 * stack.c — building and running the hybrid A/M/E/R layer stack on the CPU
 * (see mcpp_kernels/stack.h). The blocks call the reference kernels for their
 * recurrent/attention cores and the chosen GEMM for every projection.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "kernel_error.h"
#include "mcpp_kernels/reference.h"
#include "mcpp_kernels/stack.h"

typedef struct stack_layer {
    char family;
    float *norm;     /* [D] */
    float *w_in;     /* A: [D, 3D]  M: [D, 2D+2S]  R: [D, 3D]  E: router [D, E] */
    float *w_out;    /* A, M, R: [D, D] */
    float *a_log;    /* M: [D, S] */
    float *dt_bias;  /* M: [D] */
    float *d_skip;   /* M: [D] */
    float *w1, *w2;  /* E: [E, D, F], [E, F, D] */
    mcpp_kernel_moe_plan plan;
} stack_layer;

struct mcpp_kernel_stack {
    mcpp_kernel_stack_config cfg;
    mcpp_kernel_kmem *mem;
    stack_layer *layers;
    float *embedding;  /* [V, D], tied with the LM head */
    float *final_norm; /* [D] */
    float *x, *xn, *proj, *core, *delta, *logits, *hidden; /* activations */
    size_t proj_width;
    size_t params_total, params_active;
    int first_e;
};

int mcpp_kernel_stack_family_index(char letter)
{
    switch (letter) {
    case 'A': return 0;
    case 'M': return 1;
    case 'E': return 2;
    case 'R': return 3;
    default: return -1;
    }
}

static int stack_bad(const char *field, const char *what)
{
    return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, field, 0, "%s", what);
}

int mcpp_kernel_stack_config_check(const mcpp_kernel_stack_config *cfg)
{
    size_t len = strlen(cfg->pattern);
    if (len == 0) return stack_bad("pattern", "pattern is empty (use letters A, M, E, R)");
    for (size_t i = 0; i < len; i++)
        if (mcpp_kernel_stack_family_index(cfg->pattern[i]) < 0)
            return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, NULL, "pattern", 0,
                                  "pattern letter '%c' at position %zu is not one of A, M, E, R",
                                  cfg->pattern[i], i + 1);
    if (cfg->depth == 0 || cfg->depth > MCPP_KERNEL_STACK_MAX_DEPTH)
        return stack_bad("depth", "depth must be in 1..1024");
    if (cfg->d_model == 0 || cfg->d_model > 16384) return stack_bad("d-model", "d-model must be in 1..16384");
    if (cfg->heads == 0 || cfg->d_model % cfg->heads != 0)
        return stack_bad("heads", "heads must be >= 1 and divide d-model");
    if (cfg->state == 0 || cfg->state > MCPP_KERNEL_SCAN_MAX_STATE)
        return stack_bad("state", "scan state must be in 1..64");
    if (cfg->vocab < 2 || cfg->vocab > (1u << 24)) return stack_bad("vocab", "vocab must be in 2..16777216");
    if (cfg->seq_len == 0 || cfg->seq_len > 65536) return stack_bad("seq-len", "seq-len must be in 1..65536");
    if (cfg->batch == 0 || cfg->batch > 65536) return stack_bad("batch", "batch must be in 1..65536");
    if (strchr(cfg->pattern, 'E')) {
        const mcpp_kernel_moe_config *m = &cfg->moe;
        if (m->experts == 0 || m->experts > 4096) return stack_bad("experts", "experts must be in 1..4096");
        if (m->top_k == 0 || m->top_k > m->experts)
            return stack_bad("top-k", "top-k must be in 1..experts");
        if (!(m->capacity_factor > 0.0) || !isfinite(m->capacity_factor))
            return stack_bad("capacity-factor", "capacity-factor must be a positive number");
        if (m->d_ff == 0 || m->d_ff > 65536) return stack_bad("d-ff", "d-ff must be in 1..65536");
    }
    return MCPP_OK;
}

/* splitmix64: a tiny seeded generator, state kept by the caller. */
static uint64_t stack_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float *stack_param(mcpp_kernel_stack *s, uint64_t *rng, size_t count, float scale, float base)
{
    float *p = mcpp_kernel_kmem_alloc(s->mem, count, sizeof(float));
    if (!p) return NULL;
    for (size_t i = 0; i < count; i++) {
        double u = (double)(stack_next(rng) >> 11) * (1.0 / 9007199254740992.0);
        p[i] = base + scale * (float)(2.0 * u - 1.0);
    }
    s->params_total += count;
    return p;
}

void mcpp_kernel_stack_free(mcpp_kernel_stack *s)
{
    if (!s) return;
    mcpp_kernel_kmem *mem = s->mem;
    if (s->layers) {
        for (size_t i = 0; i < s->cfg.depth; i++) {
            stack_layer *l = &s->layers[i];
            mcpp_kernel_kmem_free(mem, l->norm);
            mcpp_kernel_kmem_free(mem, l->w_in);
            mcpp_kernel_kmem_free(mem, l->w_out);
            mcpp_kernel_kmem_free(mem, l->a_log);
            mcpp_kernel_kmem_free(mem, l->dt_bias);
            mcpp_kernel_kmem_free(mem, l->d_skip);
            mcpp_kernel_kmem_free(mem, l->w1);
            mcpp_kernel_kmem_free(mem, l->w2);
            if (l->plan.expert) mcpp_kernel_moe_plan_release(&l->plan, mem);
        }
        mcpp_kernel_kmem_free(mem, s->layers);
    }
    float *bufs[] = {s->embedding, s->final_norm, s->x,      s->xn,    s->proj,
                     s->core,      s->delta,      s->logits, s->hidden};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mcpp_kernel_kmem_free(mem, bufs[i]);
    mcpp_kernel_kmem_free(mem, s);
}

int mcpp_kernel_stack_new(mcpp_kernel_stack **out, const mcpp_kernel_stack_config *cfg, mcpp_kernel_kmem *mem)
{
    *out = NULL;
    int rc = mcpp_kernel_stack_config_check(cfg);
    if (rc != MCPP_OK) return rc;
    mcpp_kernel_stack *s = mcpp_kernel_kmem_alloc(mem, 1, sizeof *s);
    if (!s) return mcpp_kernel_error_nomem();
    s->cfg = *cfg;
    s->cfg.moe.d_model = cfg->d_model;
    s->mem = mem;
    s->first_e = -1;
    uint64_t rng = cfg->seed ^ 0x6D637070ull;
    size_t D = cfg->d_model, S = cfg->state, V = cfg->vocab, N = cfg->batch * cfg->seq_len;
    size_t E = cfg->moe.experts, F = cfg->moe.d_ff, K = cfg->moe.top_k;
    float wscale = 1.0f / sqrtf((float)D);
    size_t plen = strlen(cfg->pattern);
    size_t expert_params = 0;

    s->proj_width = 3 * D;
    if (2 * D + 2 * S > s->proj_width) s->proj_width = 2 * D + 2 * S;
    if (strchr(cfg->pattern, 'E') && E > s->proj_width) s->proj_width = E;

    s->layers = mcpp_kernel_kmem_alloc(mem, cfg->depth, sizeof(stack_layer));
    s->embedding = stack_param(s, &rng, V * D, 1.0f, 0.0f);
    s->final_norm = stack_param(s, &rng, D, 0.1f, 1.0f);
    if (!s->layers || !s->embedding || !s->final_norm) goto nomem;
    for (size_t i = 0; i < cfg->depth; i++) {
        stack_layer *l = &s->layers[i];
        l->family = cfg->pattern[i % plen];
        l->norm = stack_param(s, &rng, D, 0.1f, 1.0f);
        if (!l->norm) goto nomem;
        switch (l->family) {
        case 'A':
            l->w_in = stack_param(s, &rng, D * 3 * D, wscale, 0.0f);
            l->w_out = stack_param(s, &rng, D * D, wscale, 0.0f);
            if (!l->w_in || !l->w_out) goto nomem;
            break;
        case 'M':
            l->w_in = stack_param(s, &rng, D * (2 * D + 2 * S), wscale, 0.0f);
            l->w_out = stack_param(s, &rng, D * D, wscale, 0.0f);
            l->a_log = stack_param(s, &rng, D * S, 0.5f, 0.0f);
            l->dt_bias = stack_param(s, &rng, D, 0.5f, -1.0f);
            l->d_skip = stack_param(s, &rng, D, 0.5f, 1.0f);
            if (!l->w_in || !l->w_out || !l->a_log || !l->dt_bias || !l->d_skip) goto nomem;
            break;
        case 'R':
            l->w_in = stack_param(s, &rng, D * 3 * D, wscale, 0.0f);
            l->w_out = stack_param(s, &rng, D * D, wscale, 0.0f);
            if (!l->w_in || !l->w_out) goto nomem;
            break;
        case 'E':
            /* Router weights are larger so that scores are decisive, as trained routers are. */
            l->w_in = stack_param(s, &rng, D * E, 4.0f * wscale, 0.0f);
            l->w1 = stack_param(s, &rng, E * D * F, wscale, 0.0f);
            l->w2 = stack_param(s, &rng, E * F * D, 1.0f / sqrtf((float)F), 0.0f);
            if (!l->w_in || !l->w1 || !l->w2) goto nomem;
            if (mcpp_kernel_moe_plan_init(&l->plan, &s->cfg.moe, N, mem) != MCPP_OK) goto nomem;
            expert_params += 2 * E * D * F;
            if (s->first_e < 0) s->first_e = (int)i;
            break;
        }
    }
    s->x = mcpp_kernel_kmem_alloc(mem, N * D, sizeof(float));
    s->xn = mcpp_kernel_kmem_alloc(mem, N * D, sizeof(float));
    s->proj = mcpp_kernel_kmem_alloc(mem, N * s->proj_width, sizeof(float));
    s->core = mcpp_kernel_kmem_alloc(mem, N * D, sizeof(float));
    s->delta = mcpp_kernel_kmem_alloc(mem, N * D, sizeof(float));
    s->logits = mcpp_kernel_kmem_alloc(mem, N * V, sizeof(float));
    s->hidden = mcpp_kernel_kmem_alloc(mem, F ? F : 1, sizeof(float));
    if (!s->x || !s->xn || !s->proj || !s->core || !s->delta || !s->logits || !s->hidden)
        goto nomem;
    s->params_active = s->params_total - expert_params + (E ? expert_params / E * K : 0);
    *out = s;
    return MCPP_OK;
nomem:
    mcpp_kernel_stack_free(s);
    return mcpp_kernel_error_nomem();
}

static double stack_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mcpp_kernel_stack_forward(mcpp_kernel_stack *s, const int32_t *tokens, const mcpp_kernel_stack_exec *exec,
                       mcpp_kernel_stack_stats *stats)
{
    const mcpp_kernel_stack_config *c = &s->cfg;
    size_t D = c->d_model, S = c->state, V = c->vocab, N = c->batch * c->seq_len;
    size_t H = c->heads, E = c->moe.experts;
    mcpp_kernel_gemm_impl g = exec->reference ? MCPP_KERNEL_GEMM_REFERENCE : exec->gemm;
    mcpp_kernel_stack_stats local;
    if (!stats) {
        memset(&local, 0, sizeof local);
        stats = &local;
    }
    for (size_t i = 0; i < N; i++)
        if (tokens[i] < 0 || (size_t)tokens[i] >= V)
            return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "tokens", 0,
                                  "token %ld at position %zu is outside the vocab of %zu",
                                  (long)tokens[i], i, V);

    double t0 = stack_now();
    mcpp_kernel_ref_embedding(s->x, tokens, N, s->embedding, V, D);
    stats->embed_s += stack_now() - t0;

    for (size_t i = 0; i < c->depth; i++) {
        stack_layer *l = &s->layers[i];
        double start = stack_now();
        mcpp_kernel_ref_rmsnorm(s->xn, s->x, l->norm, N, D, 1e-5f);
        switch (l->family) {
        case 'A':
            mcpp_kernel_gemm(g, N, 3 * D, D, s->xn, D, l->w_in, 3 * D, 0, s->proj, 3 * D, 0);
            mcpp_kernel_ref_attention(s->core, s->proj, c->batch, c->seq_len, H, D / H);
            mcpp_kernel_gemm(g, N, D, D, s->core, D, l->w_out, D, 0, s->delta, D, 0);
            break;
        case 'M':
            mcpp_kernel_gemm(g, N, 2 * D + 2 * S, D, s->xn, D, l->w_in, 2 * D + 2 * S, 0, s->proj,
                      2 * D + 2 * S, 0);
            mcpp_kernel_ref_selective_scan(s->core, s->proj, l->a_log, l->dt_bias, l->d_skip, c->batch,
                                    c->seq_len, D, S);
            mcpp_kernel_gemm(g, N, D, D, s->core, D, l->w_out, D, 0, s->delta, D, 0);
            break;
        case 'R':
            mcpp_kernel_gemm(g, N, 3 * D, D, s->xn, D, l->w_in, 3 * D, 0, s->proj, 3 * D, 0);
            mcpp_kernel_ref_gated_recurrence(s->core, s->proj, c->batch, c->seq_len, D);
            mcpp_kernel_gemm(g, N, D, D, s->core, D, l->w_out, D, 0, s->delta, D, 0);
            break;
        case 'E': {
            mcpp_kernel_gemm(g, N, E, D, s->xn, D, l->w_in, E, 0, s->proj, E, 0);
            mcpp_kernel_moe_route(&l->plan, s->proj, &c->moe);
            double imb = mcpp_kernel_moe_imbalance(&l->plan);
            stats->imbalance_sum += imb;
            stats->imbalance_count++;
            if (imb > stats->imbalance_max) stats->imbalance_max = imb;
            if (exec->reference) {
                mcpp_kernel_ref_moe(s->delta, s->xn, l->w1, l->w2, &l->plan, &c->moe, s->hidden);
            } else {
                int rc = mcpp_kernel_moe_forward(s->delta, s->xn, l->w1, l->w2, &l->plan, &c->moe,
                                          exec->lane, g, s->mem, &stats->moe);
                if (rc != MCPP_OK) return rc;
            }
            break;
        }
        }
        mcpp_kernel_ref_residual_add(s->x, s->delta, N * D);
        stats->family_s[mcpp_kernel_stack_family_index(l->family)] += stack_now() - start;
    }

    t0 = stack_now();
    mcpp_kernel_ref_rmsnorm(s->xn, s->x, s->final_norm, N, D, 1e-5f);
    if (exec->reference)
        mcpp_kernel_ref_lm_head(s->logits, s->xn, s->embedding, N, D, V);
    else
        mcpp_kernel_gemm(g, N, V, D, s->xn, D, s->embedding, D, 1, s->logits, V, 0);
    stats->head_s += stack_now() - t0;
    stats->forwards++;
    return MCPP_OK;
}

const float *mcpp_kernel_stack_logits(const mcpp_kernel_stack *s) { return s->logits; }

const mcpp_kernel_moe_plan *mcpp_kernel_stack_first_plan(const mcpp_kernel_stack *s)
{
    return s->first_e < 0 ? NULL : &s->layers[s->first_e].plan;
}

size_t mcpp_kernel_stack_params_total(const mcpp_kernel_stack *s) { return s->params_total; }
size_t mcpp_kernel_stack_params_active(const mcpp_kernel_stack *s) { return s->params_active; }

const mcpp_kernel_stack_config *mcpp_kernel_stack_get_config(const mcpp_kernel_stack *s) { return &s->cfg; }

int mcpp_kernel_stack_layer(mcpp_kernel_stack_layer_view *out, const mcpp_kernel_stack *s, size_t index)
{
    memset(out, 0, sizeof *out);
    if (index >= s->cfg.depth)
        return mcpp_kernel_error(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "layer", 0,
                              "layer %zu is past the depth %zu", index, s->cfg.depth);
    const stack_layer *l = &s->layers[index];
    out->family = l->family;
    out->norm = l->norm;
    out->w_in = l->w_in;
    out->w_out = l->w_out;
    out->a_log = l->a_log;
    out->dt_bias = l->dt_bias;
    out->d_skip = l->d_skip;
    out->w1 = l->w1;
    out->w2 = l->w2;
    return MCPP_OK;
}

const float *mcpp_kernel_stack_embedding(const mcpp_kernel_stack *s) { return s->embedding; }
const float *mcpp_kernel_stack_final_norm(const mcpp_kernel_stack *s) { return s->final_norm; }
