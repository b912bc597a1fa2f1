/**
 * @file em_nn_rnn_s16.c
 * @brief What the recurrent kernels (em_gru_s8.c, em_lstm_s8.c) share: the Q0.15 sigmoid and tanh
 *        tables (reference.SIGMOID_Q15_TABLE, TANH_Q15_TABLE: f(k/32), k = 0..256, rounded;
 *        tests/kernels/test_recurrent_tables.py compares them) and the gate rows' matrix-vector
 *        products to Q3.12 int16, on every tier's fast path. Of the int8 input: MVE VMLADAV over
 *        16 lanes, DSP four rows per input word (SMLAD), scalar four rows per input byte (the
 *        fully connected kernels' inner loops, em_nn_dot_s8.h). Of the int16 hidden state: MVE
 *        VMLADAV over 8 int16 lanes, DSP four rows per pair of input words (SMLAD), scalar four
 *        rows per input.
 */
#include "em_nn_dot_s8.h"
#include "em_nn_rnn.h"

const int16_t em_nn_sigmoid_q15_table[EM_NN_RNN_TABLE_ENTRIES] = {
    16384, 16640, 16896, 17151, 17407, 17661, 17916, 18169, 18421, 18673, 18923, 19173, 19420, 19667, 19912, 20155,
    20397, 20636, 20874, 21110, 21344, 21575, 21804, 22031, 22255, 22477, 22696, 22913, 23127, 23338, 23547, 23753,
    23955, 24155, 24352, 24546, 24737, 24925, 25110, 25292, 25471, 25646, 25819, 25988, 26155, 26318, 26479, 26636,
    26790, 26941, 27090, 27235, 27377, 27516, 27653, 27786, 27917, 28045, 28169, 28292, 28411, 28528, 28642, 28753,
    28862, 28968, 29072, 29173, 29272, 29368, 29462, 29554, 29644, 29731, 29816, 29899, 29979, 30058, 30135, 30210,
    30282, 30353, 30422, 30489, 30555, 30618, 30680, 30740, 30799, 30856, 30912, 30966, 31018, 31069, 31119, 31167,
    31214, 31260, 31304, 31347, 31389, 31430, 31469, 31508, 31545, 31581, 31616, 31651, 31684, 31716, 31747, 31778,
    31807, 31836, 31864, 31891, 31917, 31943, 31968, 31992, 32015, 32038, 32060, 32081, 32102, 32122, 32141, 32160,
    32179, 32196, 32214, 32231, 32247, 32263, 32278, 32293, 32307, 32321, 32335, 32348, 32361, 32373, 32385, 32397,
    32408, 32419, 32430, 32440, 32450, 32460, 32469, 32478, 32487, 32496, 32504, 32512, 32520, 32527, 32535, 32542,
    32549, 32555, 32562, 32568, 32574, 32580, 32586, 32592, 32597, 32602, 32607, 32612, 32617, 32622, 32626, 32630,
    32635, 32639, 32643, 32647, 32650, 32654, 32657, 32661, 32664, 32667, 32670, 32673, 32676, 32679, 32682, 32684,
    32687, 32689, 32692, 32694, 32696, 32699, 32701, 32703, 32705, 32707, 32709, 32711, 32712, 32714, 32716, 32717,
    32719, 32720, 32722, 32723, 32725, 32726, 32727, 32728, 32730, 32731, 32732, 32733, 32734, 32735, 32736, 32737,
    32738, 32739, 32740, 32741, 32742, 32742, 32743, 32744, 32745, 32745, 32746, 32747, 32747, 32748, 32749, 32749,
    32750, 32750, 32751, 32752, 32752, 32753, 32753, 32753, 32754, 32754, 32755, 32755, 32756, 32756, 32756, 32757,
    32757,
};

