/**
 * @file em_op_add.c
 * @brief ADD adapter: a, b int8 -> output int8, or a, b int16 -> output int16 (A16W8: offsets 0,
 *        clamps int16, the kernel's headroom shift 13), NumPy broadcasting, AddOptions.
 *
 * Broadcasting: any NumPy broadcast, as em_op_broadcast.h describes (shared with MUL, MINIMUM,
 * MAXIMUM). check() also verifies the options' ranges with the kernel's em_add_s8_params_valid() (em_add_params: offsets −127..128,
 * output offset and clamps int8, input multipliers −INT32_MAX..INT32_MAX (negative: SUB), output
 * multiplier >= 0, shifts −31..30), so eval() only decodes, fills the kernel's dims from the
 * (verified) shapes again and calls the kernel.
 * The output may be exactly an operand of its own shape (in place), never a broadcast one.
 * int16 operands: em_add_s16_params_valid(); where the build left the int16 kernel out
 * (EM_NN_S16_LINKED(ADD) 0), EM_ERR_VARIANT_NOT_LINKED.
 */
#include "em_nn_functions.h"
#include "em_op_broadcast.h"
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
    /* slots INPUT1_OFFSET (0) .. ACTIVATION_MAX (10) are em_add_params' fields in order */
    _Static_assert(sizeof(em_add_params) == 11u * sizeof(int32_t) && EM_ADD_OPTIONS_INPUT1_OFFSET == 0
                       && EM_ADD_OPTIONS_ACTIVATION_MAX == 10,
                   "em_add_params must be the options' slots 0..10 in order");
    static const int8_t defaults[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, -128, 127};
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 11u, (int32_t *)(void *)p);
    return s;
}

static em_status em_add_check(const em_op_context *ctx)
{
    em_add_args a;
    const em_status s = em_add_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_dtype dtype = a.output.dtype;
    if ((dtype != EM_DTYPE_INT8 && dtype != EM_DTYPE_INT16) || a.in[EM_ADD_A].dtype != dtype
        || a.in[EM_ADD_B].dtype != dtype) {
        return EM_ERR_BAD_OPERATOR;
    }
    em_broadcast_dims dims;
    if (!em_op_broadcast_dims(&a.in[EM_ADD_A], &a.in[EM_ADD_B], &a.output, &dims)) {
        return EM_ERR_BAD_OPERATOR;
    }
    /* the options' ranges: the kernel's own check, one copy for load and invoke */
    if (dtype == EM_DTYPE_INT16) {
        if (!em_add_s16_params_valid(&a.params)) {
            return EM_ERR_BAD_OPERATOR;
        }
        return EM_NN_S16_LINKED(ADD) ? EM_OK : EM_ERR_VARIANT_NOT_LINKED;
    }
    return em_add_s8_params_valid(&a.params) ? EM_OK : EM_ERR_BAD_OPERATOR;
}

static em_status em_add_eval(const em_op_context *ctx)
{
    em_add_args a;
    const em_status s = em_add_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_broadcast_dims dims;
    if (!em_op_broadcast_dims(&a.in[EM_ADD_A], &a.in[EM_ADD_B], &a.output, &dims)) {
        return EM_ERR_BAD_OPERATOR; /* never: check() verified the same shapes (dims stay set for the optimiser) */
    }
    if (a.output.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(ADD)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_add_s16(&a.params, &dims, (const int16_t *)a.in[EM_ADD_A].data,
                                       (const int16_t *)a.in[EM_ADD_B].data, (int16_t *)a.output.data));
    }
    return em_op_status(em_add_s8(&a.params, &dims, (const int8_t *)a.in[EM_ADD_A].data,
                                  (const int8_t *)a.in[EM_ADD_B].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_add = {EM_OP_ADD, "add", EM_OP_CHECK(em_add_check), EM_OP_EVAL(em_add_eval)};
