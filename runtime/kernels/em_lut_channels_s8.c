/**
 * @file em_lut_channels_s8.c
 * @brief int8 table lookup with one table per channel, exactly compiler/reference.py:lut_s8 with a
 *        [C, 256] table.
 *
 * The input is [outer, channels, inner]; each run of @p inner elements of one channel maps
 * through that channel's row. Every path reads an element (in steps of at most 16) before it
 * writes it, in increasing order, so the output may start at or below the input.
 *
 * MVE, with whole steps unpredicated and one predicated tail:
 * - inner >= EM_NN_LUT_MVE_RUN_MIN: each run through its row sixteen elements a step, as
 *   em_lut_s8() does (VLDRB.U8 gather, offsets x + 128: x's bit pattern with the sign flipped);
 * - inner == 1 (the channel is the last axis, e.g. NHWC): eight elements a step over the whole
 *   input, each lane gathering from its own channel's row with 16-bit offsets (VLDRB.U16:
 *   channel · 256 + x + 128), so at most 256 channels from one table base: wider rows go in
 *   blocks of 256 channels.
 * Other shapes, and the other tiers: scalar.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#define EM_LUT_ROW 256 /* entries of one channel's table */
#define EM_NN_LUT_MVE_RUN_MIN 16 /* MVE: runs of one channel this long take the 16-lane gather */

#if EM_NN_TIER_MVE
#define EM_NN_LUT_LANE_ROWS 256 /* channels a u16 offset reaches: 256 rows of 256 */

/**
 * @p count elements of channels 0, 1, .., channels − 1, 0, 1, .. (the channel last, rows one
 * after another) through [channels, 256], channels 1..EM_NN_LUT_LANE_ROWS: eight lanes a step,
 * lane l gathering entry chan[l] · 256 + x + 128 (VSLI puts the channel above x ^ 0x80), chan
 * stepped by 8 mod channels (one subtraction of channels at most: both terms are below it, taken
 * by an unsigned minimum, no predicate). Whole steps unpredicated, then one predicated tail.
 */
static void em_nn_lut_channels_last_mve(const int8_t *input, int32_t count, int32_t channels, const int8_t *table,
                                        int8_t *output)
{
    const uint8_t *in = (const uint8_t *)input, *base = (const uint8_t *)table;
    uint8_t *out = (uint8_t *)output;
    const uint16_t n = (uint16_t)channels;
    uint16_t first[8], c = 0; /* lane l: channel l mod n; after the loop c = 8 mod n, the step */
    for (int32_t l = 0; l < 8; l++) {
        first[l] = c;
        c = c + 1u == n ? 0u : (uint16_t)(c + 1u);
    }
    uint16x8_t chan = vld1q_u16(first);
    const uint16x8_t sign = vdupq_n_u16(0x80u);
    int32_t i = 0;
    for (; i <= count - 8; i += 8) {
        const uint16x8_t offsets = vsliq_n_u16(veorq_u16(vldrbq_u16(in + i), sign), chan, 8);
        vstrbq_u16(out + i, vldrbq_gather_offset_u16(base, offsets));
        chan = vaddq_n_u16(chan, c);
        chan = vminq_u16(chan, vsubq_n_u16(chan, n)); /* chan − n where chan >= n, else it wraps above */
    }
    if (i < count) {
        const mve_pred16_t lanes = vctp16q((uint32_t)(count - i));
        const uint16x8_t offsets = vsliq_n_u16(veorq_u16(vldrbq_z_u16(in + i, lanes), sign), chan, 8);
        vstrbq_p_u16(out + i, vldrbq_gather_offset_z_u16(base, offsets, lanes), lanes);
    }
}

/** @p count (>= 1) elements of one channel through its @p row: sixteen a step (VLDRB.U8 gather,
 *  offsets x ^ 0x80), whole steps unpredicated, then one predicated tail. */
static void em_nn_lut_run_mve(const int8_t *input, int32_t count, const int8_t *row, int8_t *output)
{
    const uint8_t *in = (const uint8_t *)input, *base = (const uint8_t *)row;
    uint8_t *out = (uint8_t *)output;
    const uint8x16_t sign = vdupq_n_u8(0x80u);
    int32_t i = 0;
    for (; i <= count - 16; i += 16) {
        vstrbq_u8(out + i, vldrbq_gather_offset_u8(base, veorq_u8(vldrbq_u8(in + i), sign)));
    }
    if (i < count) {
        const mve_pred16_t lanes = vctp8q((uint32_t)(count - i));
        vstrbq_p_u8(out + i, vldrbq_gather_offset_z_u8(base, veorq_u8(vldrbq_z_u8(in + i, lanes), sign), lanes), lanes);
    }
}
#endif

em_nn_status em_lut_channels_s8(const int8_t *input, int32_t outer, int32_t channels, int32_t inner,
                                const int8_t *table, int8_t *output)
{
    if (outer < 0 || inner < 0 || channels < 1 || channels > EM_LUT_MAX_CHANNELS) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int64_t rows = (int64_t)outer * channels; /* < 2^54: no overflow */
    if (rows > INT32_MAX || rows * inner > INT32_MAX) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (rows * inner == 0) {
        return EM_NN_OK;
    }
    if (input == NULL || table == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
#if EM_NN_TIER_MVE
    if (inner == 1 && channels <= EM_NN_LUT_LANE_ROWS) {
        em_nn_lut_channels_last_mve(input, outer * channels, channels, table, output);
        return EM_NN_OK;
    }
    if (inner == 1) { /* each row in blocks of 256 channels, each block channel 0.. of its rows */
        for (int32_t o = 0; o < outer; o++) {
            for (int32_t c = 0; c < channels; c += EM_NN_LUT_LANE_ROWS) {
                const int32_t n = channels - c < EM_NN_LUT_LANE_ROWS ? channels - c : EM_NN_LUT_LANE_ROWS;
                em_nn_lut_channels_last_mve(input + c, n, n, table + (uint32_t)c * EM_LUT_ROW, output + c);
            }
            input += channels;
            output += channels;
        }
        return EM_NN_OK;
    }
    if (inner >= EM_NN_LUT_MVE_RUN_MIN) {
        for (int32_t o = 0; o < outer; o++) {
            const int8_t *row = table;
            for (int32_t c = 0; c < channels; c++, row += EM_LUT_ROW) {
                em_nn_lut_run_mve(input, inner, row, output);
                input += inner;
                output += inner;
            }
        }
        return EM_NN_OK;
    }
#endif
    if (inner == 1) { /* one element per channel: no inner loop */
        for (int32_t o = 0; o < outer; o++) {
            const int8_t *row = table, *const end = input + channels;
            while (input != end) {
                *output++ = row[(int32_t)*input++ + 128];
                row += EM_LUT_ROW;
            }
        }
        return EM_NN_OK;
    }
    for (int32_t o = 0; o < outer; o++) {
        const int8_t *row = table;
        for (int32_t c = 0; c < channels; c++, row += EM_LUT_ROW) {
            for (int32_t i = 0; i < inner; i++) {
                *output++ = row[(int32_t)*input++ + 128];
            }
        }
    }
    return EM_NN_OK;
}
