/**
 * @file em_op_add.c
 * @brief ADD adapter: a, b int8 -> output int8 (NumPy broadcasting, restricted), AddOptions.
 *
 * Broadcasting: the output's shape must be NumPy's broadcast of the operands' shapes (ranks <=
 * EM_MAX_RANK, aligned from the last axis), and each operand must be one of
 * - the output's own shape (any rank; size-1 axes added or kept),
 * - a scalar (one element: [1], [1, 1, 1, 1], rank 0),
 * - a row: size 1 on every axis but the last, which equals the output's last axis
 *   (e.g. [1, 1, 1, C] or [C] against [N, H, W, C]),
 * and not both broadcast. Anything else (e.g. [N, H, W, 1] against [1, 1, 1, C]) is
 * EM_ERR_BAD_OPERATOR at load. check() also verifies the options' ranges (em_add_params:
 * offsets −127..128, output offset and clamps int8, multipliers >= 0, shifts −31..30), so
 * eval() only decodes, classifies the (verified) shapes again and calls the kernel.
 * The output may be exactly a non-broadcast operand (in place) but must not overlap it otherwise.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

enum { EM_ADD_A, EM_ADD_B, EM_ADD_N_INPUTS };

typedef struct {
    em_tensor in[EM_ADD_N_INPUTS];
    em_tensor output;
    em_add_params params;
} em_add_args;

static em_status em_add_decode(const em_op_context *ctx, em_add_args *a)
{
    em_add_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_ADD_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_ADD);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT1_OFFSET, 0, &p->a_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT1_MULTIPLIER, 0, &p->a_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT1_SHIFT, 0, &p->a_shift);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT2_OFFSET, 0, &p->b_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT2_MULTIPLIER, 0, &p->b_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_INPUT2_SHIFT, 0, &p->b_shift);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_OUTPUT_MULTIPLIER, 0, &p->output_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_OUTPUT_SHIFT, 0, &p->output_shift);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ADD_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    return s;
}

/** Size of @p t along output axis @p axis of an output of rank @p out_rank (1 where @p t,
 *  aligned from the last axis, has no such axis). */
static int32_t em_add_aligned_dim(const em_tensor *t, int32_t out_rank, int32_t axis)
{
    const int32_t own = axis - (out_rank - t->rank);
    return own >= 0 ? em_op_dim(t, own) : 1;
}

/** How operand @p t maps onto @p out (whose broadcast with the other operand was verified),
 *  or -1 when the kernel has no such layout. */
static int32_t em_add_broadcast_of(const em_tensor *t, const em_tensor *out, uint32_t out_elements)
{
    const uint32_t n = em_tensor_elements(t);
    if (n == out_elements) {
        return EM_ADD_BROADCAST_NONE;
    }
    if (n == 1u) {
        return EM_ADD_BROADCAST_SCALAR;
    }
    const int32_t rank = out->rank;
    for (int32_t axis = 0; axis + 1 < rank; axis++) {
        if (em_add_aligned_dim(t, rank, axis) != 1) {
            return -1;
        }
    }
    return rank >= 1 && em_add_aligned_dim(t, rank, rank - 1) == em_op_dim(out, rank - 1)
               ? EM_ADD_BROADCAST_ROW : -1;
}

/** The kernel's dims, or false when the shapes are not a layout the kernel supports. */
static bool em_add_dims_of(const em_add_args *a, em_add_dims *dims)
{
    const em_tensor *out = &a->output;
    const int32_t rank = out->rank;
    for (int32_t i = 0; i < EM_ADD_N_INPUTS; i++) {
        if (a->in[i].rank > rank) {
            return false;
        }
    }
    for (int32_t axis = 0; axis < rank; axis++) { /* out == NumPy's broadcast of a and b */
        const int32_t da = em_add_aligned_dim(&a->in[EM_ADD_A], rank, axis);
        const int32_t db = em_add_aligned_dim(&a->in[EM_ADD_B], rank, axis);
        const int32_t want = da == 1 ? db : da;
        if ((da != db && da != 1 && db != 1) || em_op_dim(out, axis) != want) {
            return false;
        }
    }
    const uint32_t n = em_tensor_elements(out);
    const int32_t inner = rank >= 1 ? em_op_dim(out, rank - 1) : 1;
    if (n == 0u || inner < 1) {
        return false;
    }
    dims->inner = inner;
    dims->outer = (int32_t)(n / (uint32_t)inner);
    dims->a_broadcast = em_add_broadcast_of(&a->in[EM_ADD_A], out, n);
    dims->b_broadcast = em_add_broadcast_of(&a->in[EM_ADD_B], out, n);
    return dims->a_broadcast >= 0 && dims->b_broadcast >= 0
           && (dims->a_broadcast == EM_ADD_BROADCAST_NONE || dims->b_broadcast == EM_ADD_BROADCAST_NONE);
}

static bool em_add_offset_ok(int32_t offset)
{
    return offset >= -127 && offset <= 128; /* minus an int8 zero point */
}

static bool em_add_shift_ok(int32_t shift)
{
    return shift >= -31 && shift <= 30;
}

static em_status em_add_check(const em_op_context *ctx)
{
    em_add_args a;
    const em_status s = em_add_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (a.in[EM_ADD_A].dtype != EM_DTYPE_INT8 || a.in[EM_ADD_B].dtype != EM_DTYPE_INT8
        || a.output.dtype != EM_DTYPE_INT8) {
        return EM_ERR_BAD_OPERATOR;
    }
    em_add_dims dims;
    if (!em_add_dims_of(&a, &dims)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_add_params *p = &a.params;
    if (!em_add_offset_ok(p->a_offset) || !em_add_offset_ok(p->b_offset) || !em_op_in_s8(p->output_offset)
        || p->a_multiplier < 0 || p->b_multiplier < 0 || p->output_multiplier < 0
        || !em_add_shift_ok(p->a_shift) || !em_add_shift_ok(p->b_shift) || !em_add_shift_ok(p->output_shift)
        || !em_op_in_s8(p->activation_min) || !em_op_in_s8(p->activation_max)
        || p->activation_min > p->activation_max) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_add_eval(const em_op_context *ctx)
{
    em_add_args a;
    const em_status s = em_add_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_add_dims dims;
    (void)em_add_dims_of(&a, &dims); /* true: check() verified the same shapes */
    return em_add_s8(&a.params, &dims, (const int8_t *)a.in[EM_ADD_A].data,
                     (const int8_t *)a.in[EM_ADD_B].data, (int8_t *)a.output.data);
}

const em_op_registration em_op_add = {EM_OP_ADD, "add", em_add_check, em_add_eval};
