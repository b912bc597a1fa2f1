/**
 * @file em_program_view.h
 * @brief Internal: the Program table's fields, and tensor resolution shared by loader and executor.
 *
 * Verification and use go through the same functions: em_program_load() resolves every tensor
 * with arenas == NULL (checking it), em_program_invoke() resolves them again with the caller's
 * arenas. Every read stays bounds-checked, so even a bug in the loader cannot make the
 * executor read outside the program bytes.
 */
#ifndef EM_PROGRAM_VIEW_H
#define EM_PROGRAM_VIEW_H

#include <stdbool.h>

#include "em_fb.h"
#include "em_registry.h"
#include "ember.h"

/** Field slots (declaration order in compiler/schema/program.fbs). */
enum {
    EM_PROGRAM_SCHEMA_VERSION = 0, EM_PROGRAM_TIER = 1, EM_PROGRAM_TARGET = 2, EM_PROGRAM_NAME = 3,
    EM_PROGRAM_TENSORS = 4, EM_PROGRAM_OPERATORS = 5, EM_PROGRAM_INPUTS = 6,
    EM_PROGRAM_OUTPUTS = 7, EM_PROGRAM_BUFFERS = 8, EM_PROGRAM_ARENAS = 9
};
enum {
    EM_TENSOR_NAME = 0, EM_TENSOR_DTYPE = 1, EM_TENSOR_SHAPE = 2, EM_TENSOR_QUANTIZATION = 3,
    EM_TENSOR_BUFFER = 4, EM_TENSOR_ARENA = 5, EM_TENSOR_OFFSET = 6, EM_TENSOR_SIZE = 7
};
enum { EM_QUANTIZATION_SCALE = 0, EM_QUANTIZATION_ZERO_POINT = 1, EM_QUANTIZATION_AXIS = 2 };
enum { EM_BUFFER_DATA = 0 };
enum { EM_ARENA_NAME = 0, EM_ARENA_SIZE = 1 };
enum {
    EM_OPERATOR_OPCODE = 0, EM_OPERATOR_INPUTS = 1, EM_OPERATOR_OUTPUTS = 2,
    EM_OPERATOR_OPTIONS_TYPE = 3, EM_OPERATOR_OPTIONS = 4, EM_OPERATOR_ORIGIN = 5
};

/** Largest tensor rank the runtime accepts. */
#define EM_MAX_RANK 8u

/** The Program table's vectors. */
typedef struct em_program_view {
    em_fb_buf buf;
    em_fb_table root;
    em_fb_vector tensors;    /**< of Tensor tables */
    em_fb_vector operators;  /**< of Operator tables */
    em_fb_vector inputs;     /**< int32 tensor indices */
    em_fb_vector outputs;    /**< int32 tensor indices */
    em_fb_vector buffers;    /**< of Buffer tables */
    em_fb_vector arenas;     /**< of Arena tables */
} em_program_view;

/** Reads the root table and its vectors (bounds-checked; no semantic checks). */
em_status em_program_view_open(const em_fb_buf *buf, em_program_view *view);

/**
 * Verifies tensor @p index and returns its view. Arena tensors get data == NULL when
 * @p arenas is NULL. *@p in_arena (optional) tells whether it lives in an arena.
 * @p arena_size / @p n_arenas are the program's arena plan.
 */
em_status em_program_view_tensor(const em_program_view *view, const em_program *program,
                                 int32_t index, uint8_t *const *arenas, em_tensor *out,
                                 bool *in_arena);

/**
 * Reads operator @p index into @p ctx (inputs, outputs, options, origin verified in bounds) and
 * finds its registration. *@p opcode receives its opcode even when it is unknown.
 * @return EM_OK, a structural error, or EM_ERR_UNKNOWN_OP.
 */
em_status em_operator_open(const em_program_view *v, const em_program *program, uint32_t index,
                           em_op_context *ctx, const em_op_registration **reg, uint16_t *opcode);

#endif /* EM_PROGRAM_VIEW_H */
