/**
 * @file em_program_view.c
 * @brief Program table access and tensor verification/resolution (see em_program_view.h).
 */
#include "em_program_view.h"

em_status em_program_begin(em_program *program, const void *data)
{
    if (program == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
    memset(program, 0, sizeof *program);
    program->error_operator = EM_NO_OPERATOR;
    if (data == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
    if (((uintptr_t)data & 3u) != 0u) {
        return EM_ERR_UNALIGNED;
    }
    return EM_OK;
}

em_status em_program_view_open(const em_fb_buf *buf, em_program_view *view)
{
    memset(view, 0, sizeof *view);
    view->buf = *buf;
    em_status s = em_fb_root(buf, &view->root);
    const em_fb_table *r = &view->root;
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_TENSORS, 4u, 4u, &view->tensors);
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_OPERATORS, 4u, 4u, &view->operators);
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_INPUTS, 4u, 4u, &view->inputs);
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_OUTPUTS, 4u, 4u, &view->outputs);
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_BUFFERS, 4u, 4u, &view->buffers);
    if (s == EM_OK) s = em_fb_field_vector(buf, r, EM_PROGRAM_ARENAS, 4u, 4u, &view->arenas);
    return s;
}

/** Bytes per element, which is also the alignment a tensor's bytes need; INT4's unit is a byte
 *  (two elements, rows padded: em_tensor_describe); 0 for a dtype this runtime does not know. */
static uint32_t em_dtype_bytes(uint8_t dtype)
{
    switch (dtype) {
    case EM_DTYPE_INT8: return 1u;
    case EM_DTYPE_INT32: return 4u;
    case EM_DTYPE_FLOAT32: return 4u;
    case EM_DTYPE_INT16: return 2u;
    case EM_DTYPE_INT4: return 1u;
    default: return 0u;
    }
}

/** Shape, quantization and name of a tensor table into @p out; checks size == Π shape · bytes,
 *  or for INT4 (compiler/int4.py) size == rows · ceil(n / 2): rows of the first dimension, n
 *  elements each (rank 0: one row of one, rank 1: one row of d0), with the element count bound
 *  as INT8's of the same shape (the adapters unpack them into int32-indexed scratch). */
static em_status em_tensor_describe(const em_fb_buf *b, const em_fb_table *t, em_tensor *out)
{
    em_fb_vector name, shape, scale, zero_point;
    em_fb_table quant;
    uint8_t dtype;
    uint32_t size;
    int32_t axis;
    em_status s = em_fb_field_string(b, t, EM_TENSOR_NAME, &name);
    if (s == EM_OK) s = em_fb_field_u8(b, t, EM_TENSOR_DTYPE, 0u, &dtype);
    if (s == EM_OK) s = em_fb_field_vector(b, t, EM_TENSOR_SHAPE, 4u, 4u, &shape);
    if (s == EM_OK) s = em_fb_field_table(b, t, EM_TENSOR_QUANTIZATION, &quant);
    if (s == EM_OK) s = em_fb_field_vector(b, &quant, EM_QUANTIZATION_SCALE, 4u, 4u, &scale);
    if (s == EM_OK) s = em_fb_field_vector(b, &quant, EM_QUANTIZATION_ZERO_POINT, 4u, 4u, &zero_point);
    if (s == EM_OK) s = em_fb_field_i32(b, &quant, EM_QUANTIZATION_AXIS, -1, &axis);
    if (s == EM_OK) s = em_fb_field_u32(b, t, EM_TENSOR_SIZE, 0u, &size);
    if (s != EM_OK) {
        return s;
    }
    const uint32_t elem_bytes = em_dtype_bytes(dtype);
    if (elem_bytes == 0u) {
        return EM_ERR_MALFORMED; /* a dtype this runtime does not know */
    }
    if (shape.len > EM_MAX_RANK) {
        return EM_ERR_BAD_SIZE;
    }
    uint64_t bytes = elem_bytes;
    uint32_t rows = 1u, row_odd = 1u; /* INT4: the first dimension of rank >= 2; whether n is odd */
    for (uint32_t i = 0; i < shape.len; i++) {
        const int32_t dim = em_fb_vector_i32(b, &shape, i);
        if (dim < 0) {
            return EM_ERR_BAD_SIZE;
        }
        bytes *= (uint32_t)dim; /* < 2^32 · 2^31: cannot overflow 64 bits */
        if (bytes > (uint64_t)INT32_MAX) { /* no 2 GiB tensors: int32 indexing stays exact */
            return EM_ERR_BAD_SIZE;
        }
        if (i == 0u && shape.len >= 2u) {
            rows = (uint32_t)dim;
        } else {
            row_odd &= (uint32_t)dim;
        }
    }
    if (dtype == EM_DTYPE_INT4) {
        /* rows · ceil(n / 2) = (rows · n + (n odd ? rows : 0)) / 2: no division, and below 2^32 */
        bytes = (bytes + ((row_odd & 1u) != 0u ? rows : 0u)) / 2u;
    }
    if (bytes != size) {
        return EM_ERR_BAD_SIZE;
    }
    out->data = NULL;
    out->size = size;
    out->dtype = (em_dtype)dtype;
    out->rank = (int32_t)shape.len;
    out->shape = shape.len > 0u ? (const int32_t *)(const void *)(b->data + shape.pos) : NULL;
    out->scale = scale.len > 0u ? em_fb_vector_f32(b, &scale, 0) : 0.0f;
    out->zero_point = zero_point.len > 0u ? em_fb_vector_i32(b, &zero_point, 0) : 0;
    return EM_OK;
}

