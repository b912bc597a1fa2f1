/**
 * @file em_op_mul.c
 * @brief MUL adapter: a, b int8 -> output int8, or all int16 (A16W8) (NumPy broadcasting as
 *        em_op_broadcast.h allows), MulOptions. check() verifies shapes and option ranges
 *        (em_mul_params): int8 input offsets -127..128 so that (a + a_offset)·(b + b_offset)
 *        fits int32, output offset and clamps int8; int16 offsets 0 and clamps int16; multiplier
 *        >= 0 and shift -31..30 (em_nn_requantize's contract). An int16 op in a firmware built
 *        without em_mul_s16 (em_nn_variants.h, MUL_S16) is EM_ERR_VARIANT_NOT_LINKED.
 */
#include "em_nn_functions.h"
#include "em_nn_variants.h"
#include "em_op_broadcast.h"
#include "em_op_support.h"

enum { EM_MUL_A, EM_MUL_B, EM_MUL_N_INPUTS };

typedef struct {
    em_tensor in[EM_MUL_N_INPUTS];
    em_tensor output;
    em_mul_params params;
} em_mul_args;

static em_status em_mul_decode(const em_op_context *ctx, em_mul_args *a)
{
    em_mul_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_MUL_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_MUL);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_INPUT1_OFFSET, 0, &p->a_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_INPUT2_OFFSET, 0, &p->b_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_OUTPUT_MULTIPLIER, 0, &p->output_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_OUTPUT_SHIFT, 0, &p->output_shift);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MUL_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    return s;
}

static em_status em_mul_check(const em_op_context *ctx)
{
    em_mul_args a;
    const em_status s = em_mul_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_broadcast_dims dims;
    const em_dtype dtype = a.output.dtype;
    if ((dtype != EM_DTYPE_INT8 && dtype != EM_DTYPE_INT16) || a.in[EM_MUL_A].dtype != dtype
        || a.in[EM_MUL_B].dtype != dtype || !em_op_broadcast_dims(&a.in[EM_MUL_A], &a.in[EM_MUL_B], &a.output, &dims)
        || !em_mul_params_valid(&a.params, dtype == EM_DTYPE_INT16)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return dtype == EM_DTYPE_INT16 && !EM_NN_S16_LINKED(MUL) ? EM_ERR_VARIANT_NOT_LINKED : EM_OK;
}

static em_status em_mul_eval(const em_op_context *ctx)
{
    em_mul_args a;
    const em_status s = em_mul_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_broadcast_dims dims;
    if (!em_op_broadcast_dims(&a.in[EM_MUL_A], &a.in[EM_MUL_B], &a.output, &dims)) {
        return EM_ERR_BAD_OPERATOR; /* never: check() verified the same shapes (dims stay set for the optimiser) */
    }
    if (a.output.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(MUL)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_mul_s16(&a.params, &dims, (const int16_t *)a.in[EM_MUL_A].data,
                                       (const int16_t *)a.in[EM_MUL_B].data, (int16_t *)a.output.data));
    }
    return em_op_status(em_mul_s8(&a.params, &dims, (const int8_t *)a.in[EM_MUL_A].data,
                                  (const int8_t *)a.in[EM_MUL_B].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_mul = {EM_OP_MUL, "mul", EM_OP_CHECK(em_mul_check), EM_OP_EVAL(em_mul_eval)};
