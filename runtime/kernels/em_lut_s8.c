/**
 * @file em_lut_s8.c
 * @brief int8 table lookup, exactly compiler/reference.py:lut_s8.
 *
 * MVE: sixteen lanes a step with a byte gather (VLDRB.U8 with offsets); the offset of value x is
 * x + 128, i.e. its bit pattern with the sign bit flipped. Tail predicated.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

em_nn_status em_lut_s8(const int8_t *input, int32_t count, const int8_t *table, int8_t *output)
{
    if (count < 0 || (count > 0 && (input == NULL || table == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
#if EM_NN_TIER_MVE
    const uint8_t *base = (const uint8_t *)table;
    const uint8x16_t sign = vdupq_n_u8(0x80u);
    for (int32_t i = 0; i < count; i += 16) {
        const mve_pred16_t lanes = vctp8q((uint32_t)(count - i));
        const uint8x16_t x = vldrbq_z_u8((const uint8_t *)input + i, lanes);
        const uint8x16_t y = vldrbq_gather_offset_z_u8(base, veorq_u8(x, sign), lanes);
        vstrbq_p_u8((uint8_t *)output + i, y, lanes);
    }
#else
    for (int32_t i = 0; i < count; i++) {
        output[i] = table[(int32_t)input[i] + 128];
    }
#endif
    return EM_NN_OK;
}
