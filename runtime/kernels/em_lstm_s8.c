/**
 * @file em_lstm_s8.c
 * @brief em_lstm_s8: one LSTM layer over T steps, int8 in and out, int16 gates, cell state and
 *        hidden state (at 2^-hidden_bits) (compiler/reference.py lstm_s8). The hidden and cell states live in
 *        scratch; y and h_n are int8 views of the unrounded o·tanh(c) (Q0.30).
 */
#include "em_nn_functions.h"
#include "em_nn_rnn.h"

int32_t em_lstm_s8_get_buffer_size(int32_t hidden); /* em_nn_buffer_sizes.c */

/** The cell state (scale 2^-bits) as tanh's Q3.12 input. */
static inline int32_t em_nn_cell_q12(int32_t c, int32_t bits)
{
    return bits > 12 ? em_nn_round_shift(c, bits - 12) : em_nn_sat16(c * (1 << (12 - bits)));
}

em_nn_status em_lstm_s8(const em_rnn_params *params, const em_rnn_weights *weights, const em_rnn_dims *dims,
                        const int8_t *input, const int8_t *h0, const int8_t *c0, int8_t *output, int8_t *h_n,
                        int8_t *c_n, const em_nn_context *ctx)
{
    if (c_n == NULL || (h0 == NULL) != (c0 == NULL)
        || !em_nn_rnn_args_ok(params, weights, dims, input, output, h_n, ctx,
                              dims != NULL ? em_lstm_s8_get_buffer_size(dims->hidden) : 0, true)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t hidden = dims->hidden, rows = 4 * hidden, bits = params->cell_bits;
    /* scratch: h (first: 4-byte aligned for the DSP pairs), the gates' two parts, the cell */
    int16_t *h = (int16_t *)ctx->buf, *gx = h + hidden, *gh = gx + rows, *cell = gh + rows;
    for (int32_t b = 0; b < dims->batches; b++) {
        em_nn_rnn_state_in(h, h0 != NULL ? h0 + b * hidden : NULL, hidden, params->state_offset,
                           params->state_multiplier, params->state_shift, -EM_NN_RNN_Q15_MAX);
        em_nn_rnn_state_in(cell, c0 != NULL ? c0 + b * hidden : NULL, hidden, params->cell_in_offset,
                           params->cell_in_multiplier, params->cell_in_shift, -32768);
        int32_t product = 0;
        for (int32_t t = 0; t < dims->steps; t++) {
            const int8_t *x = input + em_nn_rnn_row(params, dims, b, t, dims->input);
            int8_t *y = output + em_nn_rnn_row(params, dims, b, t, hidden);
            em_nn_rnn_gates_s16(x, weights->w_ih, dims->input, rows, weights->b_ih, weights->input_multiplier,
                                weights->input_shift, gx);
            em_nn_rnn_gates_h16(h, weights->w_hh, hidden, rows, weights->b_hh, weights->recurrent_multiplier,
                                weights->recurrent_shift, gh);
            const bool last = t == dims->steps - 1;
            for (int32_t k = 0; k < hidden; k++) {
                const int32_t i = em_nn_sigmoid_s16(em_nn_sat16(gx[k] + gh[k]));
                const int32_t f = em_nn_sigmoid_s16(em_nn_sat16(gx[hidden + k] + gh[hidden + k]));
                const int32_t u = em_nn_tanh_s16(em_nn_sat16(gx[2 * hidden + k] + gh[2 * hidden + k]));
                const int32_t o = em_nn_sigmoid_s16(em_nn_sat16(gx[3 * hidden + k] + gh[3 * hidden + k]));
                const int32_t c = em_nn_sat16(em_nn_round_shift(f * cell[k], 15) + em_nn_round_shift(i * u, 30 - bits));
                cell[k] = (int16_t)c;
                product = o * em_nn_tanh_s16(em_nn_cell_q12(c, bits)); /* Q0.30, |.| < 2^30 */
                h[k] = (int16_t)em_nn_round_shift(product, 30 - params->hidden_bits);
                y[k] = em_nn_rnn_s8_of(product, params->hidden_offset, params->hidden_multiplier, params->hidden_shift);
                if (last) { /* h_n from the product before its rounding */
                    h_n[b * hidden + k] = em_nn_rnn_s8_of(product, params->hn_offset, params->hn_multiplier,
                                                          params->hn_shift);
                }
            }
        }
        for (int32_t k = 0; k < hidden; k++) {
            c_n[b * hidden + k] = em_nn_rnn_s8_of(cell[k], params->cn_offset, params->cn_multiplier, params->cn_shift);
        }
    }
    return EM_NN_OK;
}
