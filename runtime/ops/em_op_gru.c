/**
 * @file em_op_gru.c
 * @brief GRU adapter (em_op_recurrent.h: operands, options, check): x, w_ih [3H, I], w_hh [3H, H],
 *        b_ih, b_hh[, h0] -> y, h_n, scratch; runs em_gru_s8.
 */
#include "em_op_recurrent.h"

static em_status em_gru_check(const em_op_context *ctx)
{
    return em_rnn_check(ctx, 3u, 1u, em_gru_s8_get_buffer_size);
}

static em_status em_gru_eval(const em_op_context *ctx)
{
    em_rnn_args a;
    const em_status s = em_rnn_decode(ctx, &a, 1u);
    if (s != EM_OK) {
        return s;
    }
    const em_rnn_dims dims = em_rnn_dims_of(&a);
    const em_rnn_weights weights = em_rnn_weights_of(ctx, &a);
    const em_nn_context scratch = em_rnn_scratch_of(&a);
    const int8_t *h0 = a.given ? (const int8_t *)a.in[EM_RNN_WEIGHTS_END].data : NULL;
    return em_op_status(em_gru_s8(&a.params, &weights, &dims, (const int8_t *)a.in[EM_RNN_X].data, h0,
                                  (int8_t *)a.out[0].data, (int8_t *)a.out[1].data, &scratch));
}

const em_op_registration em_op_gru = {EM_OP_GRU, "gru", EM_OP_CHECK(em_gru_check), EM_OP_EVAL(em_gru_eval)};
