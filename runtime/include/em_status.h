/**
 * @file em_status.h
 * @brief Status codes returned by every runtime and kernel function. Values are stable.
 */
#ifndef EM_STATUS_H
#define EM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    EM_OK = 0,
    EM_ERR_TRUNCATED = 1,        /**< an offset, vector or string reaches past the end of the bytes */
    EM_ERR_BAD_MAGIC = 2,        /**< file identifier is not "EMBR" */
    EM_ERR_BAD_VERSION = 3,      /**< schema version this runtime cannot read */
    EM_ERR_WRONG_TIER = 4,       /**< compiled for another ISA tier */
    EM_ERR_MALFORMED = 5,        /**< not a well-formed program: bad vtable, misaligned offset,
                                      string without terminator, unknown dtype, missing table,
                                      an INT4 tensor that is not a constant (weights only) */
    EM_ERR_BAD_TENSOR_INDEX = 6, /**< an operator or program input/output names no tensor */
    EM_ERR_BAD_OFFSET = 7,       /**< a tensor's bytes fall outside its arena or buffer */
    EM_ERR_BAD_SIZE = 8,         /**< a tensor's size disagrees with its shape and dtype */
    EM_ERR_UNKNOWN_OP = 9,       /**< an opcode this firmware's registry does not hold */
    EM_ERR_BAD_OPERATOR = 10,    /**< wrong arity, dtypes, shapes or options for its opcode */
    EM_ERR_ARENA_TOO_SMALL = 11, /**< caller's arenas smaller or fewer than the plan's, or the
                                      plan uses more arenas than EM_MAX_ARENAS */
    EM_ERR_BAD_ARGUMENT = 12,    /**< NULL pointer or index out of range in an API call */
    EM_ERR_UNALIGNED = 13,       /**< program or arena not aligned as required */
    EM_ERR_CONSTANTS_NOT_COPIED = 14, /**< the program pins constants to RAM (app.yaml memory: pin:)
                                           and em_program_copy_constants() has not copied them */
    EM_ERR_VARIANT_NOT_LINKED = 15, /**< the program chose a kernel variant this firmware was built
                                         without (its em_nn_variants_selected.h left it out),
                                         or one of a tier without variants: at load */
    EM_ERR_PROGRAM_CORRUPT = 16,    /**< the program's bytes are not the ones the compiler wrote:
                                         their CRC-32 trailer differs (em_program_load), or, in
                                         sealed firmware, the CRC-32 the build recorded differs;
                                         nothing runs. Also a program written before programs
                                         carried the trailer: lower it again. */
    EM_ERR_STATE_NOT_RESET = 17     /**< the program keeps state between invokes (Program.state)
                                         and em_program_reset_state() has not given it its first
                                         value */
} em_status;

/** "EM_OK", "EM_ERR_TRUNCATED", ...; "EM_ERR_UNKNOWN_STATUS" for any other value. */
const char *em_status_name(em_status status);

#ifdef __cplusplus
}
#endif

#endif /* EM_STATUS_H */
