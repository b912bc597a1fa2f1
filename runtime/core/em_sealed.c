/**
 * @file em_sealed.c
 * @brief em_program_open_sealed(): a program the build verified on the host, bound by its CRC-32.
 *
 * Sealed firmware (runtime/README.md, "Who verifies what") links one program the build ran
 * through this runtime's own verifier on the host (tools/em_verify: em_program_load() built for
 * the firmware's tier). At start-up only the binding is checked: the bytes' CRC-32 against the one
 * the build recorded. Everything else is read with the trusted reads invoke uses, so the loader's
 * checks and every operator's check() stay out of the image.
 *
 * em_program_crc32() lives here for both: the whole file's CRC-32 binds a sealed program, and
 * the CRC-32 of all but its last four bytes is the file's trailer (compiler/checksum.py), which
 * em_program_load() checks first.
 */
#include "em_program_view.h"

/* CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial and final value ~0, as zlib's
 * crc32 and Python's zlib.crc32), four bits at a time: a 64-byte table instead of 1 KiB. No CRC
 * library comes with newlib, and this is the whole of it. Here, beside its sealed caller, it inlines
 * into em_program_open_sealed(); the loader calls it for the file's trailer (em_loader.c). */
static const uint32_t crc_nibbles[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
    0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu, 0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

uint32_t em_program_crc32(const void *data, size_t size)
{
    const uint8_t *bytes = (const uint8_t *)data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= bytes[i];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15u];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15u];
    }
    return ~crc;
}

em_status em_program_open_sealed(em_program *program, const void *data, size_t size, uint32_t crc32)
{
    const em_status opened = em_program_begin(program, data);
    if (opened != EM_OK) {
        return opened;
    }
    if (size < EM_PROGRAM_MIN_BYTES || size > UINT32_MAX || em_program_crc32(data, size) != crc32) {
        return EM_ERR_PROGRAM_CORRUPT;
    }
    /* The bytes are the verified ones: the same fields em_program_load() fills, read trusted
     * from the FlatBuffers part (the file less its trailer, which the build's CRC-32 covers). */
    const em_fb_buf b = {(const uint8_t *)data, (uint32_t)size - EM_PROGRAM_TRAILER_BYTES};
    const em_fb_table root = em_fb_trusted_table(&b, em_fb_u32_at(&b, 0u));
    const em_fb_vector tensors = em_fb_trusted_vector(&b, &root, EM_PROGRAM_TENSORS);
    const em_fb_vector operators = em_fb_trusted_vector(&b, &root, EM_PROGRAM_OPERATORS);
    const em_fb_vector inputs = em_fb_trusted_vector(&b, &root, EM_PROGRAM_INPUTS);
    const em_fb_vector outputs = em_fb_trusted_vector(&b, &root, EM_PROGRAM_OUTPUTS);
    const em_fb_vector arenas = em_fb_trusted_vector(&b, &root, EM_PROGRAM_ARENAS);
    for (uint32_t i = 0; i < arenas.len; i++) {
        const em_fb_table arena = em_fb_trusted_vector_table(&b, arenas.pos, i);
        program->arena_size[i] = em_fb_trusted_u32(&b, &arena, EM_ARENA_SIZE, 0u);
    }
    program->data = b.data;
    program->size = size;
    program->root = root.pos;
    program->n_tensors = tensors.len;
    program->n_operators = operators.len;
    program->n_inputs = inputs.len;
    program->n_outputs = outputs.len;
    program->n_arenas = arenas.len;
    program->tensors_pos = tensors.pos;
    program->operators_pos = operators.pos;
    program->inputs_pos = inputs.pos;
    program->outputs_pos = outputs.pos;
    program->buffers_pos = em_fb_trusted_vector(&b, &root, EM_PROGRAM_BUFFERS).pos;
    program->n_pinned = em_fb_trusted_u32(&b, &root, EM_PROGRAM_PINNED_CONSTANTS, 0u);
    program->n_copied = 0u;
    const em_fb_vector state = em_fb_trusted_vector(&b, &root, EM_PROGRAM_STATE);
    program->n_state = state.len;
    program->state_pos = state.pos;
    program->carry_state = NULL;
    program->loaded = em_program_loaded_token(program);
    return EM_OK;
}