const int16_t em_nn_tanh_q15_table[EM_NN_RNN_TABLE_ENTRIES] = {
    0, 1024, 2045, 3063, 4075, 5079, 6073, 7056, 8025, 8980, 9919, 10840, 11743, 12625, 13486, 14326,
    15143, 15936, 16706, 17452, 18173, 18870, 19542, 20189, 20813, 21411, 21986, 22538, 23066, 23571, 24054, 24516,
    24956, 25376, 25776, 26157, 26519, 26864, 27191, 27502, 27797, 28076, 28341, 28592, 28830, 29055, 29268, 29470,
    29660, 29840, 30010, 30170, 30322, 30465, 30600, 30727, 30847, 30960, 31067, 31167, 31262, 31351, 31435, 31515,
    31589, 31659, 31726, 31788, 31846, 31901, 31953, 32002, 32048, 32091, 32132, 32170, 32206, 32240, 32271, 32301,
    32329, 32356, 32381, 32404, 32426, 32447, 32466, 32484, 32501, 32517, 32532, 32547, 32560, 32573, 32584, 32596,
    32606, 32616, 32625, 32634, 32642, 32649, 32657, 32663, 32670, 32676, 32681, 32686, 32691, 32696, 32700, 32704,
    32708, 32712, 32715, 32718, 32721, 32724, 32727, 32729, 32732, 32734, 32736, 32738, 32740, 32741, 32743, 32745,
    32746, 32747, 32749, 32750, 32751, 32752, 32753, 32754, 32755, 32755, 32756, 32757, 32758, 32758, 32759, 32759,
    32760, 32760, 32761, 32761, 32762, 32762, 32762, 32763, 32763, 32763, 32764, 32764, 32764, 32764, 32765, 32765,
    32765, 32765, 32765, 32766, 32766, 32766, 32766, 32766, 32766, 32766, 32766, 32767, 32767, 32767, 32767, 32767,
    32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
    32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
    32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
    32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
    32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
    32767,
};

