/**
 * @file em_loader.c
 * @brief em_program_load(): verifies a program file once, so that invoke never goes out of bounds.
 *
 * Order of checks (the first problem found is returned):
 *  1. arguments, 4-byte alignment, header, file identifier "EMBR", the CRC-32 trailer over every
 *     other byte (a flipped weight is EM_ERR_PROGRAM_CORRUPT, not another answer);
 *  2. the root table and its vectors in bounds; schema version; tier;
 *  3. arenas (count <= EM_MAX_ARENAS, each table and name), buffers (each data vector);
 *  4. every tensor (dtype, shape, size == Π shape · dtype bytes, or INT4's packed rows, bytes
 *     inside buffer or arena; INT4 only as a constant, in the program or pinned to RAM);
 *  5. program inputs/outputs name arena tensors, inputs_kept has one 0/1 per input (or is absent),
 *     persistent tensors (state) are integer arena tensors as em_load_state() requires;
 *     constants pinned to RAM (initial_buffer) are arena tensors whose source buffer exists and
 *     holds their bytes;
 *  6. every operator: opcode in the registry, tensor indices, outputs in arenas, options table,
 *     origin string, then the operator's own check().
 * Only then is the em_program marked loaded: invoke reads the bytes without checks from then on
 * (ember.h, "Verify once, then trust").
 */
#include "em_program_view.h"
#include "em_registry.h"

#if !EM_SEALED /* sealed firmware verifies nothing at run time: em_program_open_sealed() */

/** Arenas: count, tables, names and sizes into @p program. */
static em_status em_load_arenas(const em_program_view *v, em_program *program)
{
    if (v->arenas.len > EM_MAX_ARENAS) {
        return EM_ERR_ARENA_TOO_SMALL; /* more arenas than this runtime supports */
    }
    for (uint32_t i = 0; i < v->arenas.len; i++) {
        em_fb_table arena;
        em_fb_vector name;
        em_status s = em_fb_vector_table(&v->buf, &v->arenas, i, &arena);
        if (s == EM_OK) s = em_fb_field_string(&v->buf, &arena, EM_ARENA_NAME, &name);
        if (s == EM_OK) s = em_fb_field_u32(&v->buf, &arena, EM_ARENA_SIZE, 0u, &program->arena_size[i]);
        if (s != EM_OK) {
            return s;
        }
    }
    program->n_arenas = v->arenas.len;
    return EM_OK;
}

static em_status em_load_buffers(const em_program_view *v)
{
    for (uint32_t i = 0; i < v->buffers.len; i++) {
        em_fb_table buffer;
        em_fb_vector data;
        em_status s = em_fb_vector_table(&v->buf, &v->buffers, i, &buffer);
        if (s == EM_OK) s = em_fb_field_vector(&v->buf, &buffer, EM_BUFFER_DATA, 1u, 1u, &data);
        if (s != EM_OK) {
            return s;
        }
    }
    return EM_OK;
}

static em_status em_load_tensors(const em_program_view *v, const em_program *program)
{
    for (uint32_t i = 0; i < v->tensors.len; i++) {
        em_tensor t;
        const em_status s = em_program_view_tensor(v, program, (int32_t)i, NULL, &t, NULL);
        if (s != EM_OK) {
            return s;
        }
    }
    return EM_OK;
}

/** Pinned constant @p i of the view: -1 when tensor i is not pinned, else its source buffer index
 *  after checking it (an arena tensor, whose bytes em_load_tensors checked, copied from an
 *  existing buffer that holds its size). Called by em_program_copy_constants only, so firmware
 *  whose program pins nothing does not link these checks. */
