/**
 * @file em_sealed.c
 * @brief em_program_open_sealed(): a program the build verified on the host, bound by its CRC-32.
 *
 * Sealed firmware (runtime/README.md, "Who verifies what") links one program the build ran
 * through this runtime's own verifier on the host (tools/em_verify: em_program_load() built for
 * the firmware's tier). At start-up only the binding is checked: the bytes' CRC-32 against the one
 * the build recorded. Everything else is read with the trusted reads invoke uses, so the loader's
 * checks and every operator's check() stay out of the image.
 */
#include "em_program_view.h"

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
    program->loaded = em_program_loaded_token(program);
    return EM_OK;
}
