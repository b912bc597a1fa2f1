/**
 * @file em_op_conv_options.h
 * @brief Operands and Conv2DOptions as CONV_2D and DEPTHWISE_CONV_2D read them (both then check
 *        the kernels' contract with em_conv_s8_validate).
 */
#ifndef EM_OP_CONV_OPTIONS_H
#define EM_OP_CONV_OPTIONS_H

#include "em_nn_types.h"
#include "em_op_support.h"

enum { EM_CONV_INPUT, EM_CONV_WEIGHTS, EM_CONV_BIAS, EM_CONV_N_INPUTS };

/** A CONV_2D or DEPTHWISE_CONV_2D operator's operands and options. */
typedef struct {
    em_tensor in[EM_CONV_N_INPUTS]; /**< input, weights, bias */
    em_tensor output, scratch;      /**< scratch.data NULL, size 0 when the operator has none */
    em_conv_params params;
    em_fb_vector multiplier, shift; /**< per-channel requantization */
} em_conv_args;

/**
 * Reads the operator's operands (em_op_operands_scratch) and Conv2DOptions (checked in check(),
 * trusted in eval()) into @p a. @return EM_OK, EM_ERR_BAD_OPERATOR or (check() only) a reader
 * status. One function in em_op_conv_options.c for both adapters: linked once when either is.
 */
em_status em_conv_decode(const em_op_context *ctx, em_conv_args *a);

#endif /* EM_OP_CONV_OPTIONS_H */
