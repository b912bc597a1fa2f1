/**
 * @file em_fb.h
 * @brief A minimal, hand-written FlatBuffers reader and verifier for the Ember program file.
 *
 * Hand-written because there is no C FlatBuffers library in Debian or PyPI (flatcc is not
 * packaged). It reads only what program.fbs uses: tables, scalars, vectors of scalars, vectors
 * of tables, strings and unions. Every read of the em_fb_field_* / em_fb_vector_table / em_fb_root
 * family is bounds-checked; the em_fb_trusted_* family at the end repeats them without checks, for
 * invoke on bytes the loader has verified. All reads use memcpy (no unaligned access), in
 * little-endian (Ember's targets and hosts are all little-endian).
 *
 * Binary format (https://flatbuffers.dev/internals/):
 * - bytes 0..3: uoffset (uint32) from 0 to the root table; bytes 4..7: file identifier.
 * - A table starts with an soffset (int32): its vtable is at table - soffset.
 * - A vtable is voffset16s: [vtable bytes, table inline bytes, field 0 offset, field 1 ...];
 *   a field offset of 0 (or a slot past the vtable's end) means "absent, use the default".
 * - Slots follow the declaration order in the .fbs; a union takes two: `<name>_type` (ubyte),
 *   then the uoffset of the value table.
 * - Reference fields (table, vector, string) hold a uoffset relative to the field itself.
 * - A vector is a uint32 length then its elements; a string is a vector of bytes followed by a 0.
 *   A vector of tables holds uoffsets relative to each element.
 *
 * Errors: a reference past the end of the bytes is EM_ERR_TRUNCATED ("shorter than its own
 * offsets say"); any other inconsistency (misaligned, wrapping, inside the header, vtable sizes
 * that make no sense, missing string terminator) is EM_ERR_MALFORMED.
 */
#ifndef EM_FB_H
#define EM_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "em_status.h"

/** The bytes being read. size < 2^32 (checked by the loader). */
typedef struct {
    const uint8_t *data;
    uint32_t size;
} em_fb_buf;

/** A verified table: its position and its vtable's extents. pos == 0 means "absent". */
typedef struct {
    uint32_t pos;
    uint32_t vtable;
    uint16_t vtable_size;
    uint16_t table_size;
} em_fb_table;

/** A verified vector: position of element 0 and element count. len == 0 when absent. */
typedef struct {
    uint32_t pos;
    uint32_t len;
} em_fb_vector;

/** memcpy for the little unaligned-safe loads below. The builtin, because firmware is built
 *  -ffreestanding (no implicit builtins): a plain memcpy would be a library call per field
 *  read; the builtin is one load instruction. */
#if defined(__GNUC__)
#define em_fb_memcpy __builtin_memcpy
#else
#define em_fb_memcpy memcpy
#endif

static inline uint8_t em_fb_u8_at(const em_fb_buf *b, uint32_t pos) { return b->data[pos]; }

static inline uint16_t em_fb_u16_at(const em_fb_buf *b, uint32_t pos)
{
    uint16_t v;
    em_fb_memcpy(&v, b->data + pos, sizeof v);
    return v;
}

static inline uint32_t em_fb_u32_at(const em_fb_buf *b, uint32_t pos)
{
    uint32_t v;
    em_fb_memcpy(&v, b->data + pos, sizeof v);
    return v;
}

static inline int32_t em_fb_i32_at(const em_fb_buf *b, uint32_t pos)
{
    int32_t v;
    em_fb_memcpy(&v, b->data + pos, sizeof v);
    return v;
}

static inline float em_fb_f32_at(const em_fb_buf *b, uint32_t pos)
{
    float v;
    em_fb_memcpy(&v, b->data + pos, sizeof v);
    return v;
}

/** Verifies the table at @p pos (its soffset, vtable and inline bytes in bounds) into @p out. */
em_status em_fb_table_at(const em_fb_buf *b, uint32_t pos, em_fb_table *out);

/** Verifies the root table (after the 8-byte header) into @p out. */
em_status em_fb_root(const em_fb_buf *b, em_fb_table *out);

/**
 * Position of field @p slot of @p t, after checking that its @p bytes fit in the table;
 * 0 when the field is absent. @return EM_OK or EM_ERR_MALFORMED.
 */
em_status em_fb_field(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, uint32_t bytes,
                      uint32_t *pos);

/** Scalar fields with their schema defaults. @return EM_OK or EM_ERR_MALFORMED. */
em_status em_fb_field_u8(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, uint8_t def,
                         uint8_t *out);
em_status em_fb_field_u16(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, uint16_t def,
                          uint16_t *out);
em_status em_fb_field_u32(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, uint32_t def,
                          uint32_t *out);
em_status em_fb_field_i32(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, int32_t def,
                          int32_t *out);
em_status em_fb_field_f32(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, float def,
                          float *out);

/** Table field; out->pos == 0 when absent. */
em_status em_fb_field_table(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                            em_fb_table *out);

/**
 * Vector field of @p elem_size-byte elements, its first element aligned to @p align (1, 2 or 4)
 * so that it can be used in place; out->len == 0 when absent.
 */
em_status em_fb_field_vector(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                             uint32_t elem_size, uint32_t align, em_fb_vector *out);

