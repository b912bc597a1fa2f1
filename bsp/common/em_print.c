#include "em_print.h"

#include <string.h>

#include "em_bsp.h"

void em_print(const char *text) { em_bsp_console_write(text, strlen(text)); }

/* value / 10 in place, returning value % 10, in 32-bit steps (a high word, then two 16-bit
 * halves, each remainder < 10 carried into the next): `value / 10u` would link libgcc's
 * __udivmoddi4, 746 bytes on Thumb-2, into every firmware for the sake of printing. */
static uint32_t em_divide_by_10(uint64_t *value) {
    const uint32_t high = (uint32_t)(*value >> 32), low = (uint32_t)*value;
    const uint32_t mid = ((high % 10u) << 16) | (low >> 16);
    const uint32_t bottom = ((mid % 10u) << 16) | (low & 0xFFFFu);
    *value = ((uint64_t)(high / 10u) << 32) | ((mid / 10u) << 16) | (bottom / 10u);
    return bottom % 10u;
}

void em_print_u64(uint64_t value) {
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + em_divide_by_10(&value));
    } while (value != 0u);
    em_bsp_console_write(&digits[sizeof digits - n], n);
}

void em_print_i32(int32_t value) {
    if (value < 0) {
        em_print("-");
        em_print_u64((uint64_t)(-(int64_t)value));
    } else {
        em_print_u64((uint64_t)value);
    }
}

void em_print_hex(const void *data, size_t len) {
    static const char hex[] = "0123456789abcdef";
    const uint8_t *bytes = (const uint8_t *)data;
    char pair[64];
    size_t used = 0;
    for (size_t i = 0; i < len; ++i) {
        pair[used++] = hex[bytes[i] >> 4];
        pair[used++] = hex[bytes[i] & 0xFu];
        if (used == sizeof pair) {
            em_bsp_console_write(pair, used);
            used = 0;
        }
    }
    em_bsp_console_write(pair, used);
}
