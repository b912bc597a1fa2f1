/**
 * @file em_gru_s8.c
 * @brief em_gru_s8: one GRU layer over T steps, int8 in and out, int16 gates
 *        (compiler/reference.py gru_s8). The weights are read once per step; the hidden state of
 *        step t is y's row of step t − 1 (the initial one is staged in scratch).
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
    const int32_t hidden = dims->hidden, rows = 3 * hidden, zp = params->hidden_offset;
    int16_t *gx = (int16_t *)ctx->buf, *gh = gx + rows;
    int8_t *staged = (int8_t *)(gh + rows);
    for (int32_t b = 0; b < dims->batches; b++) {
        for (int32_t k = 0; k < hidden; k++) {
            const int32_t centred = h0 != NULL ? h0[b * hidden + k] - params->state_offset : 0;
            staged[k] = (int8_t)em_nn_sat8(zp + em_nn_requantize(centred, params->state_multiplier, params->state_shift));
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
                const int32_t r = em_nn_sigmoid_s16(em_nn_sat16(gx[k] + gh[k]));
                const int32_t z = em_nn_sigmoid_s16(em_nn_sat16(gx[hidden + k] + gh[hidden + k]));
                const int32_t n = em_nn_tanh_s16(em_nn_sat16(gx[2 * hidden + k]
                                                             + em_nn_round_shift(r * gh[2 * hidden + k], 15)));
                /* in 2^-15 hidden codes: |z·(h − zp)| < 2^23, the update below 2^23 for |n| <= 1 */
                const int32_t update = z * (h[k] - zp)
                                       + em_nn_requantize((32768 - z) * n, params->hidden_multiplier, params->hidden_shift);
                y[k] = (int8_t)em_nn_sat8(zp + em_nn_round_shift(update, 15));
                if (t == dims->steps - 1) { /* h_n from the update before its rounding */
                    h_n[b * hidden + k] = (int8_t)em_nn_sat8(
                        params->hn_offset + em_nn_requantize(update, params->hn_multiplier, params->hn_shift));
                }
            }
            h = y;
        }
    }
    return EM_NN_OK;
}