/** String field (bytes then a 0 terminator inside the buffer); absent is the empty string. */
em_status em_fb_field_string(const em_fb_buf *b, const em_fb_table *t, uint32_t slot,
                             em_fb_vector *out);

/** Element @p index of a verified vector of tables, verified into @p out. */
em_status em_fb_vector_table(const em_fb_buf *b, const em_fb_vector *v, uint32_t index,
                             em_fb_table *out);

/** Element @p index (< v->len) of a verified vector of uint32/int32. */
static inline uint32_t em_fb_vector_u32(const em_fb_buf *b, const em_fb_vector *v, uint32_t index)
{
    return em_fb_u32_at(b, v->pos + 4u * index);
}

static inline int32_t em_fb_vector_i32(const em_fb_buf *b, const em_fb_vector *v, uint32_t index)
{
    return em_fb_i32_at(b, v->pos + 4u * index);
}

static inline float em_fb_vector_f32(const em_fb_buf *b, const em_fb_vector *v, uint32_t index)
{
    return em_fb_f32_at(b, v->pos + 4u * index);
}

/* ---- Trusted reads ---------------------------------------------------------------------------
 * The same reads with no check at all, for the invoke path. Use them ONLY on a table, vector or
 * field that em_program_load() has already read through the checked functions above, in bytes
 * that have not changed since (ember.h: the program bytes must stay unchanged while loaded).
 * On such bytes each one returns exactly what its checked twin returned at load time: the same
 * "absent" rules (absent table, slot past the vtable's end, zero offset), the same defaults.
 * They are inline: a field read is a handful of instructions. */

/** em_fb_table_at() of a verified table. */
static inline em_fb_table em_fb_trusted_table(const em_fb_buf *b, uint32_t pos)
{
    em_fb_table t;
    t.pos = pos;
    t.vtable = pos - em_fb_u32_at(b, pos); /* soffset: vtable = table - soffset (mod 2^32) */
    t.vtable_size = em_fb_u16_at(b, t.vtable);
    t.table_size = em_fb_u16_at(b, t.vtable + 2u);
    return t;
}

/** em_fb_field() of a verified table: the field's offset from the table, 0 when absent.
 *  An absent table ({0}) has vtable_size 0, so all its fields are absent, as in em_fb_field(). */
static inline uint32_t em_fb_trusted_field(const em_fb_buf *b, const em_fb_table *t, uint32_t slot)
{
    const uint32_t entry = 4u + 2u * slot;
    return entry + 2u <= t->vtable_size ? em_fb_u16_at(b, t->vtable + entry) : 0u;
}

#define EM_FB_TRUSTED_SCALAR(name, type, reader)                                                 \
    static inline type name(const em_fb_buf *b, const em_fb_table *t, uint32_t slot, type def)  \
    {                                                                                            \
        const uint32_t offset = em_fb_trusted_field(b, t, slot);                                 \
        return offset != 0u ? reader(b, t->pos + offset) : def;                                  \
    }

EM_FB_TRUSTED_SCALAR(em_fb_trusted_u8, uint8_t, em_fb_u8_at)
EM_FB_TRUSTED_SCALAR(em_fb_trusted_u16, uint16_t, em_fb_u16_at)
EM_FB_TRUSTED_SCALAR(em_fb_trusted_u32, uint32_t, em_fb_u32_at)
EM_FB_TRUSTED_SCALAR(em_fb_trusted_i32, int32_t, em_fb_i32_at)
EM_FB_TRUSTED_SCALAR(em_fb_trusted_f32, float, em_fb_f32_at)

/** Where the reference field at offset @p offset (non-zero) of table @p t points. */
static inline uint32_t em_fb_trusted_follow(const em_fb_buf *b, const em_fb_table *t,
                                            uint32_t offset)
{
    const uint32_t pos = t->pos + offset;
    return pos + em_fb_u32_at(b, pos);
}

/** em_fb_field_table() of a verified table field; pos == 0 (all fields absent) when absent. */
static inline em_fb_table em_fb_trusted_field_table(const em_fb_buf *b, const em_fb_table *t,
                                                    uint32_t slot)
{
    const uint32_t offset = em_fb_trusted_field(b, t, slot);
    if (offset == 0u) {
        const em_fb_table absent = {0u, 0u, 0u, 0u};
        return absent;
    }
    return em_fb_trusted_table(b, em_fb_trusted_follow(b, t, offset));
}

/** em_fb_field_vector() (or _string()) of a verified vector field; len == 0 when absent. */
static inline em_fb_vector em_fb_trusted_vector(const em_fb_buf *b, const em_fb_table *t,
                                                uint32_t slot)
{
    const uint32_t offset = em_fb_trusted_field(b, t, slot);
    em_fb_vector v = {0u, 0u};
    if (offset != 0u) {
        const uint32_t at = em_fb_trusted_follow(b, t, offset);
        v.pos = at + 4u;
        v.len = em_fb_u32_at(b, at);
    }
    return v;
}

/** em_fb_vector_table() of element @p index (< len) of a verified vector of tables. */
static inline em_fb_table em_fb_trusted_vector_table(const em_fb_buf *b, uint32_t vector_pos,
                                                     uint32_t index)
{
    const uint32_t at = vector_pos + 4u * index;
    return em_fb_trusted_table(b, at + em_fb_u32_at(b, at));
}

#endif /* EM_FB_H */
