/**
 * @file em_op_conv_options.c
 * @brief em_conv_decode(), em_conv_dims_of() and em_conv_check(): the operand and Conv2DOptions
 *        reader and the load-time check CONV_2D and DEPTHWISE_CONV_2D share (em_op_conv_options.h).
 */
#include "em_op_conv_options.h"

#include "em_nn_functions.h" /* em_conv_s8_validate, the *_paths_ok() */
#include "em_op_int4.h"

em_status em_conv_decode(const em_op_context *ctx, em_conv_args *a)
{
    /* Slots STRIDE_H (0) .. ACTIVATION_MAX (13) are em_conv_params' int32 fields in order: one
     * shared loop over a table of defaults, not 14 inlined field reads (about 900 bytes per op). */
    _Static_assert(sizeof(em_conv_params) == 14u * sizeof(int32_t) && EM_CONV_2D_OPTIONS_STRIDE_H == 0
                       && EM_CONV_2D_OPTIONS_ACTIVATION_MAX == 13,
                   "em_conv_params must be the options' slots 0..13 in order");
    static const int8_t defaults[14] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, -128, 127};
    em_status s = em_op_operands_scratch(ctx, a->in, EM_CONV_N_INPUTS, &a->output, &a->scratch);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 14u, (int32_t *)(void *)&a->params);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER, &a->multiplier);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_SHIFT, &a->shift);
    if (s == EM_OK) s = em_op_option_i32s(ctx, EM_CONV_2D_OPTIONS_PATHS, defaults + 4 /* a 0 */, 1u,
                                            (int32_t *)(void *)&a->paths);
    return s;
}

em_conv_dims em_conv_dims_of(const em_conv_args *a, bool depthwise)
{
    const em_tensor *x = &a->in[EM_CONV_INPUT], *w = &a->in[EM_CONV_WEIGHTS];
    const int32_t first = depthwise ? 0 : 1; /* KH's dimension in the weights */
    const em_conv_dims d = {em_op_dim(x, 0), em_op_dim(x, 1), em_op_dim(x, 2), em_op_dim(x, 3),
                            em_op_dim(w, first), em_op_dim(w, first + 1), em_op_dim(&a->output, 1),
                            em_op_dim(&a->output, 2), em_op_dim(w, depthwise ? 2 : 0)};
    return d;
}

/** check() of an int16 (A16W8) operator: input and output INT16 rank 4 (zero point 0 in the
 *  options, checked by em_conv_s16_validate), weights INT8 (int4 with int16 activations is not a
 *  kernel Ember has: EM_ERR_BAD_OPERATOR, as the compiler refuses it), bias INT32, paths 0, the
 *  shapes as for int8, then the kernel's contract, whose first answer is whether this firmware
 *  links the kernel (EM_ERR_VARIANT_NOT_LINKED where not). The scratch, if any, is the column
 *  em_conv2d_s16() packs: any size (less than a column reads taps in place). */
static em_status em_conv_check_s16(const em_op_context *ctx, const em_conv_args *a, bool depthwise)
{
    const em_tensor *weights = &a->in[EM_CONV_WEIGHTS];
    if (!em_op_is(&a->in[EM_CONV_INPUT], EM_DTYPE_INT16, 4) || !em_op_is(weights, EM_DTYPE_INT8, depthwise ? 3 : 4)
        || !em_op_is(&a->in[EM_CONV_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a->output, EM_DTYPE_INT16, 4)
        || a->paths != 0u) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_conv_dims d = em_conv_dims_of(a, depthwise);
    const em_conv_params *p = &a->params;
    if (a->multiplier.len != (uint32_t)d.output_c || a->shift.len != (uint32_t)d.output_c) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a->multiplier), em_op_vector_i32(ctx, &a->shift)};
    const em_nn_status s = em_conv_s16_validate(p, &quant, &d, depthwise); /* first: groups >= 1 below */
    if (s != EM_NN_OK) {
        return em_op_paths_status(s);
    }
    if ((depthwise ? p->groups != 1 : (p->depth_multiplier != 1 || em_op_dim(weights, 3) != d.input_c / p->groups))
        || em_op_dim(&a->in[EM_CONV_BIAS], 0) != d.output_c || em_op_dim(&a->output, 0) != d.batches
        || em_op_dim(&a->output, 3) != d.output_c) {
        return EM_ERR_BAD_OPERATOR;
    }
    if (a->in[EM_CONV_INPUT].size > INT32_MAX || weights->size > INT32_MAX || a->output.size > INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

em_status em_conv_check(const em_op_context *ctx, bool depthwise)
{
    em_conv_args a;
    const em_status s = em_conv_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *weights = &a.in[EM_CONV_WEIGHTS];
    if (a.in[EM_CONV_INPUT].dtype == EM_DTYPE_INT16) {
        return em_conv_check_s16(ctx, &a, depthwise);
    }
    uint32_t kernel_scratch; /* the scratch after int4 weights unpacked (em_op_int4.h) */
    if (!em_op_is(&a.in[EM_CONV_INPUT], EM_DTYPE_INT8, 4)
        || !em_op_weights_fit(weights, depthwise ? 3 : 4, &a.scratch, &kernel_scratch)
        || !em_op_is(&a.in[EM_CONV_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a.output, EM_DTYPE_INT8, 4)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_conv_dims d = em_conv_dims_of(&a, depthwise);
    const em_conv_params *p = &a.params;
    if (!em_op_per_channel_quant_ok(ctx, &a.multiplier, &a.shift, d.output_c)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier), em_op_vector_i32(ctx, &a.shift)};
    if (em_conv_s8_validate(p, &quant, &d, depthwise) != EM_NN_OK /* first: groups >= 1 below */
        || (depthwise ? p->groups != 1
                      : (p->depth_multiplier != 1 || em_op_dim(weights, 3) != d.input_c / p->groups))
        || em_op_dim(&a.in[EM_CONV_BIAS], 0) != d.output_c || em_op_dim(&a.output, 0) != d.batches
        || em_op_dim(&a.output, 3) != d.output_c) {
        return EM_ERR_BAD_OPERATOR;
    }
    if (a.in[EM_CONV_INPUT].size > INT32_MAX || weights->size > INT32_MAX || a.output.size > INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    /* the kernel variants the program chose (em_nn_variants.h), for the scratch it planned
     * (int4 weights: what is left of it after them; never -128, so not read) */
    const em_nn_context nn = {NULL, kernel_scratch > INT32_MAX ? INT32_MAX : (int32_t)kernel_scratch, a.paths};
    return em_op_paths_status(depthwise ? em_depthwise_conv2d_s8_paths_ok(&nn, p, &quant, &d,
                                                                          (const int8_t *)weights->data,
                                                                          weights->dtype == EM_DTYPE_INT4)
                                        : em_conv2d_s8_paths_ok(&nn, p, &d));
}
