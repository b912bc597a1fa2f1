/**
 * @file em_op_batch_matmul.c
 * @brief BATCH_MATMUL adapter: a [B, M, K] int8, b [B, K, N] int8 -> output [B, M, N] int8
 *        (rank 2: B = 1), BatchMatmulOptions. check() verifies shapes and option ranges
 *        (em_batch_matmul_params); the output must not overlap either operand. Bounds: offsets
 *        -127..128, multiplier >= 0, shift -31..30, all dims >= 1 and each operand within the loader's
 *        int32 bound, so every index fits int32 (the sums wrap in uint32, as the reference's).
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

enum { EM_BMM_A, EM_BMM_B, EM_BMM_N_INPUTS };

typedef struct {
    em_tensor in[EM_BMM_N_INPUTS];
    em_tensor output;
    em_batch_matmul_params params;
} em_bmm_args;

static em_status em_bmm_decode(const em_op_context *ctx, em_bmm_args *a)
{
    em_batch_matmul_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_BMM_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_BATCH_MATMUL);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_INPUT1_OFFSET, 0, &p->a_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_INPUT2_OFFSET, 0, &p->b_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_OUTPUT_MULTIPLIER, 0, &p->output_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_OUTPUT_SHIFT, 0, &p->output_shift);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_BATCH_MATMUL_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    return s;
}

/** The kernel's dims of a rank-2 or rank-3 operator (rank verified by check()). */
static em_batch_matmul_dims em_bmm_dims(const em_bmm_args *a)
{
    const em_tensor *x = &a->in[EM_BMM_A], *y = &a->in[EM_BMM_B];
    const int32_t first = x->rank - 2;
    const em_batch_matmul_dims d = {first == 1 ? em_op_dim(x, 0) : 1, em_op_dim(x, first),
                                    em_op_dim(x, first + 1), em_op_dim(y, first + 1)};
    return d;
}

static em_status em_bmm_check(const em_op_context *ctx)
{
    em_bmm_args a;
    const em_status s = em_bmm_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *x = &a.in[EM_BMM_A], *y = &a.in[EM_BMM_B], *out = &a.output;
    const int32_t rank = x->rank;
    if ((rank != 2 && rank != 3) || !em_op_is(x, EM_DTYPE_INT8, rank) || !em_op_is(y, EM_DTYPE_INT8, rank)
        || !em_op_is(out, EM_DTYPE_INT8, rank)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_batch_matmul_dims d = em_bmm_dims(&a);
    const int32_t first = rank - 2;
    const em_batch_matmul_params *p = &a.params;
    if (d.batches < 1 || d.rows < 1 || d.depth < 1 || d.columns < 1 || (rank == 3 && em_op_dim(y, 0) != d.batches)
        || (rank == 3 && em_op_dim(out, 0) != d.batches) || em_op_dim(y, first) != d.depth
        || em_op_dim(out, first) != d.rows || em_op_dim(out, first + 1) != d.columns
        || p->a_offset < -127 || p->a_offset > 128 || p->b_offset < -127 || p->b_offset > 128
        || !em_op_in_s8(p->output_offset) || p->output_multiplier < 0 || p->output_shift < -31
        || p->output_shift > 30 || !em_op_in_s8(p->activation_min) || !em_op_in_s8(p->activation_max)
        || p->activation_min > p->activation_max) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_bmm_eval(const em_op_context *ctx)
{
    em_bmm_args a;
    const em_status s = em_bmm_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_batch_matmul_dims dims = em_bmm_dims(&a);
    return em_op_status(em_batch_matmul_s8(&a.params, &dims, (const int8_t *)a.in[EM_BMM_A].data,
                                           (const int8_t *)a.in[EM_BMM_B].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_batch_matmul = {EM_OP_BATCH_MATMUL, "batch_matmul", EM_OP_CHECK(em_bmm_check),
                                               EM_OP_EVAL(em_bmm_eval)};
