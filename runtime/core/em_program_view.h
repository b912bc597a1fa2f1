/**
 * @file em_program_view.h
 * @brief Internal: the Program table's fields, and tensor resolution shared by loader and executor.
 *
 * Two ways to read the same things:
 * - checked (em_program_view_*, em_operator_open): em_program_load() opens the view and resolves
 *   every tensor and operator with arenas == NULL, each read bounds-checked;
 * - trusted (em_program_tensor_trusted, em_operator_open_trusted): after a successful load,
 *   invoke and the input/output views read the same fields with em_fb.h's unchecked reads,
 *   starting from the vector positions the loader saved in em_program. Each trusted function
 *   mirrors its checked twin field for field; tests/fuzz runs the loader on arbitrary bytes and
 *   then invoke under ASan/UBSan, so a field invoke reads but load did not verify is caught.
 */
#ifndef EM_PROGRAM_VIEW_H
#define EM_PROGRAM_VIEW_H

#include <stdbool.h>

#include "em_fb.h"
#include "em_registry.h"
#include "ember.h"

/* Field slots of Program, Tensor, Quantization, Buffer, Arena and Operator: em_schema.h. */

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

/** Bytes of the program file's CRC-32 trailer, after the FlatBuffers program (em_loader.c checks it). */
#define EM_PROGRAM_TRAILER_BYTES 4u

/** The smallest program file: the FlatBuffers header (root offset, "EMBR") and the trailer. */
#define EM_PROGRAM_MIN_BYTES (8u + EM_PROGRAM_TRAILER_BYTES)

/** What em_program_load() and em_program_open_sealed() check first: @p program non-NULL (then
 *  cleared, naming no operator), @p data non-NULL and 4-byte aligned. */
em_status em_program_begin(em_program *program, const void *data);

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

/** Program.state at load: every entry names two integer arena tensors of one size and dtype, the
 *  state neither a program input nor an output nor another entry's; entries present exactly
 *  when @p version is EM_SCHEMA_VERSION_STATE. *@p state receives the vector (em_state.c). */
em_status em_load_state(const em_program_view *v, const em_program *program, uint32_t version, em_fb_vector *state);

/** After an invoke's last operator: every state of the em_program @p program takes its next
 *  value (em_state.c; invoke calls it through em_program.carry_state). */
void em_state_commit(const void *program, uint8_t *const *arenas);

/** What trusted tensor reads need of a loaded program, copied into locals (so that stores
 *  into em_tensor fields cannot force the compiler to reload them from the em_program). */
typedef struct {
    const uint8_t *data;
    uint32_t tensors_pos;
    uint32_t buffers_pos;
} em_trusted_view;

/** The caller's arenas against the loaded program's plan: enough of them, each present, large
 *  enough and 16-byte aligned. Forced inline, like everything invoke runs, so that a profiling
 *  build (two callers) compiles em_program_invoke() to the same code as a build without
 *  profiling (one caller); em_program_copy_constants checks the same way. */
static inline __attribute__((always_inline)) em_status em_arenas_fit(const em_program *program, uint8_t *const *arenas,
                                                                     const uint32_t *arena_sizes, uint32_t n_arenas)
{
    if (n_arenas < program->n_arenas) {
        return EM_ERR_ARENA_TOO_SMALL;
    }
    if (program->n_arenas > 0u && (arenas == NULL || arena_sizes == NULL)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (arena_sizes[i] < program->arena_size[i]) {
            return EM_ERR_ARENA_TOO_SMALL;
        }
        if (arenas[i] == NULL && program->arena_size[i] > 0u) {
            return EM_ERR_BAD_ARGUMENT;
        }
        if (((uintptr_t)arenas[i] & 15u) != 0u) {
            return EM_ERR_UNALIGNED;
        }
    }
    return EM_OK;
}

static inline em_trusted_view em_trusted_view_of(const em_program *program)
{
    const em_trusted_view v = {program->data, program->tensors_pos, program->buffers_pos};
    return v;
}

/**
 * Tensor @p index (< n_tensors) of a LOADED program, without checks: what
 * em_program_view_tensor() gave for it at load time, with arena tensors' data in @p arenas
 * (which must hold the program's n_arenas pointers). With @p describe false, only what eval()
 * needs to run is read: data, dtype, rank and shape (size, scale and zero_point are left 0;
 * check() has verified them; dtype is read because the dtype-generic data-movement ops take
 * their element size from it). Inline: it is the bulk of invoke's per-operator work.
 */
