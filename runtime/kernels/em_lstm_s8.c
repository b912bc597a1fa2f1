/**
 * @file em_lstm_s8.c
 * @brief em_lstm_s8: one LSTM layer over T steps, int8 in and out, int16 gates and cell state
 *        (compiler/reference.py lstm_s8). The hidden state of step t is y's row of step t − 1
 *        (the initial one is staged in scratch); the cell state lives in scratch.
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
    const int32_t hidden = dims->hidden, rows = 4 * hidden, zp = params->hidden_offset, bits = params->cell_bits;
    int16_t *gx = (int16_t *)ctx->buf, *gh = gx + rows, *cell = gh + rows;
    int8_t *staged = (int8_t *)(cell + hidden);
    for (int32_t b = 0; b < dims->batches; b++) {
        for (int32_t k = 0; k < hidden; k++) {
            const int32_t h_centred = h0 != NULL ? h0[b * hidden + k] - params->state_offset : 0;
            const int32_t c_centred = c0 != NULL ? c0[b * hidden + k] - params->cell_in_offset : 0;
            staged[k] = (int8_t)em_nn_sat8(zp + em_nn_requantize(h_centred, params->state_multiplier, params->state_shift));
            cell[k] = (int16_t)em_nn_sat16(em_nn_requantize(c_centred, params->cell_in_multiplier, params->cell_in_shift));
        }
        const int8_t *h = staged;
        for (int32_t t = 0; t < dims->steps; t++) {
            const int8_t *x = input + em_nn_rnn_row(params, dims, b, t, dims->input);
            int8_t *y = output + em_nn_rnn_row(params, dims, b, t, hidden);
            em_nn_rnn_gates_s16(x, weights->w_ih, dims->input, rows, weights->b_ih, weights->input_multiplier,
                                weights->input_shift, gx);
            em_nn_rnn_gates_s16(h, weights->w_hh, hidden, rows, weights->b_hh, weights->recurrent_multiplier,
                                weights->recurrent_shift, gh);
            for (int32_t k = 0; k < hidden; k++) {
                const int32_t i = em_nn_sigmoid_s16(em_nn_sat16(gx[k] + gh[k]));
                const int32_t f = em_nn_sigmoid_s16(em_nn_sat16(gx[hidden + k] + gh[hidden + k]));
                const int32_t u = em_nn_tanh_s16(em_nn_sat16(gx[2 * hidden + k] + gh[2 * hidden + k]));
                const int32_t o = em_nn_sigmoid_s16(em_nn_sat16(gx[3 * hidden + k] + gh[3 * hidden + k]));
                const int32_t c = em_nn_sat16(em_nn_round_shift(f * cell[k], 15) + em_nn_round_shift(i * u, 30 - bits));
                cell[k] = (int16_t)c;
                const int32_t product = o * em_nn_tanh_s16(em_nn_cell_q12(c, bits)); /* Q0.30 */
                y[k] = (int8_t)em_nn_sat8(zp + em_nn_requantize(product, params->hidden_multiplier, params->hidden_shift));
                if (t == dims->steps - 1) { /* h_n from the product before its rounding */
                    h_n[b * hidden + k] = (int8_t)em_nn_sat8(
                        params->hn_offset + em_nn_requantize(product, params->hn_multiplier, params->hn_shift));
                }
            }
            h = y;
        }
        for (int32_t k = 0; k < hidden; k++) {
            c_n[b * hidden + k] = (int8_t)em_nn_sat8(
                params->cn_offset + em_nn_requantize(cell[k], params->cn_multiplier, params->cn_shift));
        }
    }
    return EM_NN_OK;
}
