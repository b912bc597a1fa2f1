/**
 * @file em_run_console.h
 * @brief Tiny console printing for em_run over em_bsp_console_write() (no stdio: newlib's
 *        printf allocates).
 */
#ifndef EM_RUN_CONSOLE_H
#define EM_RUN_CONSOLE_H

#include <stdint.h>

/** Writes the NUL-terminated @p text. */
void em_run_print(const char *text);

/** Writes @p value in decimal. */
void em_run_print_u64(uint64_t value);

/** Writes "<label><value>\n". */
void em_run_print_line_u64(const char *label, uint64_t value);

#endif /* EM_RUN_CONSOLE_H */
