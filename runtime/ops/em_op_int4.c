/**
 * @file em_op_int4.c
 * @brief em_op_unpack_weights(): int4 weights unpacked into an op's scratch at every eval()
 *        (em_op_int4.h), one copy for the adapters of CONV_2D, DEPTHWISE_CONV_2D,
 *        FULLY_CONNECTED and TRANSPOSE_CONV_2D.
 */
#include "em_op_int4.h"

#include "em_nn_functions.h" /* em_unpack_s4 */

em_status em_op_unpack_weights(em_tensor *weights, em_tensor *scratch)
{
    int32_t rows, row_elements;
    em_op_int4_rows(weights, &rows, &row_elements);
    int8_t *unpacked = (int8_t *)scratch->data;
    const em_nn_status s = em_unpack_s4((const uint8_t *)weights->data, rows, row_elements, unpacked);
    const uint32_t taken = ((uint32_t)rows * (uint32_t)row_elements + 15u) & ~15u; /* em_op_unpacked_bytes */
    weights->data = unpacked;
    weights->dtype = EM_DTYPE_INT8;
    scratch->size = (uint32_t)em_op_dim(scratch, 0) - taken;
    scratch->data = scratch->size > 0u ? unpacked + taken : NULL;
    return em_op_status(s);
}

