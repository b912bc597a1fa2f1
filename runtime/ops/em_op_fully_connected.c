/**
 * @file em_op_fully_connected.c
 * @brief FULLY_CONNECTED adapter: input [B, I] int8 — or a feature map [B, H, W, C] read as
 *        [B, H·W·C] (the compiler folds a flatten into the linear) — weights [O, I] int8 or
 *        int4, bias [O] int32 -> output [B, O] int8, FullyConnectedOptions (multiplier/shift [O],
 *        paths: EM_NN_PATHS_FC bits, checked at load by em_nn_paths_linked()). A16W8: input
 *        and output int16 (no output offset), weights int8 -> em_fully_connected_s16().
 *
 * Scratch: an optional second output, for int4 weights only: at every invoke they are unpacked
 * into it as many rows at a time as it holds (at least one: each weight is read once either way,
 * so a few rows cost no more instructions than all of them, and far less RAM), and each block of
 * rows runs as a layer of its own; the kernel itself takes none.
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

/** check() of an int16 (A16W8) operator: input INT16 [B, I] or [B, H, W, C], weights INT8 (int4
 *  with int16 activations is not a kernel Ember has: EM_ERR_BAD_OPERATOR, as the compiler refuses
 *  it), bias INT32, output INT16 [B, O] (a scratch goes unused), then em_fully_connected_s16_validate(),
 *  whose first answer is whether this firmware links the kernel (EM_ERR_VARIANT_NOT_LINKED). */
static em_status em_fc_check_s16(const em_fc_args *a, const em_per_channel_quant *quant)
{
    const em_tensor *input = &a->in[EM_FC_INPUT], *weights = &a->in[EM_FC_WEIGHTS];
    if (!(em_op_is(input, EM_DTYPE_INT16, 2) || em_op_is(input, EM_DTYPE_INT16, 4))
        || !em_op_is(weights, EM_DTYPE_INT8, 2) || !em_op_is(&a->in[EM_FC_BIAS], EM_DTYPE_INT32, 1)
        || !em_op_is(&a->out[0], EM_DTYPE_INT16, 2)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_fc_dims dims = {em_op_dim(input, 0), em_op_dim(weights, 1), em_op_dim(weights, 0)};
    if (dims.batches < 1 || dims.input_features < 1 || dims.output_features < 1
        || em_fc_row_elements(input) != dims.input_features || em_op_dim(&a->in[EM_FC_BIAS], 0) != dims.output_features
        || em_op_dim(&a->out[0], 0) != dims.batches || em_op_dim(&a->out[0], 1) != dims.output_features
        || a->multiplier.len != (uint32_t)dims.output_features || a->shift.len != (uint32_t)dims.output_features) {
        return EM_ERR_BAD_OPERATOR;
    }
    return em_op_paths_status(em_fully_connected_s16_validate(&a->params, quant, &dims));
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
    if (input->dtype == EM_DTYPE_INT16) {
        return em_fc_check_s16(&a, &(const em_per_channel_quant){em_op_vector_i32(ctx, &a.multiplier),
                                                                 em_op_vector_i32(ctx, &a.shift)});
    }
    const bool map = em_op_is(input, EM_DTYPE_INT8, 4);
    const em_tensor *weights = &a.in[EM_FC_WEIGHTS];
    if (!(em_op_is(input, EM_DTYPE_INT8, 2) || map) || weights->rank != 2
        || (weights->dtype != EM_DTYPE_INT8 && weights->dtype != EM_DTYPE_INT4)
        || !em_op_is(&a.in[EM_FC_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a.out[0], EM_DTYPE_INT8, 2)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const int32_t batches = em_op_dim(input, 0);
    const int32_t n_in = em_op_dim(weights, 1);
    const int32_t n_out = em_op_dim(weights, 0);
    /* int4: a scratch of at least one row unpacked (eval() takes as many as it holds) */
    if ((weights->dtype == EM_DTYPE_INT4 && a.out[1].size < (uint32_t)n_in)
        || batches < 1 || n_in < 1 || n_out < 1 || em_fc_row_elements(input) != n_in
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

/** int4 weights: blocks of as many rows as the scratch holds, each unpacked there and run as a
 *  layer of those rows, batch by batch (check() proved the scratch holds one row). */
static __attribute__((noinline)) em_status em_fc_eval_s4(const em_fc_args *a, const em_fc_dims *dims,
                                                          const em_per_channel_quant *quant)
{
    const int32_t n_in = dims->input_features, n_out = dims->output_features;
    const int32_t per_block = (int32_t)((uint32_t)em_op_dim(&a->out[1], 0) / (uint32_t)n_in);
    const uint8_t *packed = (const uint8_t *)a->in[EM_FC_WEIGHTS].data;
    const int32_t row_bytes = (n_in + 1) / 2; /* compiler/int4.py: each row whole bytes */
    int8_t *unpacked = (int8_t *)a->out[1].data;
    const int8_t *input = (const int8_t *)a->in[EM_FC_INPUT].data;
    const int32_t *bias = (const int32_t *)a->in[EM_FC_BIAS].data;
    int8_t *output = (int8_t *)a->out[0].data;
    for (int32_t first = 0; first < n_out; first += per_block) {
        const int32_t rows = n_out - first < per_block ? n_out - first : per_block;
        em_nn_status s = em_unpack_s4(packed + first * row_bytes, rows, n_in, unpacked);
        const em_fc_dims block = {1, n_in, rows};
        const em_per_channel_quant q = {quant->multiplier + first, quant->shift + first};
        for (int32_t b = 0; s == EM_NN_OK && b < dims->batches; b++) {
            s = em_fully_connected_s8(&a->params, &q, &block, input + b * n_in, unpacked, bias + first,
                                      output + b * n_out + first);
        }
        if (s != EM_NN_OK) {
            return em_op_status(s);
        }
    }
    return EM_OK;
}

static em_status em_fc_eval(const em_op_context *ctx)
{
    em_fc_args a;
    const em_status s = em_fc_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_fc_dims dims = {em_op_dim(&a.in[EM_FC_INPUT], 0), em_op_dim(&a.in[EM_FC_WEIGHTS], 1),
                             em_op_dim(&a.in[EM_FC_WEIGHTS], 0)};
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier),
                                        em_op_vector_i32(ctx, &a.shift)};
    if (a.in[EM_FC_WEIGHTS].dtype == EM_DTYPE_INT4) {
        return em_fc_eval_s4(&a, &dims, &quant);
    }
    if (a.in[EM_FC_INPUT].dtype == EM_DTYPE_INT16) { /* A16W8 (check(): EM_NN_S16_LINKED) */
        return em_op_status(em_fully_connected_s16_trusted(&a.params, &quant, &dims,
                                                           (const int16_t *)a.in[EM_FC_INPUT].data,
                                                           (const int8_t *)a.in[EM_FC_WEIGHTS].data,
                                                           (const int32_t *)a.in[EM_FC_BIAS].data,
                                                           (int16_t *)a.out[0].data));
    }
    return em_op_status(em_fully_connected_s8(&a.params, &quant, &dims, (const int8_t *)a.in[EM_FC_INPUT].data,
                                              (const int8_t *)a.in[EM_FC_WEIGHTS].data,
                                              (const int32_t *)a.in[EM_FC_BIAS].data, (int8_t *)a.out[0].data));
}

const em_op_registration em_op_fully_connected = {EM_OP_FULLY_CONNECTED, "fully_connected", EM_OP_CHECK(em_fc_check),
                                                  EM_OP_EVAL(em_fc_eval)};
