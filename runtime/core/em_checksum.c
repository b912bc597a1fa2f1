/**
 * @file em_checksum.c
 * @brief The program file's CRC-32: its trailer (em_program_load) and sealed firmware's binding.
 *
 * A program file is the FlatBuffers program followed by four bytes, the little-endian CRC-32 of
 * everything before them (compiler/checksum.py writes it). em_program_load() checks the trailer
 * before reading any field, so a flipped byte anywhere, weights included, is
 * EM_ERR_PROGRAM_CORRUPT; sealed firmware checks the whole file's CRC-32 against the one the
 * build recorded (em_sealed.c).
 */
#include "em_program_view.h"

/* CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial and final value ~0, as zlib's
 * crc32 and Python's zlib.crc32), four bits at a time: a 64-byte table instead of 1 KiB. No CRC
 * library comes with newlib, and this is the whole of it. */
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

bool em_program_trailer_ok(const uint8_t *data, uint32_t size)
{
    if (size < EM_PROGRAM_TRAILER_BYTES) {
        return false;
    }
    const uint8_t *t = data + size - EM_PROGRAM_TRAILER_BYTES;
    const uint32_t trailer = (uint32_t)t[0] | ((uint32_t)t[1] << 8) | ((uint32_t)t[2] << 16) | ((uint32_t)t[3] << 24);
    return em_program_crc32(data, size - EM_PROGRAM_TRAILER_BYTES) == trailer;
}
