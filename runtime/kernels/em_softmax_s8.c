/**
 * @file em_softmax_s8.c
 * @brief int8 softmax over the last axis, exactly compiler/reference.py:softmax_s8 (TFLite's
 *        int8 algorithm on gemmlowp fixed point).
 *
 * One scalar path on every tier: a classifier's softmax runs over a few dozen values per
 * inference, where the exponential's dependent multiply chain, not the width, sets the cost.
 * em_softmax_masked_s8() is the same row with an attention mask's positions left out. From
 * EM_SOFTMAX_TABLE_MIN_VALUES values on (attention's [heads · Tq, Tk] scores), the exponentials of
 * the 256 differences an int8 row can hold are computed once per call into the scratch and looked
 * up: the same values, each computed once instead of twice per value.
 */
#include "em_nn_functions.h"
#include "em_nn_support.h"

#define EM_SOFTMAX_DIFF_INTEGER_BITS 5
#define EM_SOFTMAX_ACCUMULATION_INTEGER_BITS 12

/** gemmlowp SaturatingRoundingDoublingHighMul: (a·b·2 + 2^31) / 2^32, C division, saturating. */
static int32_t em_nn_srdhm(int32_t a, int32_t b)
{
    if (a == EM_NN_INT32_MIN && b == EM_NN_INT32_MIN) {
        return EM_NN_INT32_MAX;
    }
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/** gemmlowp RoundingDivideByPOT: x / 2^exponent, nearest, ties away from zero (exponent 0..31). */
static int32_t em_nn_rounding_divide_by_pot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << exponent) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/** sat32(x · 2^bits), bits 0..31, in 32 bits: x · 2^bits > INT32_MAX exactly when
 *  x > INT32_MAX >> bits (floor), and < INT32_MIN exactly when x < INT32_MIN >> bits
 *  (INT32_MIN / 2^bits is an integer), so no int64 product is needed. */
static int32_t em_nn_saturating_shift_left(int32_t x, int32_t bits)
{
    if (x > (EM_NN_INT32_MAX >> bits)) {
        return EM_NN_INT32_MAX;
    }
    if (x < (EM_NN_INT32_MIN >> bits)) {
        return EM_NN_INT32_MIN;
    }
    return (int32_t)((uint32_t)x << bits);
}

/** exp(a) for a in [-1/4, 0), Q0.31 in and out. */
static int32_t em_nn_exp_quarter(int32_t a)
{
    const int32_t constant_term = 1895147668; /* exp(-1/8) */
    const int32_t one_third = 715827883;
    const int32_t x = a + (1 << 28);
    const int32_t x2 = em_nn_srdhm(x, x);
    const int32_t x3 = em_nn_srdhm(x2, x);
    const int32_t x4 = em_nn_srdhm(x2, x2);
    const int32_t x4_over_4 = em_nn_rounding_divide_by_pot(x4, 2);
    const int32_t tail = em_nn_rounding_divide_by_pot(em_nn_srdhm(x4_over_4 + x3, one_third) + x2, 1);
    return constant_term + em_nn_srdhm(constant_term, x + tail);
}

/** exp(a) for a <= 0 in Q5.26, as Q0.31. */
static int32_t em_nn_exp_on_negative_values(int32_t a)
{
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int32_t fractional_bits = 31 - EM_SOFTMAX_DIFF_INTEGER_BITS;
    const int32_t quarter = 1 << (fractional_bits - 2);
    const int32_t a_mod_quarter_minus_quarter = (a & (quarter - 1)) - quarter;
    int32_t result = em_nn_exp_quarter(em_nn_saturating_shift_left(a_mod_quarter_minus_quarter,
                                                                   EM_SOFTMAX_DIFF_INTEGER_BITS));
    const int32_t remainder = a_mod_quarter_minus_quarter - a;
    for (int32_t k = 0; k < 7; k++) { /* exponents -2..4: all below the 5 integer bits */
        if ((remainder >> (fractional_bits - 2 + k)) & 1) {
            result = em_nn_srdhm(result, barrel[k]);
        }
    }
    return a == 0 ? EM_NN_INT32_MAX : result;
}