static inline __attribute__((always_inline)) void
em_program_tensor_trusted(em_trusted_view v, uint32_t index, uint8_t *const *arenas,
                          bool describe, em_tensor *out)
{
    const em_fb_buf b = {v.data, 0u}; /* size unused: trusted reads check nothing */
    const em_fb_table t = em_fb_trusted_vector_table(&b, v.tensors_pos, index);
    const em_fb_vector shape = em_fb_trusted_vector(&b, &t, EM_TENSOR_SHAPE);
    const int32_t buffer = em_fb_trusted_i32(&b, &t, EM_TENSOR_BUFFER, -1);
    const uint32_t offset = em_fb_trusted_u32(&b, &t, EM_TENSOR_OFFSET, 0u);
    const uint8_t dtype = em_fb_trusted_u8(&b, &t, EM_TENSOR_DTYPE, 0u);
    uint32_t size = 0u;
    if (describe) {
        size = em_fb_trusted_u32(&b, &t, EM_TENSOR_SIZE, 0u);
    }
    uint8_t *data;
    if (buffer >= 0) {
        const em_fb_table buf = em_fb_trusted_vector_table(&b, v.buffers_pos, (uint32_t)buffer);
        data = (uint8_t *)(uintptr_t)(b.data + em_fb_trusted_vector(&b, &buf, EM_BUFFER_DATA).pos);
    } else {
        data = arenas[em_fb_trusted_i32(&b, &t, EM_TENSOR_ARENA, 0)];
    }
    float scale = 0.0f;
    int32_t zero_point = 0;
    if (describe) {
        const em_fb_table quant = em_fb_trusted_field_table(&b, &t, EM_TENSOR_QUANTIZATION);
        const em_fb_vector scales = em_fb_trusted_vector(&b, &quant, EM_QUANTIZATION_SCALE);
        const em_fb_vector zero_points = em_fb_trusted_vector(&b, &quant, EM_QUANTIZATION_ZERO_POINT);
        scale = scales.len > 0u ? em_fb_vector_f32(&b, &scales, 0) : 0.0f;
        zero_point = zero_points.len > 0u ? em_fb_vector_i32(&b, &zero_points, 0) : 0;
    }
    out->data = data + offset;
    out->size = size;
    out->dtype = (em_dtype)dtype;
    out->rank = (int32_t)shape.len;
    out->shape = shape.len > 0u ? (const int32_t *)(const void *)(b.data + shape.pos) : NULL;
    out->scale = scale;
    out->zero_point = zero_point;
}

/**
 * Operator @p index (< program->n_operators) of a LOADED program into @p ctx (inputs, outputs,
 * options; ctx->verified = true, ctx->view = NULL), without checks. Forced inline: invoke runs
 * it per operator, and em_program_invoke() must compile alike with and without EM_PROFILE.
 * @return its opcode.
 */
static inline __attribute__((always_inline)) uint16_t
em_operator_open_trusted(const em_program *program, uint32_t index, em_op_context *ctx)
{
    const em_fb_buf b = {program->data, (uint32_t)program->size};
    const em_fb_table op = em_fb_trusted_vector_table(&b, program->operators_pos, index);
    ctx->program = program;
    ctx->view = NULL;
    ctx->buf = b;
    ctx->index = index;
    ctx->inputs = em_fb_trusted_vector(&b, &op, EM_OPERATOR_INPUTS);
    ctx->outputs = em_fb_trusted_vector(&b, &op, EM_OPERATOR_OUTPUTS);
    ctx->options_type = em_fb_trusted_u8(&b, &op, EM_OPERATOR_OPTIONS_TYPE, 0u);
    ctx->verified = true;
    ctx->options = em_fb_trusted_field_table(&b, &op, EM_OPERATOR_OPTIONS);
    return em_fb_trusted_u16(&b, &op, EM_OPERATOR_OPCODE, 0u);
}

/** True when @p program was filled by a successful em_program_load() (and not edited since). */
bool em_program_is_loaded(const em_program *program);

/** What the calls that write a loaded program's arenas outside invoke check first (the state's
 *  reset, the copy of pinned constants): EM_ERR_BAD_ARGUMENT if it is not loaded, else as em_arenas_fit. */
static inline em_status em_loaded_and_fits(const em_program *program, uint8_t *const *arenas,
                                           const uint32_t *arena_sizes, uint32_t n_arenas)
{
    return em_program_is_loaded(program) ? em_arenas_fit(program, arenas, arena_sizes, n_arenas) : EM_ERR_BAD_ARGUMENT;
}

/** What the calls that describe a tensor of a loaded program check first (em_program_tensor,
 *  em_program_state_tensor): somewhere to write, a loaded program, and every arena of nonzero
 *  size given. The caller checks its index against its own count after (program is then loaded). */
static inline bool em_tensor_query_ok(const em_program *program, uint8_t *const *arenas, const em_tensor *tensor)
{
    if (tensor == NULL || !em_program_is_loaded(program) || (arenas == NULL && program->n_arenas > 0u)) {
        return false;
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (arenas[i] == NULL && program->arena_size[i] > 0u) {
            return false;
        }
    }
    return true;
}

/** The token a successful load stores in program->loaded (data, size and root must be set). */
uint32_t em_program_loaded_token(const em_program *program);

#endif /* EM_PROGRAM_VIEW_H */
