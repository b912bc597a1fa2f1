/**
 * @file em_nn_rnn.h
 * @brief Internal helpers of the recurrent kernels (em_gru_s8.c, em_lstm_s8.c, em_nn_rnn_s16.c):
 *        the Q3.12 -> Q0.15 sigmoid and tanh (reference.sigmoid_s16, tanh_s16) and the gate rows'
 *        matrix-vector product. Bit-exact with compiler/reference.py on every tier.
 */
#ifndef EM_NN_RNN_H
#define EM_NN_RNN_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"

#define EM_NN_RNN_TABLE_ENTRIES 257 /* f(k/32), k = 0..256: |x| in Q3.12 by steps of 2^7 codes */
#define EM_NN_RNN_STEP_BITS 7
#define EM_NN_RNN_Q15_MAX 32767 /* the int16 hidden state's bound, symmetric */

extern const int16_t em_nn_sigmoid_q15_table[EM_NN_RNN_TABLE_ENTRIES];
extern const int16_t em_nn_tanh_q15_table[EM_NN_RNN_TABLE_ENTRIES];

/** The table at |x| (x Q3.12, -32768..32767): entry |x| >> 7, interpolated by the low 7 bits
 *  (rounded half up); |x| = 32768 reads the last entry. Returns 0..32767. */
static inline int32_t em_nn_rnn_interpolate(int32_t x, const int16_t *table)
{
    const int32_t a = x < 0 ? -x : x;
    int32_t index = a >> EM_NN_RNN_STEP_BITS, fraction = a & ((1 << EM_NN_RNN_STEP_BITS) - 1);
    if (index >= EM_NN_RNN_TABLE_ENTRIES - 1) {
        index = EM_NN_RNN_TABLE_ENTRIES - 2;
        fraction = 1 << EM_NN_RNN_STEP_BITS;
    }
    const int32_t low = table[index], high = table[index + 1];
    return low + (((high - low) * fraction + (1 << (EM_NN_RNN_STEP_BITS - 1))) >> EM_NN_RNN_STEP_BITS);
}

/** sigmoid: Q3.12 -> Q0.15, 1..32767. */
static inline int32_t em_nn_sigmoid_s16(int32_t x)
{
    const int32_t y = em_nn_rnn_interpolate(x, em_nn_sigmoid_q15_table);
    return x < 0 ? 32768 - y : y;
}

/** tanh: Q3.12 -> Q0.15, -32767..32767. */
static inline int32_t em_nn_tanh_s16(int32_t x)
{
    const int32_t y = em_nn_rnn_interpolate(x, em_nn_tanh_q15_table);
    return x < 0 ? -y : y;
}

/** Saturate to int16. */
static inline int32_t em_nn_sat16(int32_t x)
{
    return x < -32768 ? -32768 : x > 32767 ? 32767 : x;
}

/** Saturate to int8. */
static inline int32_t em_nn_sat8(int32_t x)
{
    return x < -128 ? -128 : x > 127 ? 127 : x;
}

/** x / 2^bits rounded half up, bits 1..30 (|x| < 2^31 − 2^(bits−1)). */
static inline int32_t em_nn_round_shift(int32_t x, int32_t bits)
{
    return (x + (1 << (bits - 1))) >> bits;
}

/**
 * out[o] = sat16(requantize(bias[o] + Σ_{i<k} x[i]·w[o·k + i], multiplier[o], shift[o])) for the
 * @p rows gate rows (int32 sums wrap like the reference's). MVE: 16-lane VMLADAV per row; DSP:
 * four rows per input word (SMLAD); scalar: four rows per input byte.
 * @param x     [k] int8
 * @param w     [rows, k] int8, row-major
 * @param out   [rows] int16 Q3.12
 */
void em_nn_rnn_gates_s16(const int8_t *x, const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                         const int32_t *multiplier, const int32_t *shift, int16_t *out);

/**
 * out[o] = sat16(requantize(Σ_{i<k} h[i]·w[o·k + i], multiplier[o], shift[o]) + bias[o]) for the
 * @p rows gate rows: the recurrent part, of the int16 hidden state. The sum is exact in int32
 * (|h| <= 32767, k <= EM_NN_RNN_HIDDEN_MAX); the bias, Q3.12 codes, is added in int64. MVE:
 * 8-lane VMLADAV per row (weights widened by VLDRB.S16); DSP: four rows per two input words
 * (SMLAD on SXTB16 weight pairs); scalar: four rows per input.
 * @param h     [k] int16, -32767..32767, 4-byte aligned
 * @param w     [rows, k] int8, row-major
 * @param out   [rows] int16 Q3.12
 */
void em_nn_rnn_gates_h16(const int16_t *h, const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                         const int32_t *multiplier, const int32_t *shift, int16_t *out);

/**
 * The scalar contract of em_gru_s8 / em_lstm_s8 (@p lstm: cell fields too): pointers set, dims
 * >= 1 with every row offset within int32, scratch of @p scratch_needed bytes at least, offsets
 * int8, multipliers >= 0, shifts -31..30, cell_bits and hidden_bits 8..15. Per-row vectors are not read.
 */
bool em_nn_rnn_args_ok(const em_rnn_params *p, const em_rnn_weights *w, const em_rnn_dims *d, const void *input,
                       const void *output, const void *h_n, const em_nn_context *ctx, int32_t scratch_needed,
                       bool lstm);

/** An int8 view of a hidden value (Q0.15 / Q0.30) or cell state: sat8(offset + requantize(v)). */
static inline int8_t em_nn_rnn_s8_of(int32_t v, int32_t offset, int32_t multiplier, int32_t shift)
{
    const int64_t out = (int64_t)offset + em_nn_requantize(v, multiplier, shift);
    return (int8_t)(out < -128 ? -128 : out > 127 ? 127 : out);
}

/** An initial state entering the kernel's units: state[k] = clamp(requantize(s0[k] − offset), low,
 *  32767), all 0 for s0 NULL (the zero state). */
static inline void em_nn_rnn_state_in(int16_t *state, const int8_t *s0, int32_t n, int32_t offset,
                                      int32_t multiplier, int32_t shift, int32_t low)
{
    for (int32_t k = 0; k < n; k++) {
        const int32_t v = s0 != NULL ? em_nn_requantize(s0[k] - offset, multiplier, shift) : 0;
        state[k] = (int16_t)(v < low ? low : v > 32767 ? 32767 : v);
    }
}

/** Row of time step @p t of batch entry @p b in a [B, T, n] (batch_first) or [T, B, n] tensor. */
static inline int32_t em_nn_rnn_row(const em_rnn_params *p, const em_rnn_dims *d, int32_t b, int32_t t, int32_t n)
{
    return (p->batch_first ? b * d->steps + t : t * d->batches + b) * n;
}

#endif /* EM_NN_RNN_H */
