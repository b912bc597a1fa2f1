/**
 * @file em_weighted_validate_s16.c
 * @brief The argument contracts of the int16 (A16W8) weighted kernels, em_conv2d_s16(),
 *        em_depthwise_conv2d_s16() and em_fully_connected_s16(), in one place: the kernels check
 *        them at every call and the adapters' check() at load. Tier-neutral C (as every
 *        em_*_validate_*.c: the host verifier of any tier builds it).
 *
 * Each first asks whether this build links the kernel (EM_NN_S16_LINKED, em_nn_variants.h): a
 * firmware whose program has no int16 op of the kind builds it with the switch 0 and refuses an
 * int16 op with EM_NN_ERR_VARIANT_NOT_LINKED. So that the switch of a program's firmware holds
 * here, this file is compiled again with the program's em_nn_variants_selected.h
 * (site_scons/ember_build/app_build.py VARIANT_KERNEL_SOURCES), as the kernels are.
 */
#include "em_nn_functions.h"
#include "em_nn_s16.h"
#include "em_nn_variants.h"

static bool em_nn_in_s16(int32_t v)
{
    return v >= -32768 && v <= 32767;
}

/** Per-channel multipliers >= 0 and shifts -31..EM_NN_S16_MAX_SHIFT, @p n of them. */
static bool em_nn_s16_quant_ok(const em_per_channel_quant *quant, int32_t n)
{
    for (int32_t o = 0; o < n; o++) {
        if (quant->multiplier[o] < 0 || quant->shift[o] < -31 || quant->shift[o] > EM_NN_S16_MAX_SHIFT) {
            return false;
        }
    }
    return true;
}

em_nn_status em_conv_s16_validate(const em_conv_params *params, const em_per_channel_quant *quant,
                                  const em_conv_dims *dims, bool depthwise)
{
    if (depthwise ? !EM_NN_S16_LINKED(DEPTHWISE_CONV2D) : !EM_NN_S16_LINKED(CONV2D)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED;
    }
    if (params == NULL || quant == NULL || dims == NULL || quant->multiplier == NULL || quant->shift == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (params->input_zero_point != 0 || params->output_offset != 0 || !em_nn_in_s16(params->activation_min)
        || !em_nn_in_s16(params->activation_max) || params->activation_min > params->activation_max) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_conv_params geometry = *params; /* the rest of the contract is the int8 kernels' */
    geometry.activation_min = -128;
    geometry.activation_max = 127;
    const em_nn_status s = em_conv_s8_validate(&geometry, quant, dims, depthwise);
    if (s != EM_NN_OK) {
        return s;
    }
    /* the geometry is valid (kernel sizes, groups dividing C_in): K in int64 cannot overflow */
    const int64_t taps = (int64_t)dims->kernel_h * dims->kernel_w * (depthwise ? 1 : dims->input_c / params->groups);
    return taps <= EM_NN_S16_MAX_TAPS && em_nn_s16_quant_ok(quant, dims->output_c) ? EM_NN_OK : EM_NN_ERR_BAD_ARGUMENT;
}

em_nn_status em_fully_connected_s16_validate(const em_fc_params *params, const em_per_channel_quant *quant,
                                             const em_fc_dims *dims)
{
    if (!EM_NN_S16_LINKED(FULLY_CONNECTED)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED;
    }
    if (params == NULL || quant == NULL || dims == NULL || quant->multiplier == NULL || quant->shift == NULL
        || dims->batches < 1 || dims->input_features < 1 || dims->input_features > EM_NN_S16_MAX_TAPS
        || dims->output_features < 1 || params->output_offset != 0
        || params->paths != 0u || !em_nn_in_s16(params->activation_min) || !em_nn_in_s16(params->activation_max)
        || params->activation_min > params->activation_max) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_nn_s16_quant_ok(quant, dims->output_features) ? EM_NN_OK : EM_NN_ERR_BAD_ARGUMENT;
}
