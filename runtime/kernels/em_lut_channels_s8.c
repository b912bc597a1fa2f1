/**
 * @file em_lut_channels_s8.c
 * @brief int8 table lookup with one table per channel, exactly compiler/reference.py:lut_s8 with a
 *        [C, 256] table.
 *
 * The input is [outer, channels, inner]; each run of @p inner elements of one channel maps
 * through that channel's row. Every path reads an element (in steps of at most 16) before it
 * writes it, in increasing order, so the output may start at or below the input.
 *
 * MVE: inner >= 16: em_lut_s8()'s 16-lane byte gather over each run, its row as the table.
 * inner == 1 (the channel is the last axis, e.g. NHWC): 8 channels a step, each lane gathering
 * from its own row: VLDRB.U16 with offsets lane · 256 + x + 128 from the row of the step's first
 * channel (x + 128 is x's bit pattern with the sign bit flipped, so one EOR makes the offsets).
 * Tails predicated. Other shapes, and the other tiers: scalar.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#define EM_LUT_ROW 256 /* entries of one channel's table */
#define EM_NN_LUT_MVE_RUN_MIN 16 /* MVE: runs of one channel this long take em_lut_s8's gather */

#if EM_NN_TIER_MVE
/** [rows, channels] through [channels, 256]: eight channels a step. */
static void em_nn_lut_channels_last_mve(const int8_t *input, int32_t rows, int32_t channels, const int8_t *table,
                                        int8_t *output)
{
    /* lane l reads row l of the step: offset l · 256 + (x ^ 0x80), x zero-extended */
    const uint16x8_t lane_rows = vorrq_u16(vshlq_n_u16(vidupq_n_u16(0u, 1), 8), vdupq_n_u16(0x80u));
    for (int32_t r = 0; r < rows; r++) {
        for (int32_t c = 0; c < channels; c += 8) {
            const mve_pred16_t lanes = vctp16q((uint32_t)(channels - c));
            const uint8_t *base = (const uint8_t *)table + (uint32_t)c * EM_LUT_ROW;
            const uint16x8_t x = vldrbq_z_u16((const uint8_t *)input + c, lanes);
            const uint16x8_t y = vldrbq_gather_offset_z_u16(base, veorq_u16(x, lane_rows), lanes);
            vstrbq_p_u16((uint8_t *)output + c, y, lanes);
        }
        input += channels;
        output += channels;
    }
}
#endif

em_status em_lut_channels_s8(const int8_t *input, int32_t outer, int32_t channels, int32_t inner,
                             const int8_t *table, int8_t *output)
{
    if (outer < 0 || inner < 0 || channels < 1 || channels > EM_LUT_MAX_CHANNELS) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const int64_t rows = (int64_t)outer * channels; /* < 2^54: no overflow */
    if (rows > INT32_MAX || rows * inner > INT32_MAX) {
        return EM_ERR_BAD_ARGUMENT;
    }
    if (rows * inner == 0) {
        return EM_OK;
    }
    if (input == NULL || table == NULL || output == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
#if EM_NN_TIER_MVE
    if (inner == 1) {
        em_nn_lut_channels_last_mve(input, outer, channels, table, output);
        return EM_OK;
    }
    if (inner >= EM_NN_LUT_MVE_RUN_MIN) {
        for (int32_t o = 0; o < outer; o++) {
            const int8_t *row = table;
            for (int32_t c = 0; c < channels; c++, row += EM_LUT_ROW) {
                (void)em_lut_s8(input, inner, row, output); /* EM_OK: inner > 0, no NULL */
                input += inner;
                output += inner;
            }
        }
        return EM_OK;
    }
#endif
    for (int32_t o = 0; o < outer; o++) {
        const int8_t *row = table;
        for (int32_t c = 0; c < channels; c++, row += EM_LUT_ROW) {
            for (int32_t i = 0; i < inner; i++) {
                *output++ = row[(int32_t)*input++ + 128];
            }
        }
    }
    return EM_OK;
}
