/**
 * @file em_fb.c
 * @brief Bounds-checked FlatBuffers reads (see em_fb.h for the format and the error rules).
 *
 * All position arithmetic is done in 64 bits so that no offset, however large, can wrap.
 */
#include "em_fb.h"

/** Header: root uoffset and file identifier. No table or vtable may start inside it. */
#define EM_FB_HEADER_BYTES 8u

/** EM_ERR_TRUNCATED when [pos, pos + bytes) does not fit in the buffer. */
static em_status em_fb_fits(const em_fb_buf *b, uint64_t pos, uint64_t bytes)
{
    return pos + bytes <= (uint64_t)b->size ? EM_OK : EM_ERR_TRUNCATED;
}

em_status em_fb_table_at(const em_fb_buf *b, uint32_t pos, em_fb_table *out)
{
    if (pos < EM_FB_HEADER_BYTES || (pos & 3u) != 0u) {
        return EM_ERR_MALFORMED;
    }
    if (em_fb_fits(b, pos, 4u) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    const int64_t vtable = (int64_t)pos - (int64_t)em_fb_i32_at(b, pos);
    if (vtable < (int64_t)EM_FB_HEADER_BYTES || (vtable & 1) != 0) {
        return EM_ERR_MALFORMED;
    }
    if (em_fb_fits(b, (uint64_t)vtable, 4u) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    const uint16_t vtable_size = em_fb_u16_at(b, (uint32_t)vtable);
    const uint16_t table_size = em_fb_u16_at(b, (uint32_t)vtable + 2u);
    if (vtable_size < 4u || (vtable_size & 1u) != 0u || table_size < 4u) {
        return EM_ERR_MALFORMED;
    }
    if (em_fb_fits(b, (uint64_t)vtable, vtable_size) != EM_OK
        || em_fb_fits(b, pos, table_size) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    out->pos = pos;
    out->vtable = (uint32_t)vtable;
    out->vtable_size = vtable_size;
    out->table_size = table_size;
    return EM_OK;
}

em_status em_fb_root(const em_fb_buf *b, em_fb_table *out)
{
    if (b->size < EM_FB_HEADER_BYTES) {
        return EM_ERR_TRUNCATED;
    }
    return em_fb_table_at(b, em_fb_u32_at(b, 0), out);
}

em_status em_fb_field(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, uint32_t bytes,
                      uint32_t *pos)
{
    *pos = 0;
    const uint64_t entry = 4u + 2u * (uint64_t)slot;
    if (t->pos == 0u || entry + 2u > t->vtable_size) {
        return EM_OK; /* absent table, or a field newer than this table's writer */
    }
    const uint16_t offset = em_fb_u16_at(b, t->vtable + (uint32_t)entry);
    if (offset == 0u) {
        return EM_OK;
    }
    if (offset < 4u || (uint32_t)offset + bytes > t->table_size) {
        return EM_ERR_MALFORMED;
    }
    *pos = t->pos + offset;
    return EM_OK;
}

#define EM_FB_SCALAR_FIELD(name, type, reader)                                                   \
    em_status name(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, type def, type *out) \
    {                                                                                            \
        uint32_t pos;                                                                            \
        const em_status status = em_fb_field(b, t, slot, (uint32_t)sizeof(type), &pos);          \
        *out = (status == EM_OK && pos != 0u) ? reader(b, pos) : def;                            \
        return status;                                                                           \
    }

EM_FB_SCALAR_FIELD(em_fb_field_u8, uint8_t, em_fb_u8_at)
EM_FB_SCALAR_FIELD(em_fb_field_u16, uint16_t, em_fb_u16_at)
EM_FB_SCALAR_FIELD(em_fb_field_u32, uint32_t, em_fb_u32_at)
EM_FB_SCALAR_FIELD(em_fb_field_i32, int32_t, em_fb_i32_at)
EM_FB_SCALAR_FIELD(em_fb_field_f32, float, em_fb_f32_at)

/** Follows the uoffset at @p pos (forward, non-zero); *target receives where it points. */
static em_status em_fb_follow(const em_fb_buf *b, uint32_t pos, uint32_t *target)
{
    const uint32_t offset = em_fb_u32_at(b, pos);
    if (offset == 0u) {
        return EM_ERR_MALFORMED;
    }
    const uint64_t to = (uint64_t)pos + offset;
    if (to >= b->size) {
        return EM_ERR_TRUNCATED;
    }
    *target = (uint32_t)to;
    return EM_OK;
}

/** Reference field: *target is 0 when absent. */
static em_status em_fb_field_ref(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                                 uint32_t *target)
{
    uint32_t pos;
    *target = 0;
    em_status status = em_fb_field(b, t, slot, 4u, &pos);
    if (status != EM_OK || pos == 0u) {
        return status;
    }
    return em_fb_follow(b, pos, target);
}

em_status em_fb_field_table(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                            em_fb_table *out)
{
    uint32_t target;
    memset(out, 0, sizeof *out);
    const em_status status = em_fb_field_ref(b, t, slot, &target);
    if (status != EM_OK || target == 0u) {
        return status;
    }
    return em_fb_table_at(b, target, out);
}

/** Verifies the vector whose length word is at @p at. */
static em_status em_fb_vector_at(const em_fb_buf *b, uint32_t at, uint32_t elem_size,
                                 uint32_t align, em_fb_vector *out)
{
    if ((at & 3u) != 0u) {
        return EM_ERR_MALFORMED;
    }
    if (em_fb_fits(b, at, 4u) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    const uint32_t len = em_fb_u32_at(b, at);
    const uint32_t first = at + 4u;
    if (em_fb_fits(b, first, (uint64_t)len * elem_size) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    if (align > 1u && (first & (align - 1u)) != 0u) {
        return EM_ERR_MALFORMED;
    }
    out->pos = first;
    out->len = len;
    return EM_OK;
}

em_status em_fb_field_vector(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                             uint32_t elem_size, uint32_t align, em_fb_vector *out)
{
    uint32_t target;
    out->pos = 0;
    out->len = 0;
    const em_status status = em_fb_field_ref(b, t, slot, &target);
    if (status != EM_OK || target == 0u) {
        return status;
    }
    return em_fb_vector_at(b, target, elem_size, align, out);
}

em_status em_fb_field_string(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                             em_fb_vector *out)
{
    em_status status = em_fb_field_vector(b, t, slot, 1u, 1u, out);
    if (status != EM_OK || out->pos == 0u) {
        return status;
    }
    if (em_fb_fits(b, (uint64_t)out->pos + out->len, 1u) != EM_OK) {
        return EM_ERR_TRUNCATED;
    }
    return em_fb_u8_at(b, out->pos + out->len) == 0u ? EM_OK : EM_ERR_MALFORMED;
}

em_status em_fb_vector_table(const em_fb_buf *b, const em_fb_vector *v, uint32_t index,
                             em_fb_table *out)
{
    uint32_t target;
    memset(out, 0, sizeof *out);
    if (index >= v->len) {
        return EM_ERR_MALFORMED;
    }
    const em_status status = em_fb_follow(b, v->pos + 4u * index, &target);
    if (status != EM_OK) {
        return status;
    }
    return em_fb_table_at(b, target, out);
}