/** 1 / (1 + a) for a in [0, 1), Q0.31 in and out. */
static int32_t em_nn_one_over_one_plus_x(int32_t a)
{
    /* gemmlowp's RoundingHalfSum(a, INT32_MAX) = (a + INT32_MAX + 1) / 2 for a >= 0 (the sum is
     * then positive): in 32 unsigned bits, a + 2^31 < 2^32. */
    const int32_t half_denominator = (int32_t)(((uint32_t)a + 0x80000000u) >> 1);
    int32_t x = 1515870810 + em_nn_srdhm(half_denominator, -1010580540);
    for (int32_t i = 0; i < 3; i++) {
        const int32_t one_minus = (1 << 29) - em_nn_srdhm(half_denominator, x);
        x = x + em_nn_saturating_shift_left(em_nn_srdhm(x, one_minus), 2);
    }
    return em_nn_saturating_shift_left(x, 1);
}

static int32_t em_nn_leading_zeros(uint32_t x)
{
    return x == 0u ? 32 : __builtin_clz(x);
}

/** exp(beta · scale · diff) for one diff >= diff_min, Q0.31 (TFLite's scaling of the difference,
 *  then exp). Not inlined: the sum pass and the output pass share it. */
static __attribute__((noinline)) int32_t em_nn_softmax_exp(int32_t diff, const em_softmax_params *p)
{
    const int32_t scaled = em_nn_srdhm(em_nn_saturating_shift_left(diff, p->input_left_shift), p->input_multiplier);
    return em_nn_exp_on_negative_values(scaled);
}

/* em_softmax_s8_params_valid(): em_softmax_validate_s8.c */

/** The scratch's table of exponentials, exps[d] = exp of the difference -d for d 0..255 that
 *  diff_min keeps (the others are never read), or NULL when the scratch cannot hold it or the
 *  rows are too few for it to pay (em_softmax_s8_get_buffer_size()). */
static int32_t *em_nn_softmax_table(const em_nn_context *ctx, const em_softmax_params *p, int32_t rows,
                                    int32_t row_size)
{
    const int32_t bytes = em_softmax_s8_get_buffer_size(rows, row_size);
    if (ctx == NULL || ctx->buf == NULL || bytes == 0 || ctx->size < bytes) {
        return NULL;
    }
    int32_t *exps = (int32_t *)ctx->buf;
    const int32_t last = p->diff_min < -255 ? 255 : -p->diff_min; /* diff_min <= 0 */
    for (int32_t d = 0; d <= last; d++) {
        exps[d] = em_nn_softmax_exp(-d, p);
    }
    return exps;
}

/** Position i of a row takes part: i < limit, and where the row has a mask, its value is 0. */
static inline bool em_nn_softmax_kept(const int8_t *mask_row, int32_t limit, int32_t i)
{
    return i < limit && (mask_row == NULL || mask_row[i] == 0);
}

/** One row of em_softmax_masked_s8(): positions at or past `limit` and those `mask_row` (may be
 *  NULL) marks are left out. Inlined into both callers: without a mask (limit = row_size, no
 *  mask row) the compiler drops the tests. */
