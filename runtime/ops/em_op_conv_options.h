/**
 * @file em_op_conv_options.h
 * @brief Operands, Conv2DOptions, kernel dims and load-time check as CONV_2D and
 *        DEPTHWISE_CONV_2D share them (em_op_conv_options.c).
 */
#ifndef EM_OP_CONV_OPTIONS_H
#define EM_OP_CONV_OPTIONS_H

#include <stdbool.h>

#include "em_nn_types.h"
#include "em_op_support.h"

enum { EM_CONV_INPUT, EM_CONV_WEIGHTS, EM_CONV_BIAS, EM_CONV_N_INPUTS };

/** A CONV_2D or DEPTHWISE_CONV_2D operator's operands and options. */
typedef struct {
    em_tensor in[EM_CONV_N_INPUTS]; /**< input, weights, bias */
    em_tensor output, scratch;      /**< scratch.data NULL, size 0 when the operator has none */
    em_conv_params params;
    em_fb_vector multiplier, shift; /**< per-channel requantization */
    uint32_t paths;                 /**< the kernel variants the program chose (em_nn_variants.h) */
} em_conv_args;

/**
 * Reads the operator's operands (em_op_operands_scratch) and Conv2DOptions (checked in check(),
 * trusted in eval()) into @p a. @return EM_OK, EM_ERR_BAD_OPERATOR or (check() only) a reader
 * status. One function in em_op_conv_options.c for both adapters: linked once when either is.
 */
em_status em_conv_decode(const em_op_context *ctx, em_conv_args *a);

/**
 * Kernel dims from verified shapes: weights [C_OUT, KH, KW, C_IN / groups] (CONV_2D) or, when
 * @p depthwise, [KH, KW, C·M] (DEPTHWISE_CONV_2D).
 */
em_conv_dims em_conv_dims_of(const em_conv_args *a, bool depthwise);

/**
 * check() of both adapters: everything em_conv2d_s8() / em_depthwise_conv2d_s8() rely on, so that
 * a malformed operator is EM_ERR_BAD_OPERATOR at load and eval() calls the kernel without further
 * checks. Operand dtypes and ranks (weights INT8, or INT4 with the scratch holding them unpacked:
 * em_op_int4.h); the kernels' contract (em_conv_s8_validate); then what only
 * the operands tell: CONV_2D's depth_multiplier 1 and weights' C_IN / groups, DEPTHWISE_CONV_2D's
 * groups 1, bias and output shapes, every tensor below 2 GiB (the kernels index with int32);
 * last, the kernel variants the program chose, asked of em_conv2d_s8_paths_ok() /
 * em_depthwise_conv2d_s8_paths_ok() for the kernel's part of the scratch (after int4 weights):
 * EM_ERR_VARIANT_NOT_LINKED for one this firmware left out.
 * One function for both: linked once when either adapter is.
 */
em_status em_conv_check(const em_op_context *ctx, bool depthwise);

#endif /* EM_OP_CONV_OPTIONS_H */