/** Where a constant's bytes are: inside buffer @p buffer's data vector. */
static em_status em_tensor_place_constant(const em_program_view *v, int32_t buffer,
                                          uint32_t offset, uint32_t align, em_tensor *out)
{
    em_fb_table table;
    em_fb_vector data;
    if ((uint32_t)buffer >= v->buffers.len) {
        return EM_ERR_BAD_OFFSET;
    }
    em_status s = em_fb_vector_table(&v->buf, &v->buffers, (uint32_t)buffer, &table);
    if (s == EM_OK) s = em_fb_field_vector(&v->buf, &table, EM_BUFFER_DATA, 1u, 1u, &data);
    if (s != EM_OK) {
        return s;
    }
    if ((uint64_t)offset + out->size > data.len) {
        return EM_ERR_BAD_OFFSET;
    }
    const uint32_t pos = data.pos + offset;
    if ((pos & (align - 1u)) != 0u) {
        return EM_ERR_UNALIGNED;
    }
    out->data = (void *)(uintptr_t)(v->buf.data + pos);
    return EM_OK;
}

em_status em_program_view_tensor(const em_program_view *view, const em_program *program,
                                 int32_t index, uint8_t *const *arenas, em_tensor *out,
                                 bool *in_arena)
{
    em_fb_table t;
    int32_t buffer, arena;
    uint32_t offset;
    if (index < 0 || (uint32_t)index >= view->tensors.len) {
        return EM_ERR_BAD_TENSOR_INDEX;
    }
    em_status s = em_fb_vector_table(&view->buf, &view->tensors, (uint32_t)index, &t);
    if (s == EM_OK) s = em_tensor_describe(&view->buf, &t, out);
    if (s == EM_OK) s = em_fb_field_i32(&view->buf, &t, EM_TENSOR_BUFFER, -1, &buffer);
    if (s == EM_OK) s = em_fb_field_i32(&view->buf, &t, EM_TENSOR_ARENA, 0, &arena);
    if (s == EM_OK) s = em_fb_field_u32(&view->buf, &t, EM_TENSOR_OFFSET, 0u, &offset);
    if (s != EM_OK) {
        return s;
    }
    const uint32_t align = em_dtype_bytes(out->dtype);
    if (in_arena != NULL) {
        *in_arena = buffer == -1;
    }
    if (buffer >= 0) {
        return em_tensor_place_constant(view, buffer, offset, align, out);
    }
    if (out->dtype == EM_DTYPE_INT4) { /* weights only: in an arena, a constant pinned to RAM */
        int32_t initial;
        s = em_fb_field_i32(&view->buf, &t, EM_TENSOR_INITIAL_BUFFER, -1, &initial);
        if (s != EM_OK || initial < 0) {
            return s != EM_OK ? s : EM_ERR_MALFORMED;
        }
    }
    if (buffer != -1 || arena < 0 || (uint32_t)arena >= program->n_arenas
        || (uint64_t)offset + out->size > program->arena_size[arena]) {
        return EM_ERR_BAD_OFFSET;
    }
    if ((offset & (align - 1u)) != 0u) {
        return EM_ERR_UNALIGNED;
    }
    out->data = arenas != NULL ? (void *)(arenas[arena] + offset) : NULL;
    return EM_OK;
}

/* ---- Trusted: after a successful load (see em_program_view.h) ---------------------------------- */

uint32_t em_program_loaded_token(const em_program *program)
{
    return 0x52424D45u /* "EMBR" */ ^ (uint32_t)(uintptr_t)program->data ^ (uint32_t)program->size
           ^ (program->root << 1) ^ (program->n_operators << 7) ^ (program->n_tensors << 17);
}

bool em_program_is_loaded(const em_program *program)
{
    return program != NULL && program->data != NULL
           && program->loaded == em_program_loaded_token(program);
}