static inline __attribute__((always_inline)) void em_nn_softmax_row(const em_softmax_params *p, const int32_t *exps,
                                                                    const int8_t *in, int8_t *out, int32_t row_size,
                                                                    const int8_t *mask_row, int32_t limit)
{
    int32_t max = -128;
    for (int32_t i = 0; i < row_size; i++) {
        max = em_nn_softmax_kept(mask_row, limit, i) && in[i] > max ? in[i] : max;
    }
    int32_t sum = 0; /* Q12.19: at most row_size · 2^19, row_size < 2^12 keeps it in range */
    for (int32_t i = 0; i < row_size; i++) {
        const int32_t diff = in[i] - max;
        if (diff >= p->diff_min && em_nn_softmax_kept(mask_row, limit, i)) {
            sum += em_nn_rounding_divide_by_pot(exps != NULL ? exps[-diff] : em_nn_softmax_exp(diff, p),
                                                EM_SOFTMAX_ACCUMULATION_INTEGER_BITS);
        }
    }
    const int32_t headroom = em_nn_leading_zeros((uint32_t)sum);
    const int32_t bits_over_unit = EM_SOFTMAX_ACCUMULATION_INTEGER_BITS - headroom;
    const int32_t exponent = bits_over_unit + 31 - 8;
    if (sum == 0 || exponent > 31) {
        /* a row masked whole (no exponential at all), or a sum of 512 or more: the SRDHM (< 2^31)
         * over 2^32 or more rounds to 0 for every value, as the reference's 64-bit shift gives,
         * where a 32-bit shift that far is undefined */
        for (int32_t i = 0; i < row_size; i++) {
            out[i] = -128;
        }
        return;
    }
    const int32_t shifted = (int32_t)(((uint32_t)sum << headroom) - ((uint32_t)1 << 31));
    const int32_t reciprocal = em_nn_one_over_one_plus_x(shifted);
    for (int32_t i = 0; i < row_size; i++) {
        const int32_t diff = in[i] - max;
        int32_t value = -128;
        if (diff >= p->diff_min && em_nn_softmax_kept(mask_row, limit, i)) {
            const int32_t e = exps != NULL ? exps[-diff] : em_nn_softmax_exp(diff, p);
            value = em_nn_rounding_divide_by_pot(em_nn_srdhm(reciprocal, e), exponent) - 128;
            value = value < -128 ? -128 : (value > 127 ? 127 : value);
        }
        out[i] = (int8_t)value;
    }
}

em_nn_status em_softmax_s8(const em_nn_context *ctx, const em_softmax_params *params, int32_t rows,
                           int32_t row_size, const int8_t *input, int8_t *output)
{
    if (!em_softmax_s8_params_valid(params, row_size) || rows < 0
        || (rows > 0 && (input == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_softmax_params p = *params; /* not re-read after each int8 store (which may alias) */
    const int32_t *exps = em_nn_softmax_table(ctx, &p, rows, row_size);
    for (int32_t r = 0; r < rows; r++) {
        em_nn_softmax_row(&p, exps, input + (int64_t)r * row_size, output + (int64_t)r * row_size, row_size, NULL,
                          row_size);
    }
    return EM_NN_OK;
}

em_nn_status em_softmax_masked_s8(const em_nn_context *ctx, const em_softmax_params *params,
                                  const em_softmax_mask *mask, int32_t rows, int32_t row_size, const int8_t *input,
                                  int8_t *output)
{
    if (!em_softmax_s8_params_valid(params, row_size) || rows < 0 || mask == NULL || mask->mask_rows < 1
        || (mask->causal != 0 && mask->causal != 1) || (mask->causal == 0 && mask->mask == NULL)
        || (rows > 0 && (input == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_softmax_params p = *params;
    const em_softmax_mask m = *mask;
    const int32_t *exps = em_nn_softmax_table(ctx, &p, rows, row_size);
    int32_t query = 0; /* r mod mask_rows */
    for (int32_t r = 0; r < rows; r++) {
        /* causal: positions 0..query take part (limit query + 1 <= mask_rows, at most row_size) */
        const int32_t limit = m.causal ? (query < row_size ? query + 1 : row_size) : row_size;
        const int8_t *mask_row = m.causal ? NULL : m.mask + (int64_t)query * row_size;
        em_nn_softmax_row(&p, exps, input + (int64_t)r * row_size, output + (int64_t)r * row_size, row_size,
                          mask_row, limit);
        query = query + 1 == m.mask_rows ? 0 : query + 1;
    }
    return EM_NN_OK;
}
