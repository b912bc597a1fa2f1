/**
 * @file em_op_fully_connected.c
 * @brief FULLY_CONNECTED adapter: input [B, I] int8 — or a feature map [B, H, W, C] read as
 *        [B, H·W·C] (the compiler folds a flatten into the linear) — weights [O, I] int8 or
 *        int4, bias [O] int32 -> output [B, O] int8, FullyConnectedOptions (multiplier/shift [O],
 *        paths: EM_NN_PATHS_FC bits, checked at load by em_nn_paths_linked()).
 *
 * Scratch: an optional second output, for int4 weights only: they are unpacked into it at every
 * invoke (em_op_int4.h); the kernel itself takes none.
 *
 * The output must not overlap the input (the planner must not alias them).
 * Bounds: check() requires B, I, O >= 1 with every operand within the loader's int32 bound (row
 * offsets b·I and o·I fit int32; the dot products wrap in uint32, as the reference's int32), each
 * multiplier >= 0 and shift in -31..30, the output offset and clamps int8.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_variants.h"
#include "em_op_int4.h"
#include "em_op_support.h"

enum { EM_FC_INPUT, EM_FC_WEIGHTS, EM_FC_BIAS, EM_FC_N_INPUTS };

typedef struct {
    em_tensor in[EM_FC_N_INPUTS]; /**< input, weights, bias */
    em_tensor out[2];             /**< output; scratch of int4 weights (em_op_int4.h) */
    em_fc_params params;
    em_fb_vector multiplier, shift;
} em_fc_args;

/* em_op_option_vector() out of line where size is asked for (-Os): decode reads two vectors, one
 * inlined copy serves both; inline otherwise (eval() decodes at every invoke). */
#ifdef __OPTIMIZE_SIZE__
#define EM_FC_VECTOR_INLINE __attribute__((noinline))
#else
#define EM_FC_VECTOR_INLINE inline
#endif

static EM_FC_VECTOR_INLINE em_status em_fc_option_vector(const em_op_context *ctx, uint32_t slot, em_fb_vector *out)
{
    return em_op_option_vector(ctx, slot, out);
}

static em_status em_fc_decode(const em_op_context *ctx, em_fc_args *a)
{
    em_fc_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_FC_N_INPUTS, a->out, ctx->outputs.len); /* em_op_int4.h */
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FULLY_CONNECTED);
    /* slots OUTPUT_OFFSET (0) .. ACTIVATION_MAX (2) are em_fc_params' first fields in order */
    _Static_assert(offsetof(em_fc_params, paths) == 3u * sizeof(int32_t) && EM_FULLY_CONNECTED_OPTIONS_OUTPUT_OFFSET == 0
                       && EM_FULLY_CONNECTED_OPTIONS_ACTIVATION_MAX == 2,
                   "em_fc_params must be the options' slots 0..2 in order");
    static const int8_t defaults[3] = {0, -128, 127};
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 3u, (int32_t *)(void *)p);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FULLY_CONNECTED_OPTIONS_PATHS, 0, (int32_t *)(void *)&p->paths);
    if (s == EM_OK) s = em_fc_option_vector(ctx, EM_FULLY_CONNECTED_OPTIONS_OUTPUT_MULTIPLIER, &a->multiplier);
    if (s == EM_OK) s = em_fc_option_vector(ctx, EM_FULLY_CONNECTED_OPTIONS_OUTPUT_SHIFT, &a->shift);
    return s;
}

/** Elements of @p t per index of its first dimension (rank >= 1, dims verified >= 0). */
static int64_t em_fc_row_elements(const em_tensor *t)
{
    int64_t n = 1;
    for (int32_t i = 1; i < t->rank; i++) {
        n *= em_op_dim(t, i);
    }
    return n;
}

static em_status em_fc_check(const em_op_context *ctx)
{
    em_fc_args a;
    /* the arity before the decode reads the outputs (em_op_int4.h), the scratch after it */
    em_status s = em_op_weights_outputs_ok(ctx) ? em_fc_decode(ctx, &a) : EM_ERR_BAD_OPERATOR;
    if (s == EM_OK && !em_op_weights_scratch_ok(ctx, &a.out[1])) {
        s = EM_ERR_BAD_OPERATOR;
    }
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *input = &a.in[EM_FC_INPUT];
    const bool map = em_op_is(input, EM_DTYPE_INT8, 4);
    uint32_t kernel_scratch; /* unused: the kernel takes none */
    if (!(em_op_is(input, EM_DTYPE_INT8, 2) || map)
        || !em_op_weights_fit(&a.in[EM_FC_WEIGHTS], 2, &a.out[1], &kernel_scratch)
        || !em_op_is(&a.in[EM_FC_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a.out[0], EM_DTYPE_INT8, 2)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const int32_t batches = em_op_dim(input, 0);
    const int32_t n_in = em_op_dim(&a.in[EM_FC_WEIGHTS], 1);
    const int32_t n_out = em_op_dim(&a.in[EM_FC_WEIGHTS], 0);
    if (batches < 1 || n_in < 1 || n_out < 1 || em_fc_row_elements(input) != n_in
        || em_op_dim(&a.in[EM_FC_BIAS], 0) != n_out || em_op_dim(&a.out[0], 0) != batches
        || em_op_dim(&a.out[0], 1) != n_out) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_fc_params *p = &a.params;
    if (!em_op_in_s8(p->output_offset) || !em_op_in_s8(p->activation_min)
        || !em_op_in_s8(p->activation_max) || p->activation_min > p->activation_max
        || !em_op_per_channel_quant_ok(ctx, &a.multiplier, &a.shift, n_out)) { /* em_nn_requantize's ranges */
        return EM_ERR_BAD_OPERATOR;
    }
    return em_op_paths_status(em_nn_paths_linked(p->paths, EM_NN_PATHS_FC));
}

static em_status em_fc_eval(const em_op_context *ctx)
{
    em_fc_args a;
    em_status s = em_fc_decode(ctx, &a);
    if (s == EM_OK && a.in[EM_FC_WEIGHTS].dtype == EM_DTYPE_INT4) {
        s = em_op_unpack_weights(&a.in[EM_FC_WEIGHTS], &a.out[1]);
    }
    if (s != EM_OK) {
        return s;
    }
    const em_fc_dims dims = {em_op_dim(&a.in[EM_FC_INPUT], 0), em_op_dim(&a.in[EM_FC_WEIGHTS], 1),
                             em_op_dim(&a.in[EM_FC_WEIGHTS], 0)};
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier),
                                        em_op_vector_i32(ctx, &a.shift)};
    return em_op_status(em_fully_connected_s8(&a.params, &quant, &dims, (const int8_t *)a.in[EM_FC_INPUT].data,
                                              (const int8_t *)a.in[EM_FC_WEIGHTS].data,
                                              (const int32_t *)a.in[EM_FC_BIAS].data, (int8_t *)a.out[0].data));
}

const em_op_registration em_op_fully_connected = {EM_OP_FULLY_CONNECTED, "fully_connected", EM_OP_CHECK(em_fc_check),
                                                  EM_OP_EVAL(em_fc_eval)};
