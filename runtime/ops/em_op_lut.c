/**
 * @file em_op_lut.c
 * @brief LUT adapter: input int8 [any shape], table int8 [256] (a constant) -> output int8
 *        [same element count], LutOptions (empty).
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

enum { EM_LUT_INPUT, EM_LUT_TABLE, EM_LUT_N_INPUTS };
#define EM_LUT_ENTRIES 256u

typedef struct {
    em_tensor in[EM_LUT_N_INPUTS]; /**< input, table */
    em_tensor output;
} em_lut_args;

static em_status em_lut_decode(const em_op_context *ctx, em_lut_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_LUT_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_LUT);
    return s;
}

static em_status em_lut_check(const em_op_context *ctx)
{
    em_lut_args a;
    const em_status s = em_lut_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *input = &a.in[EM_LUT_INPUT];
    const em_tensor *table = &a.in[EM_LUT_TABLE];
    if (input->dtype != EM_DTYPE_INT8 || a.output.dtype != EM_DTYPE_INT8 || !em_op_is(table, EM_DTYPE_INT8, 1)
        || em_tensor_elements(table) != EM_LUT_ENTRIES
        || em_tensor_elements(input) != em_tensor_elements(&a.output)
        || em_tensor_elements(input) > (uint32_t)INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_lut_eval(const em_op_context *ctx)
{
    em_lut_args a;
    const em_status s = em_lut_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_lut_s8((const int8_t *)a.in[EM_LUT_INPUT].data, (int32_t)em_tensor_elements(&a.output),
                     (const int8_t *)a.in[EM_LUT_TABLE].data, (int8_t *)a.output.data);
}

const em_op_registration em_op_lut = {EM_OP_LUT, "lut", em_lut_check, em_lut_eval};
