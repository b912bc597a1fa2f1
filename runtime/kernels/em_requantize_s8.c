/**
 * @file em_requantize_s8.c
 * @brief Requantization onto another scale and zero point, exactly
 *        compiler/reference.py:requantize_s8 (em_nn_requantize: single rounding): int8 -> int8,
 *        and A16W8's boundaries int8 -> int16, int16 -> int8, int16 -> int16, one arithmetic
 *        for all four (each public function gives the body its element widths as constants).
 *
 * |x + input_offset| <= 65535 for every form (int16 inputs: offset 0 in A16W8), so the centred
 * value is an int32 em_nn_requantize() takes as it is; its result (|r| <= 2^30) plus an output
 * offset of int16 stays in int32 before the clamp.
 * MVE: four lanes a step through em_nn_requantize_mve (bit-exact with the scalar helper), tail
 * predicated; widening loads (VLDRB.S32 / VLDRH.S32) and narrowing stores (VSTRB.32 / VSTRH.32);
 * int8 27 -> about 4 instructions per element on Cortex-M55 (tools/bench_data_movement.py).
 * The arithmetic is 32-bit per lane, so 8 int16 lanes would only split into these 4 again.
 * Other tiers: scalar em_nn_requantize (SMMUL on DSP: the 32-bit product has no SIMD form).
 */
#include "em_nn_data_movement.h"
#include "em_nn_support.h"

/** Whether @p p is in the kernels' contract (the shift and multiplier ranges em_nn_requantize takes). */
static inline bool em_nn_requantize_params_ok(const em_requantize_params *p)
{
    return p->output_multiplier >= 0 && p->output_shift >= -31 && p->output_shift <= 30;
}

/** out[i] = clamp(requantize(in[i] + input_offset) + output_offset) for int8 or (@p in_wide /
 *  @p out_wide, constants in every caller) int16 elements. In increasing order, each element
 *  (each 4-lane step) read before it is written: in place where the widths are equal. */
static inline __attribute__((always_inline)) void em_nn_requantize_run(const void *input, int32_t count,
                                                                       const em_requantize_params *params,
                                                                       void *output, bool in_wide, bool out_wide)
{
    const em_requantize_params p = *params;
    const int32_t lo = out_wide ? -32768 : -128, hi = out_wide ? 32767 : 127;
    int32_t i = 0;
#if EM_NN_TIER_MVE
    const int32x4_t multiplier = vdupq_n_s32(p.output_multiplier), shift = vdupq_n_s32(p.output_shift);
    const int32x4_t low = vdupq_n_s32(lo), high = vdupq_n_s32(hi);
    for (; i < count; i += 4) {
        const mve_pred16_t lanes = vctp32q((uint32_t)(count - i));
        const int32x4_t codes = in_wide ? vldrhq_z_s32((const int16_t *)input + i, lanes)
                                        : vldrbq_z_s32((const int8_t *)input + i, lanes);
        const int32x4_t x = vaddq_n_s32(codes, p.input_offset);
        const int32x4_t y = vaddq_n_s32(em_nn_requantize_mve(x, multiplier, shift), p.output_offset);
        const int32x4_t clamped = vmaxq_s32(vminq_s32(y, high), low);
        if (out_wide) {
            vstrhq_p_s32((int16_t *)output + i, clamped, lanes);
        } else {
            vstrbq_p_s32((int8_t *)output + i, clamped, lanes);
        }
    }
#endif
    for (; i < count; i++) {
        const int32_t code = in_wide ? ((const int16_t *)input)[i] : ((const int8_t *)input)[i];
        int32_t value = em_nn_requantize(code + p.input_offset, p.output_multiplier, p.output_shift) + p.output_offset;
        value = value < lo ? lo : (value > hi ? hi : value);
        if (out_wide) {
            ((int16_t *)output)[i] = (int16_t)value;
        } else {
            ((int8_t *)output)[i] = (int8_t)value;
        }
    }
}

em_nn_status em_requantize_s8(const int8_t *input, int32_t count, const em_requantize_params *params,
                              int8_t *output)
{
    if (params == NULL || count < 0 || (count > 0 && (input == NULL || output == NULL))
        || !em_nn_requantize_params_ok(params)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_requantize_run(input, count, params, output, false, false);
    return EM_NN_OK;
}

/** The A16W8 forms' common check: the int8 side's offset in int8's range (as em_requantize_s8),
 *  the int16 side's in int16's. */
static inline bool em_nn_requantize_s16_ok(const void *input, int32_t count, const em_requantize_params *p,
                                           const void *output, bool in_wide, bool out_wide)
{
    const int32_t in_low = in_wide ? -32767 : -127, in_high = in_wide ? 32768 : 128;
    const int32_t out_low = out_wide ? -32768 : -128, out_high = out_wide ? 32767 : 127;
    return p != NULL && count >= 0 && (count == 0 || (input != NULL && output != NULL))
           && em_nn_requantize_params_ok(p) && p->input_offset >= in_low && p->input_offset <= in_high
           && p->output_offset >= out_low && p->output_offset <= out_high;
}

em_nn_status em_requantize_s8_s16(const int8_t *input, int32_t count, const em_requantize_params *params,
                                  int16_t *output)
{
    if (!em_nn_requantize_s16_ok(input, count, params, output, false, true)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_requantize_run(input, count, params, output, false, true);
    return EM_NN_OK;
}

em_nn_status em_requantize_s16_s8(const int16_t *input, int32_t count, const em_requantize_params *params,
                                  int8_t *output)
{
    if (!em_nn_requantize_s16_ok(input, count, params, output, true, false)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_requantize_run(input, count, params, output, true, false);
    return EM_NN_OK;
}

em_nn_status em_requantize_s16(const int16_t *input, int32_t count, const em_requantize_params *params,
                               int16_t *output)
{
    if (!em_nn_requantize_s16_ok(input, count, params, output, true, true)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_requantize_run(input, count, params, output, true, true);
    return EM_NN_OK;
}
