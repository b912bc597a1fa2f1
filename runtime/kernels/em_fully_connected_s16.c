/**
 * @file em_fully_connected_s16.c
 * @brief int16-activation (A16W8) fully connected layer: em_fully_connected_s16() and its
 *        unchecked body. Tier-neutral: each input row runs em_nn_rows_s16() over the weight rows
 *        (em_nn_rows_s16.c: Helium four rows per input load, DSP SMLALD, scalar int64).
 *
 * Built only where the program's firmware links it (EM_NN_S16_LINKED(FULLY_CONNECTED),
 * em_nn_variants.h), as em_conv2d_s16.c.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_s16.h"
#include "em_nn_variants.h"

em_nn_status em_fully_connected_s16_trusted(const em_fc_params *params, const em_per_channel_quant *quant,
                                            const em_fc_dims *dims, const int16_t *input, const int8_t *weights,
                                            const int32_t *bias, int16_t *output)
{
    if (!EM_NN_S16_LINKED(FULLY_CONNECTED)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED;
    }
    const int32_t n_in = dims->input_features, n_out = dims->output_features;
    const em_nn_s16_rows rows = {weights, bias, quant->multiplier, quant->shift, n_in, n_out,
                                 params->activation_min, params->activation_max,
                                 em_nn_s16_sum32(n_in, bias, quant->shift, n_out)};
    for (int32_t b = 0; b < dims->batches; b++) {
        em_nn_rows_s16(&rows, input + b * n_in, output + b * n_out);
    }
    return EM_NN_OK;
}

em_nn_status em_fully_connected_s16(const em_fc_params *params, const em_per_channel_quant *quant,
                                    const em_fc_dims *dims, const int16_t *input, const int8_t *weights,
                                    const int32_t *bias, int16_t *output)
{
    const em_nn_status s = em_fully_connected_s16_validate(params, quant, dims);
    if (s != EM_NN_OK) {
        return s;
    }
    if (input == NULL || weights == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_fully_connected_s16_trusted(params, quant, dims, input, weights, bias, output);
}
