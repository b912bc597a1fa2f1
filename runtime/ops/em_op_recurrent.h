/**
 * @file em_op_recurrent.h
 * @brief What the GRU and LSTM adapters (em_op_gru.c, em_op_lstm.c) share: decode and check of a
 *        recurrent layer's operands and RecurrentOptions (compiler/ops/recurrent.py writes them).
 *
 * Inputs: x [B, T, I] or [T, B, I] int8, w_ih [G·H, I] int8, w_hh [G·H, H] int8, b_ih and b_hh
 * [G·H] int32 (b_hh: Q3.12 codes), then, optionally, the @p states initial states (h0; LSTM h0, c0), each int8 of
 * B·H elements ([B, H] or [1, B, H]). Outputs: y (x's layout, H last) int8, then @p states final
 * states of B·H int8 elements (h_n; LSTM h_n, c_n), then the kernel's scratch (1-D int8). check()
 * requires every shape to agree, the per-row vectors to hold G·H entries in em_nn_requantize's
 * ranges, the scalars in range (offsets int8, multipliers >= 0, shifts -31..30, cell_bits and
 * hidden_bits 8..15)
 * and the scratch to hold what em_<op>_s8_get_buffer_size asks for.
 */
#ifndef EM_OP_RECURRENT_H
#define EM_OP_RECURRENT_H

#include <stddef.h>

#include "em_nn_functions.h"
#include "em_op_support.h"

enum { EM_RNN_X, EM_RNN_W_IH, EM_RNN_W_HH, EM_RNN_B_IH, EM_RNN_B_HH, EM_RNN_WEIGHTS_END, EM_RNN_MAX_INPUTS = 7 };

typedef struct {
    em_tensor in[EM_RNN_MAX_INPUTS];
    em_tensor out[4]; /**< y, final states, scratch */
    uint32_t n_in, n_out;
    bool given;       /**< initial states among the inputs */
    bool scratch;     /**< a scratch output */
    em_rnn_params params;
    em_fb_vector vectors[4]; /**< input multiplier, shift, recurrent multiplier, shift */
} em_rnn_args;

static inline em_status em_rnn_decode(const em_op_context *ctx, em_rnn_args *a, uint32_t states)
{
    const uint32_t n_in = ctx->inputs.len, n_out = ctx->outputs.len;
    if ((n_in != EM_RNN_WEIGHTS_END && n_in != EM_RNN_WEIGHTS_END + states) || (n_out != 1u + states && n_out != 2u + states)) {
        return EM_ERR_BAD_OPERATOR;
    }
    a->n_in = n_in, a->n_out = n_out, a->given = n_in > EM_RNN_WEIGHTS_END, a->scratch = n_out == 2u + states;
    em_status s = em_op_operands(ctx, a->in, n_in, a->out, n_out);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_RECURRENT);
    em_rnn_params *p = &a->params;
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_RECURRENT_OPTIONS_BATCH_FIRST, 0, &p->batch_first);
    /* the scalar slots HIDDEN_OFFSET .. CN_SHIFT are em_rnn_params' fields after batch_first, in order */
    _Static_assert(EM_RECURRENT_OPTIONS_CN_SHIFT - EM_RECURRENT_OPTIONS_HIDDEN_OFFSET == 15
                       && EM_RECURRENT_OPTIONS_CELL_BITS - EM_RECURRENT_OPTIONS_HIDDEN_OFFSET == 9
                       && offsetof(em_rnn_params, cn_shift) - offsetof(em_rnn_params, hidden_offset) == 15 * sizeof(int32_t)
                       && offsetof(em_rnn_params, cell_bits) - offsetof(em_rnn_params, hidden_offset) == 9 * sizeof(int32_t),
                   "em_rnn_params must follow RecurrentOptions' scalar slots");
    static const int8_t defaults[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0};
    if (s == EM_OK) s = em_op_option_i32s(ctx, EM_RECURRENT_OPTIONS_HIDDEN_OFFSET, defaults, 16u, &p->hidden_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_RECURRENT_OPTIONS_HIDDEN_BITS, 15, &p->hidden_bits);
    static const uint8_t slots[4] = {EM_RECURRENT_OPTIONS_INPUT_MULTIPLIER, EM_RECURRENT_OPTIONS_INPUT_SHIFT,
                                     EM_RECURRENT_OPTIONS_RECURRENT_MULTIPLIER, EM_RECURRENT_OPTIONS_RECURRENT_SHIFT};
    for (uint32_t v = 0; s == EM_OK && v < 4u; v++) {
        s = em_op_option_vector(ctx, slots[v], &a->vectors[v]);
    }
    return s;
}

/** The dims, after em_rnn_decode (shapes verified by check()). */
static inline em_rnn_dims em_rnn_dims_of(const em_rnn_args *a)
{
    const em_tensor *x = &a->in[EM_RNN_X];
    const int32_t batches = em_op_dim(x, a->params.batch_first ? 0 : 1);
    const int32_t steps = em_op_dim(x, a->params.batch_first ? 1 : 0);
    const em_rnn_dims d = {batches, steps, em_op_dim(x, 2), em_op_dim(&a->in[EM_RNN_W_HH], 1)};
    return d;
}