static em_status em_pinned_source(const em_program_view *v, uint32_t i, int32_t *source)
{
    em_fb_table t, buffer;
    em_fb_vector data;
    int32_t own;
    uint32_t size;
    em_status s = em_fb_vector_table(&v->buf, &v->tensors, i, &t);
    if (s == EM_OK) s = em_fb_field_i32(&v->buf, &t, EM_TENSOR_INITIAL_BUFFER, -1, source);
    if (s != EM_OK || *source == -1) {
        return s;
    }
    if (s == EM_OK) s = em_fb_field_i32(&v->buf, &t, EM_TENSOR_BUFFER, -1, &own);
    if (s == EM_OK) s = em_fb_field_u32(&v->buf, &t, EM_TENSOR_SIZE, 0u, &size);
    if (s == EM_OK && (*source < 0 || (uint32_t)*source >= v->buffers.len || own != -1)) {
        s = EM_ERR_MALFORMED; /* no such buffer, or a constant that is not in an arena */
    }
    if (s == EM_OK) s = em_fb_vector_table(&v->buf, &v->buffers, (uint32_t)*source, &buffer);
    if (s == EM_OK) s = em_fb_field_vector(&v->buf, &buffer, EM_BUFFER_DATA, 1u, 1u, &data);
    if (s == EM_OK && data.len < size) {
        s = EM_ERR_BAD_SIZE;
    }
    return s;
}

/** Every index of @p list must name an arena tensor (the application reads/writes it). */
static em_status em_load_io(const em_program_view *v, const em_program *program,
                            const em_fb_vector *list)
{
    for (uint32_t i = 0; i < list->len; i++) {
        em_tensor t;
        bool in_arena;
        const int32_t index = em_fb_vector_i32(&v->buf, list, i);
        const em_status s = em_program_view_tensor(v, program, index, NULL, &t, &in_arena);
        if (s != EM_OK) {
            return s;
        }
        if (!in_arena) {
            return EM_ERR_BAD_TENSOR_INDEX;
        }
    }
    return EM_OK;
}

/** Program.inputs_kept: absent, or one 0/1 byte per input (em_program_input_kept reads it trusted). */
static em_status em_load_inputs_kept(const em_program_view *v)
{
    em_fb_vector kept;
    em_status s = em_fb_field_vector(&v->buf, &v->root, EM_PROGRAM_INPUTS_KEPT, 1u, 1u, &kept);
    if (s == EM_OK && kept.len != 0u && kept.len != v->inputs.len) {
        s = EM_ERR_MALFORMED;
    }
    for (uint32_t i = 0; s == EM_OK && i < kept.len; i++) {
        if (em_fb_u8_at(&v->buf, kept.pos + i) > 1u) {
            s = EM_ERR_MALFORMED;
        }
    }
    return s;
}

/** Reads operator @p index into @p ctx and finds its registration (generic checks only). */
em_status em_operator_open(const em_program_view *v, const em_program *program, uint32_t index,
                           em_op_context *ctx, const em_op_registration **reg, uint16_t *opcode)
{
    em_fb_table op;
    em_fb_vector origin;
    memset(ctx, 0, sizeof *ctx);
    ctx->program = program;
    ctx->view = v;
    ctx->buf = v->buf;
    ctx->index = index;
    *reg = NULL;
    *opcode = 0;
    em_status s = em_fb_vector_table(&v->buf, &v->operators, index, &op);
    if (s == EM_OK) s = em_fb_field_u16(&v->buf, &op, EM_OPERATOR_OPCODE, 0u, opcode);
    if (s == EM_OK) s = em_fb_field_vector(&v->buf, &op, EM_OPERATOR_INPUTS, 4u, 4u, &ctx->inputs);
    if (s == EM_OK) s = em_fb_field_vector(&v->buf, &op, EM_OPERATOR_OUTPUTS, 4u, 4u, &ctx->outputs);
    if (s == EM_OK) s = em_fb_field_u8(&v->buf, &op, EM_OPERATOR_OPTIONS_TYPE, 0u, &ctx->options_type);
    if (s == EM_OK) s = em_fb_field_table(&v->buf, &op, EM_OPERATOR_OPTIONS, &ctx->options);
    if (s == EM_OK) s = em_fb_field_string(&v->buf, &op, EM_OPERATOR_ORIGIN, &origin);
    if (s != EM_OK) {
        return s;
    }
    *reg = em_registry_find(*opcode);
    return *reg != NULL ? EM_OK : EM_ERR_UNKNOWN_OP;
}

