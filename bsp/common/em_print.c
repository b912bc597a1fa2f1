#include "em_print.h"

#include <string.h>

#include "em_bsp.h"

void em_print(const char *text) { em_bsp_console_write(text, strlen(text)); }

void em_print_u64(uint64_t value) {
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + value % 10u);
        value /= 10u;
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