/** True when @p t is int8 with @p n elements as [n1, n2] = [B, H] or [1, B, H]. */
static inline bool em_rnn_state_ok(const em_tensor *t, int32_t batches, int32_t hidden)
{
    if (t->dtype != EM_DTYPE_INT8 || t->rank < 2 || t->rank > 3 || (t->rank == 3 && em_op_dim(t, 0) != 1)) {
        return false;
    }
    return em_op_dim(t, t->rank - 2) == batches && em_op_dim(t, t->rank - 1) == hidden;
}

static inline bool em_rnn_rq_ok(int32_t multiplier, int32_t shift)
{
    return multiplier >= 0 && shift >= -31 && shift <= 30;
}

/** check() of a recurrent layer with @p gates gate blocks and @p states states (1 GRU, 2 LSTM). */
static inline em_status em_rnn_check(const em_op_context *ctx, uint32_t gates, uint32_t states, int32_t (*scratch)(int32_t))
{
    em_rnn_args a;
    const em_status s = em_rnn_decode(ctx, &a, states);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *x = &a.in[EM_RNN_X], *w_ih = &a.in[EM_RNN_W_IH], *w_hh = &a.in[EM_RNN_W_HH];
    if (!em_op_is(x, EM_DTYPE_INT8, 3) || !em_op_is(w_ih, EM_DTYPE_INT8, 2) || !em_op_is(w_hh, EM_DTYPE_INT8, 2)
        || !em_op_is(&a.in[EM_RNN_B_IH], EM_DTYPE_INT32, 1) || !em_op_is(&a.in[EM_RNN_B_HH], EM_DTYPE_INT32, 1)
        || !em_op_is(&a.out[0], EM_DTYPE_INT8, 3)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_rnn_dims d = em_rnn_dims_of(&a);
    const int32_t rows = em_op_dim(w_hh, 0);
    if (d.batches < 1 || d.steps < 1 || d.input < 1 || d.hidden < 1 || d.hidden > EM_NN_RNN_HIDDEN_MAX
        || (int64_t)rows != (int64_t)gates * d.hidden || em_op_dim(w_ih, 0) != rows || em_op_dim(w_ih, 1) != d.input
        || em_op_dim(&a.in[EM_RNN_B_IH], 0) != rows || em_op_dim(&a.in[EM_RNN_B_HH], 0) != rows
        || em_op_dim(&a.out[0], 0) != em_op_dim(x, 0) || em_op_dim(&a.out[0], 1) != em_op_dim(x, 1)
        || em_op_dim(&a.out[0], 2) != d.hidden) {
        return EM_ERR_BAD_OPERATOR;
    }
    for (uint32_t k = 0; k < states; k++) {
        if ((a.given && !em_rnn_state_ok(&a.in[EM_RNN_WEIGHTS_END + k], d.batches, d.hidden))
            || !em_rnn_state_ok(&a.out[1 + k], d.batches, d.hidden)) {
            return EM_ERR_BAD_OPERATOR;
        }
    }
    const int32_t needed = scratch(d.hidden);
    if (!a.scratch || needed < 1 || !em_op_is(&a.out[a.n_out - 1], EM_DTYPE_INT8, 1)
        || em_op_dim(&a.out[a.n_out - 1], 0) < needed) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_rnn_params *p = &a.params;
    bool ok = em_op_per_channel_quant_ok(ctx, &a.vectors[0], &a.vectors[1], rows)
              && em_op_per_channel_quant_ok(ctx, &a.vectors[2], &a.vectors[3], rows)
              && (p->batch_first == 0 || p->batch_first == 1) && em_op_in_s8(p->hidden_offset)
              && em_op_in_s8(p->state_offset) && em_op_in_s8(p->hn_offset)
              && em_rnn_rq_ok(p->hidden_multiplier, p->hidden_shift) && em_rnn_rq_ok(p->state_multiplier, p->state_shift)
              && em_rnn_rq_ok(p->hn_multiplier, p->hn_shift) && p->hidden_bits >= 8 && p->hidden_bits <= 15;
    if (states == 2u) {
        ok = ok && p->cell_bits >= 8 && p->cell_bits <= 15 && em_op_in_s8(p->cell_in_offset) && em_op_in_s8(p->cn_offset)
             && em_rnn_rq_ok(p->cell_in_multiplier, p->cell_in_shift) && em_rnn_rq_ok(p->cn_multiplier, p->cn_shift);
    }
    return ok ? EM_OK : EM_ERR_BAD_OPERATOR;
}

/** The kernel's constants and scratch, after em_rnn_decode. */
static inline em_rnn_weights em_rnn_weights_of(const em_op_context *ctx, const em_rnn_args *a)
{
    const em_rnn_weights w = {(const int8_t *)a->in[EM_RNN_W_IH].data, (const int8_t *)a->in[EM_RNN_W_HH].data,
                              (const int32_t *)a->in[EM_RNN_B_IH].data, (const int32_t *)a->in[EM_RNN_B_HH].data,
                              em_op_vector_i32(ctx, &a->vectors[0]), em_op_vector_i32(ctx, &a->vectors[1]),
                              em_op_vector_i32(ctx, &a->vectors[2]), em_op_vector_i32(ctx, &a->vectors[3])};
    return w;
}

static inline em_nn_context em_rnn_scratch_of(const em_rnn_args *a)
{
    const em_tensor *scratch = &a->out[a->n_out - 1];
    const em_nn_context c = {scratch->data, em_op_dim(scratch, 0), 0u};
    return c;
}

#endif /* EM_OP_RECURRENT_H */