static em_status em_load_operator(const em_program_view *v, const em_program *program,
                                  uint32_t index, uint16_t *opcode)
{
    em_op_context ctx;
    const em_op_registration *reg;
    em_status s = em_operator_open(v, program, index, &ctx, &reg, opcode);
    if (s != EM_OK) {
        return s;
    }
    for (uint32_t i = 0; i < ctx.inputs.len + ctx.outputs.len; i++) {
        const bool is_output = i >= ctx.inputs.len;
        const int32_t tensor = is_output
                                   ? em_fb_vector_i32(&v->buf, &ctx.outputs, i - ctx.inputs.len)
                                   : em_fb_vector_i32(&v->buf, &ctx.inputs, i);
        em_tensor t;
        bool in_arena;
        s = em_program_view_tensor(v, program, tensor, NULL, &t, &in_arena);
        if (s != EM_OK) {
            return s;
        }
        if (is_output && !in_arena) {
            return EM_ERR_BAD_OPERATOR; /* would write into the (read-only) program */
        }
    }
    if (ctx.options_type != EM_OPTIONS_NONE && ctx.options.pos == 0u) {
        return EM_ERR_BAD_OPERATOR;
    }
    return reg->check(&ctx);
}

em_status em_program_load(em_program *program, const void *data, size_t size)
{
    const em_status opened = em_program_begin(program, data);
    if (opened != EM_OK) {
        return opened;
    }
    if (size < EM_PROGRAM_MIN_BYTES) {
        return EM_ERR_TRUNCATED;
    }
    if (size > UINT32_MAX) {
        return EM_ERR_MALFORMED;
    }
    if (memcmp((const uint8_t *)data + 4, EM_SCHEMA_FILE_IDENTIFIER, 4) != 0) {
        return EM_ERR_BAD_MAGIC;
    }
    /* Every field lies in the FlatBuffers part, before the trailer: the CRC-32 of that part, read
     * as every little-endian field is. */
    const em_fb_buf file = {(const uint8_t *)data, (uint32_t)size};
    const em_fb_buf buf = {file.data, file.size - EM_PROGRAM_TRAILER_BYTES};
    if (em_program_crc32(buf.data, buf.size) != em_fb_u32_at(&file, buf.size)) {
        return EM_ERR_PROGRAM_CORRUPT;
    }
    em_program_view v;
    uint32_t version;
    uint8_t tier;
    em_fb_vector target, name;
    em_status s = em_program_view_open(&buf, &v);
    if (s == EM_OK) s = em_fb_field_u32(&buf, &v.root, EM_PROGRAM_SCHEMA_VERSION, 0u, &version);
    if (s == EM_OK) s = em_fb_field_u8(&buf, &v.root, EM_PROGRAM_TIER, 0u, &tier);
    if (s == EM_OK && version != EM_SCHEMA_VERSION && version != EM_SCHEMA_VERSION_STATE) s = EM_ERR_BAD_VERSION;
    if (s == EM_OK && tier != (uint8_t)em_runtime_tier()) s = EM_ERR_WRONG_TIER;
    if (s == EM_OK) s = em_fb_field_string(&buf, &v.root, EM_PROGRAM_TARGET, &target);
    if (s == EM_OK) s = em_fb_field_string(&buf, &v.root, EM_PROGRAM_NAME, &name);
    if (s == EM_OK) s = em_load_arenas(&v, program);
    if (s == EM_OK) s = em_load_buffers(&v);
    uint32_t n_pinned = 0u;
    if (s == EM_OK) s = em_load_tensors(&v, program);
    /* The program's own count of pinned constants: invoke refuses until they are copied, and
     * em_program_copy_constants checks the count and every pin against the tensors. */
    if (s == EM_OK) s = em_fb_field_u32(&buf, &v.root, EM_PROGRAM_PINNED_CONSTANTS, 0u, &n_pinned);
    if (s == EM_OK) s = em_load_io(&v, program, &v.inputs);
    if (s == EM_OK) s = em_load_io(&v, program, &v.outputs);
    if (s == EM_OK) s = em_load_inputs_kept(&v);
    em_fb_vector state = {0u, 0u};
    if (s == EM_OK) s = em_load_state(&v, program, version, &state);
    for (uint32_t i = 0; s == EM_OK && i < v.operators.len; i++) {
        uint16_t opcode = 0;
        s = em_load_operator(&v, program, i, &opcode);
        if (s != EM_OK) {
            program->error_operator = i;
            program->error_opcode = opcode;
        }
    }
    if (s != EM_OK) {
        const uint32_t error_operator = program->error_operator;
        const uint32_t error_opcode = program->error_opcode;
        memset(program, 0, sizeof *program);
        program->error_operator = error_operator;
        program->error_opcode = error_opcode;
        return s;
    }
    program->data = buf.data;
    program->size = size;
    program->root = v.root.pos;
    program->n_tensors = v.tensors.len;
    program->n_operators = v.operators.len;
    program->n_inputs = v.inputs.len;
    program->n_outputs = v.outputs.len;
    program->tensors_pos = v.tensors.pos;
    program->operators_pos = v.operators.pos;
    program->inputs_pos = v.inputs.pos;
    program->outputs_pos = v.outputs.pos;
    program->buffers_pos = v.buffers.pos;
    program->n_pinned = n_pinned;
    program->n_copied = 0u;
    program->n_state = state.len;
    program->state_pos = state.pos;
    program->carry_state = NULL;
    program->loaded = em_program_loaded_token(program); /* last: invoke may trust it from now */
    return EM_OK;
}

