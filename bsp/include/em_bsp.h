/**
 * @file em_bsp.h
 * @brief What a board offers Ember firmware: set-up, console, counter, exit and host files.
 *
 * A board port implements exactly these functions in bsp/<board>/. The BSP knows nothing of the
 * runtime or of apps. No function here allocates memory.
 */
#ifndef EM_BSP_H
#define EM_BSP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The application's entry point, implemented by the app (not the BSP). The BSP's entry
 * (reset handler on a board, main() on the host) brings the board up, calls it once and exits
 * with its return value through em_bsp_exit().
 */
int em_app_main(void);

/** Writes @p len bytes to the console (blocking). */
void em_bsp_console_write(const char *text, size_t len);

/**
 * Reads one byte from the console if one has arrived; never waits (the serial link,
 * apps/common/firmware/em_link.h, builds framing and timeouts on it).
 * @return the byte (0..255), -1 when none is waiting, or -2 when the console is closed for
 * good (end of input on the host; never on a board). A byte received with a framing or
 * overrun error is dropped and the error cleared: the link's CRC notices the loss.
 */
int em_bsp_console_poll(void);

/**
 * Reads the free-running performance counter. Under QEMU it counts guest instructions
 * exactly (see shared/MEASURING.md), on silicon it counts CPU cycles; em_bsp_counter_unit()
 * says which. Monotonic, 64-bit, never wraps in practice.
 */
uint64_t em_bsp_counter_read(void);

/** "instructions (QEMU)", "cycles" or "ns (host)". */
const char *em_bsp_counter_unit(void);

/**
 * Counter units per second of the board's time, for timeouts: the CPU clock on silicon,
 * 1e9 / 2^icount_shift instructions under QEMU (its virtual time), 1e9 on the host.
 */
uint64_t em_bsp_counter_hz(void);

/**
 * Cost, in counter units, of one em_bsp_counter_read() pair around an empty region; the
 * caller subtracts it. Measured and checked by the BSP calibration test.
 */
uint64_t em_bsp_counter_overhead(void);

/**
 * Most stack bytes in use at any moment since reset, measured by painting: the BSP fills the
 * free stack with a pattern at reset and this scans for the deepest word overwritten. 0 where
 * the board cannot measure it (the host).
 */
size_t em_bsp_stack_peak(void);

/** Ends the program with @p status (0 = success). Under QEMU, exits the emulator. */
void em_bsp_exit(int status) __attribute__((noreturn));

/**
 * Reads the whole file at @p path on the host (semihosting under QEMU, stdio on the host build)
 * into @p buf of @p capacity bytes; *@p len receives its size (also when it is too large, so
 * that a message can say how large).
 * @return 0 on success, -1 if it cannot be opened or read, -2 if it is larger than @p capacity.
 */
int em_bsp_file_read(const char *path, void *buf, size_t capacity, size_t *len);

/** Writes @p len bytes to a host file at @p path, replacing it. @return 0 on success, -1 on error. */
int em_bsp_file_write(const char *path, const void *buf, size_t len);

/**
 * Reads @p len bytes at byte @p offset of the host file at @p path into @p buf (one invoke's
 * part of a file holding a sequence); *@p file_len receives the file's size whenever it could
 * be opened. @return 0 on success, -1 if it cannot be opened or read or holds fewer than
 * @p offset + @p len bytes.
 */
int em_bsp_file_read_part(const char *path, size_t offset, void *buf, size_t len, size_t *file_len);

/** Appends @p len bytes to the host file at @p path (creating it). @return 0 on success, -1 on error. */
int em_bsp_file_append(const char *path, const void *buf, size_t len);

/**
 * The command line the firmware was started with (semihosting SYS_GET_CMDLINE under QEMU,
 * argv on the host), split into at most @p max_args words stored in @p storage of @p capacity
 * bytes. @return the number of words, or -1 if there is none or it does not fit.
 */
int em_bsp_args(char *storage, size_t capacity, const char **argv, int max_args);

#ifdef __cplusplus
}
#endif

#endif /* EM_BSP_H */
