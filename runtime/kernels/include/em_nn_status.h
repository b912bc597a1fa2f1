/**
 * @file em_nn_status.h
 * @brief What a kernel reports: the kernels' own status type. Values are stable.
 *
 * Kernels know nothing of the runtime, so they return this, never the runtime's em_status.
 * The numbers are those the runtime gives the same conditions, so that an operator adapter
 * passes a kernel's status on as it is, with no lookup at run time; runtime/ops/em_op_support.h
 * (em_op_status) holds the pairs and checks them at compile time.
 */
#ifndef EM_NN_STATUS_H
#define EM_NN_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    EM_NN_OK = 0,
    EM_NN_ERR_BAD_ARGUMENT = 12,       /**< a NULL pointer, or a size, shape or parameter
                                            outside the kernel's documented range */
    EM_NN_ERR_VARIANT_NOT_LINKED = 15  /**< the caller chose a kernel variant this build left
                                            out (em_nn_variants.h) */
} em_nn_status;

/** How many statuses em_nn_status has (the runtime's mapping checks it holds each). */
#define EM_NN_STATUS_COUNT 3

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_STATUS_H */
