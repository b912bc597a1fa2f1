/**
 * @file em_gru_s8.c
 * @brief em_gru_s8: one GRU layer over T steps, int8 in and out, int16 gates and hidden state
 *        (at 2^-hidden_bits) (compiler/reference.py gru_s8). The weights are read once per step; the hidden
 *        state lives in scratch (y and h_n are int8 views of it).
 */
#include "em_nn_functions.h"
#include "em_nn_rnn.h"

int32_t em_gru_s8_get_buffer_size(int32_t hidden); /* em_nn_buffer_sizes.c */

em_nn_status em_gru_s8(const em_rnn_params *params, const em_rnn_weights *weights, const em_rnn_dims *dims,
                       const int8_t *input, const int8_t *h0, int8_t *output, int8_t *h_n,
                       const em_nn_context *ctx)
{
    if (!em_nn_rnn_args_ok(params, weights, dims, input, output, h_n, ctx,
                           dims != NULL ? em_gru_s8_get_buffer_size(dims->hidden) : 0, false)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t hidden = dims->hidden, rows = 3 * hidden, n_shift = 15 - params->hidden_bits;
    /* scratch: h (first: 4-byte aligned for the DSP pairs), then the gates' two parts */
    int16_t *h = (int16_t *)ctx->buf, *gx = h + hidden, *gh = gx + rows;
    for (int32_t b = 0; b < dims->batches; b++) {
        em_nn_rnn_state_in(h, h0 != NULL ? h0 + b * hidden : NULL, hidden, params->state_offset,
                           params->state_multiplier, params->state_shift, -EM_NN_RNN_Q15_MAX);
        for (int32_t t = 0; t < dims->steps; t++) {
            const int8_t *x = input + em_nn_rnn_row(params, dims, b, t, dims->input);
            int8_t *y = output + em_nn_rnn_row(params, dims, b, t, hidden);
            em_nn_rnn_gates_s16(x, weights->w_ih, dims->input, rows, weights->b_ih, weights->input_multiplier,
                                weights->input_shift, gx);
            em_nn_rnn_gates_h16(h, weights->w_hh, hidden, rows, weights->b_hh, weights->recurrent_multiplier,
                                weights->recurrent_shift, gh);
            for (int32_t k = 0; k < hidden; k++) {
                const int32_t r = em_nn_sigmoid_s16(em_nn_sat16(gx[k] + gh[k]));
                const int32_t z = em_nn_sigmoid_s16(em_nn_sat16(gx[hidden + k] + gh[hidden + k]));
                const int32_t n = em_nn_tanh_s16(em_nn_sat16(gx[2 * hidden + k]
                                                             + em_nn_round_shift(r * gh[2 * hidden + k], 15)));
                /* n in h's units; |z·(h − m)| <= 32767·65534 < 2^31 − 2^14; h' between h and m */
                const int32_t m = n_shift > 0 ? em_nn_round_shift(n, n_shift) : n;
                const int32_t next = m + em_nn_round_shift(z * (h[k] - m), 15);
                h[k] = (int16_t)next;
                y[k] = em_nn_rnn_s8_of(next, params->hidden_offset, params->hidden_multiplier, params->hidden_shift);
            }
        }
        for (int32_t k = 0; k < hidden; k++) {
            h_n[b * hidden + k] = em_nn_rnn_s8_of(h[k], params->hn_offset, params->hn_multiplier, params->hn_shift);
        }
    }
    return EM_NN_OK;
}