/** sat16 of a requantized accumulator. */
static inline int16_t em_nn_rnn_gate16(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t v = em_nn_requantize(acc, multiplier, shift);
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

void em_nn_rnn_gates_s16(const int8_t *x, const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                         const int32_t *multiplier, const int32_t *shift, int16_t *out)
{
    int32_t o = 0;
#if EM_NN_TIER_MVE
    for (; o < rows; o++) {
        const int32_t acc = em_nn_dot_s8_mve(x, w + o * k, k, bias[o]);
        out[o] = em_nn_rnn_gate16(acc, multiplier[o], shift[o]);
    }
#else
    for (; o + 4 <= rows; o += 4) {
        int32_t acc[4] = {bias[o], bias[o + 1], bias[o + 2], bias[o + 3]};
#if EM_NN_TIER_DSP
        em_nn_dot4_s8_dsp(x, w + o * k, k, k, acc);
#else
        em_nn_dot4_s8_scalar(x, w + o * k, k, k, acc);
#endif
        for (int32_t r = 0; r < 4; r++) {
            out[o + r] = em_nn_rnn_gate16(acc[r], multiplier[o + r], shift[o + r]);
        }
    }
    for (; o < rows; o++) {
#if EM_NN_TIER_DSP
        const int32_t acc = em_nn_dot_s8_dsp(x, w + o * k, k, bias[o]);
#else
        const int32_t acc = em_nn_dot_s8_scalar(x, w + o * k, k, bias[o]);
#endif
        out[o] = em_nn_rnn_gate16(acc, multiplier[o], shift[o]);
    }
#endif
}

/** sat16(requantize(acc) + bias): the bias (Q3.12 codes, any int32) added in int64. */
static inline int16_t em_nn_rnn_gate16_biased(int32_t acc, int32_t multiplier, int32_t shift, int32_t bias)
{
    const int64_t v = (int64_t)em_nn_requantize(acc, multiplier, shift) + bias;
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

#if EM_NN_TIER_MVE
/** Σ_i h[i]·w[i] over @p n pairs (8 lanes, weights widened on load; a predicated tail). */
static inline int32_t em_nn_rnn_dot_h16_mve(const int16_t *h, const int8_t *w, int32_t n)
{
    int32_t acc = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        acc = vmladavaq_s16(acc, vld1q_s16(h + i), vldrbq_s16(w + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        acc = vmladavaq_s16(acc, vldrhq_z_s16(h + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}
#endif

void em_nn_rnn_gates_h16(const int16_t *h, const int8_t *w, int32_t k, int32_t rows, const int32_t *bias,
                         const int32_t *multiplier, const int32_t *shift, int16_t *out)
{
    int32_t o = 0;
#if EM_NN_TIER_MVE
    for (; o < rows; o++) {
        out[o] = em_nn_rnn_gate16_biased(em_nn_rnn_dot_h16_mve(h, w + o * k, k), multiplier[o], shift[o], bias[o]);
    }
#else
    for (; o + 4 <= rows; o += 4) {
        const int8_t *w0 = w + o * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i = 0;
#if EM_NN_TIER_DSP
        /* per four inputs: h as (h0, h2), (h1, h3) pairs (shared by the rows), each row's four
         * weights as the same pairs by SXTB16, two SMLAD */
        for (; i + 4 <= k; i += 4) {
            int32_t h02, h13;
            em_nn_s16x4_pairs(h + i, &h02, &h13);
            uint32_t q = em_nn_read_s8x4(w0 + i);
            a0 = __smlad(em_nn_sxtb16_13(q), h13, __smlad(em_nn_sxtb16_02(q), h02, a0));
            q = em_nn_read_s8x4(w1 + i);
            a1 = __smlad(em_nn_sxtb16_13(q), h13, __smlad(em_nn_sxtb16_02(q), h02, a1));
            q = em_nn_read_s8x4(w2 + i);
            a2 = __smlad(em_nn_sxtb16_13(q), h13, __smlad(em_nn_sxtb16_02(q), h02, a2));
            q = em_nn_read_s8x4(w3 + i);
            a3 = __smlad(em_nn_sxtb16_13(q), h13, __smlad(em_nn_sxtb16_02(q), h02, a3));
        }
#endif
        for (; i < k; i++) {
            const int32_t hi = h[i];
            a0 += hi * w0[i], a1 += hi * w1[i], a2 += hi * w2[i], a3 += hi * w3[i];
        }
        out[o] = em_nn_rnn_gate16_biased(a0, multiplier[o], shift[o], bias[o]);
        out[o + 1] = em_nn_rnn_gate16_biased(a1, multiplier[o + 1], shift[o + 1], bias[o + 1]);
        out[o + 2] = em_nn_rnn_gate16_biased(a2, multiplier[o + 2], shift[o + 2], bias[o + 2]);
        out[o + 3] = em_nn_rnn_gate16_biased(a3, multiplier[o + 3], shift[o + 3], bias[o + 3]);
    }
    for (; o < rows; o++) {
        const int8_t *row = w + o * k;
        int32_t acc = 0;
        for (int32_t i = 0; i < k; i++) {
            acc += h[i] * row[i];
        }
        out[o] = em_nn_rnn_gate16_biased(acc, multiplier[o], shift[o], bias[o]);
    }
#endif
}

static bool em_nn_rnn_s8(int32_t v)
{
    return v >= -128 && v <= 127;
}

static bool em_nn_rnn_rq(int32_t multiplier, int32_t shift)
{
    return multiplier >= 0 && shift >= -31 && shift <= 30;
}

bool em_nn_rnn_args_ok(const em_rnn_params *p, const em_rnn_weights *w, const em_rnn_dims *d, const void *input,
                       const void *output, const void *h_n, const em_nn_context *ctx, int32_t scratch_needed,
                       bool lstm)
{
    if (p == NULL || w == NULL || d == NULL || input == NULL || output == NULL || h_n == NULL || ctx == NULL
        || w->w_ih == NULL || w->w_hh == NULL || w->b_ih == NULL || w->b_hh == NULL || w->input_multiplier == NULL
        || w->input_shift == NULL || w->recurrent_multiplier == NULL || w->recurrent_shift == NULL) {
        return false;
    }
    const int32_t limit = 1 << 20; /* B·T·max(I, H) and 4·H·max(I, H) stay far below 2^31 */
    if (d->batches < 1 || d->steps < 1 || d->input < 1 || d->hidden < 1 || d->input > limit
        || d->hidden > EM_NN_RNN_HIDDEN_MAX
        || (int64_t)d->batches * d->steps * (d->input > d->hidden ? d->input : d->hidden) > INT32_MAX / 2
        || (int64_t)4 * d->hidden * (d->input > d->hidden ? d->input : d->hidden) > INT32_MAX / 2) {
        return false;
    }
    if (scratch_needed < 1 || ctx->buf == NULL || ctx->size < scratch_needed || ((uintptr_t)ctx->buf & 3u) != 0) {
        return false;
    }
    bool ok = em_nn_rnn_s8(p->hidden_offset) && em_nn_rnn_s8(p->state_offset) && em_nn_rnn_s8(p->hn_offset)
              && em_nn_rnn_rq(p->hidden_multiplier, p->hidden_shift) && em_nn_rnn_rq(p->state_multiplier, p->state_shift)
              && em_nn_rnn_rq(p->hn_multiplier, p->hn_shift) && p->hidden_bits >= 8 && p->hidden_bits <= 15;
    if (lstm) {
        ok = ok && p->cell_bits >= 8 && p->cell_bits <= 15 && em_nn_rnn_s8(p->cell_in_offset)
             && em_nn_rnn_s8(p->cn_offset) && em_nn_rnn_rq(p->cell_in_multiplier, p->cell_in_shift)
             && em_nn_rnn_rq(p->cn_multiplier, p->cn_shift);
    }
    return ok;
}