#endif /* !EM_SEALED */

uint32_t em_program_arena_size(const em_program *program, uint32_t index)
{
    if (program == NULL || index >= program->n_arenas || index >= EM_MAX_ARENAS) {
        return 0u;
    }
    return program->arena_size[index];
}

em_status em_program_copy_constants(em_program *program, uint8_t *const *arenas, const uint32_t *arena_sizes,
                                    uint32_t n_arenas)
{
    const em_status fit = em_loaded_and_fits(program, arenas, arena_sizes, n_arenas);
    if (fit != EM_OK) {
        return fit;
    }
    /* Every pin checked before any byte is copied (a bad one copies nothing); the load verified
     * the arena index, offset and size of every arena tensor (in the file less its trailer). */
    const em_fb_buf b = {program->data, (uint32_t)program->size - EM_PROGRAM_TRAILER_BYTES};
#if !EM_SEALED /* sealed: the build's verifier checked every pin */
    em_program_view v;
    em_status s = program->n_pinned > 0u ? em_program_view_open(&b, &v) : EM_OK;
    uint32_t pins = 0u;
    for (uint32_t i = 0; s == EM_OK && program->n_pinned > 0u && i < program->n_tensors; i++) {
        int32_t source;
        s = em_pinned_source(&v, i, &source);
        pins += source != -1 ? 1u : 0u;
    }
    if (s == EM_OK && pins != program->n_pinned) {
        s = EM_ERR_MALFORMED; /* the program's pinned_constants disagrees with its tensors */
    }
    if (s != EM_OK) {
        return s;
    }
#endif
    for (uint32_t i = 0; program->n_pinned > 0u && i < program->n_tensors; i++) {
        const em_fb_table t = em_fb_trusted_vector_table(&b, program->tensors_pos, i);
        const int32_t source = em_fb_trusted_i32(&b, &t, EM_TENSOR_INITIAL_BUFFER, -1);
        if (source < 0) {
            continue;
        }
        const em_fb_table buffer = em_fb_trusted_vector_table(&b, program->buffers_pos, (uint32_t)source);
        const uint8_t *from = b.data + em_fb_trusted_vector(&b, &buffer, EM_BUFFER_DATA).pos;
        uint8_t *to = arenas[em_fb_trusted_i32(&b, &t, EM_TENSOR_ARENA, 0)] + em_fb_trusted_u32(&b, &t, EM_TENSOR_OFFSET, 0u);
        memcpy(to, from, em_fb_trusted_u32(&b, &t, EM_TENSOR_SIZE, 0u));
    }
    program->n_copied = program->n_pinned;
    return EM_OK;
}
