/**
 * @file em_lut_s16.c
 * @brief int16 interpolated table lookup (A16W8 activations), exactly compiler/reference.py:lut_s16.
 *
 * The difference of two neighbouring entries (|d| <= 65535) times the position between them
 * (< 2^7) fits int32; the rounded, arithmetically shifted step lies between the two entries, so
 * the result is an int16 without a clamp.
 * MVE: four elements a step in 32-bit lanes: widening load, the index and the fraction, two
 * halfword gathers (T[i], T[i + 1]), VMUL, a rounding add and VSHL by -k, a narrowing store;
 * the last partial step predicated.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/** @p n elements of one channel through its table @p row (2^(16 - k) + 1 entries). */
static void em_nn_lut_run_s16(const int16_t *input, int32_t n, const int16_t *row, int32_t k, int16_t *output)
{
    const int32_t mask = (1 << k) - 1, half = 1 << (k - 1);
#if EM_NN_TIER_MVE
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const int32x4_t u = vaddq_n_s32(vldrhq_z_s32(input + i, p), 32768);
        const uint32x4_t at = vreinterpretq_u32_s32(vshlq_r_s32(u, -k));
        const int32x4_t lo = vldrhq_gather_shifted_offset_z_s32(row, at, p);
        const int32x4_t hi = vldrhq_gather_shifted_offset_z_s32(row + 1, at, p);
        const int32x4_t step = vmulq_s32(vsubq_s32(hi, lo), vandq_s32(u, vdupq_n_s32(mask)));
        vstrhq_p_s32(output + i, vaddq_s32(lo, vshlq_r_s32(vaddq_n_s32(step, half), -k)), p);
    }
#else
    for (int32_t i = 0; i < n; i++) {
        const int32_t u = (int32_t)input[i] + 32768, at = u >> k;
        const int32_t lo = row[at], hi = row[at + 1];
        output[i] = (int16_t)(lo + (((hi - lo) * (u & mask) + half) >> k));
    }
#endif
}

em_nn_status em_lut_s16(const int16_t *input, int32_t outer, int32_t channels, int32_t inner,
                        const int16_t *table, int32_t step_log2, int16_t *output)
{
    if (outer < 0 || channels < 1 || inner < 0 || step_log2 < EM_LUT_S16_MIN_STEP_LOG2
        || step_log2 > EM_LUT_S16_MAX_STEP_LOG2 || (int64_t)outer * channels * inner > INT32_MAX) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if ((int64_t)outer * inner > 0 && (input == NULL || table == NULL || output == NULL)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t entries = (1 << (16 - step_log2)) + 1;
    for (int32_t o = 0; o < outer; o++) {
        for (int32_t c = 0; c < channels; c++) {
            const int32_t at = (o * channels + c) * inner;
            em_nn_lut_run_s16(input + at, inner, table + c * entries, step_log2, output + at);
        }
    }
    return EM_NN_OK;
}
