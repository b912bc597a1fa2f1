/**
 * @file em_print.h
 * @brief Console output for apps without stdio: newlib's printf allocates, so it is not linked.
 * Every function writes through em_bsp_console_write().
 */
#ifndef EM_PRINT_H
#define EM_PRINT_H

#include <stddef.h>
#include <stdint.h>

/** Writes a NUL-terminated string. */
void em_print(const char *text);

/** Writes @p value in decimal. */
void em_print_u64(uint64_t value);

/** Writes @p value in decimal with a sign. */
void em_print_i32(int32_t value);

/** Writes @p len bytes as lowercase hex pairs, lowest address first, no separators. */
void em_print_hex(const void *data, size_t len);

#endif /* EM_PRINT_H */
