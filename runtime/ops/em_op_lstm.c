/**
 * @file em_op_lstm.c
 * @brief LSTM adapter (em_op_recurrent.h: operands, options, check): x, w_ih [4H, I], w_hh [4H, H],
 *        b_ih, b_hh[, h0, c0] -> y, h_n, c_n, scratch; runs em_lstm_s8.
 */
#include "em_op_recurrent.h"

static em_status em_lstm_check(const em_op_context *ctx)
{
    return em_rnn_check(ctx, 4u, 2u, em_lstm_s8_get_buffer_size);
}

static em_status em_lstm_eval(const em_op_context *ctx)
{
    em_rnn_args a;
    const em_status s = em_rnn_decode(ctx, &a, 2u);
    if (s != EM_OK) {
        return s;
    }
    const em_rnn_dims dims = em_rnn_dims_of(&a);
    const em_rnn_weights weights = em_rnn_weights_of(ctx, &a);
    const em_nn_context scratch = em_rnn_scratch_of(&a);
    const int8_t *h0 = a.given ? (const int8_t *)a.in[EM_RNN_WEIGHTS_END].data : NULL;
    const int8_t *c0 = a.given ? (const int8_t *)a.in[EM_RNN_WEIGHTS_END + 1].data : NULL;
    return em_op_status(em_lstm_s8(&a.params, &weights, &dims, (const int8_t *)a.in[EM_RNN_X].data, h0, c0,
                                   (int8_t *)a.out[0].data, (int8_t *)a.out[1].data, (int8_t *)a.out[2].data,
                                   &scratch));
}

const em_op_registration em_op_lstm = {EM_OP_LSTM, "lstm", EM_OP_CHECK(em_lstm_check), EM_OP_EVAL(em_lstm_eval)};
