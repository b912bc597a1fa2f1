/**
 * @file semihosting.c
 * @brief Exit, host files and command line through Arm semihosting (QEMU -semihosting-config).
 *
 * Semihosting call: operation in r0, pointer to an argument block in r1, `bkpt 0xab` on
 * M-profile, result in r0. Operation numbers and blocks: Arm "Semihosting for AArch32 and
 * AArch64" specification. SYS_GET_CMDLINE returns QEMU's `-semihosting-config arg=...` words
 * joined by spaces (or, without any, "<elf path> <-append text>"); the first word is the program
 * name and is dropped, as argv[0] is on the host.
 */
#include <stddef.h>
#include <stdint.h>

#include "em_bsp.h"

enum {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_SEEK = 0x0A,
    SYS_FLEN = 0x0C,
    SYS_GET_CMDLINE = 0x15,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
};

/* SYS_OPEN modes (ISO C fopen modes by index): "rb" = 1, "wb" = 5, "ab" = 9. */
enum { OPEN_MODE_READ_BINARY = 1, OPEN_MODE_WRITE_BINARY = 5, OPEN_MODE_APPEND_BINARY = 9 };

/* Reason code for a normal application exit. */
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static intptr_t semihost_call(uint32_t operation, const void *block)
{
    register uint32_t r0 __asm("r0") = operation;
    register const void *r1 __asm("r1") = block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (intptr_t)r0;
}

static size_t text_length(const char *text)
{
    size_t len = 0;
    while (text[len] != '\0') {
        ++len;
    }
    return len;
}

void em_bsp_exit(int status)
{
    /* SYS_EXIT_EXTENDED carries the status to QEMU's own exit code; plain SYS_EXIT on AArch32
       can only say "success" or "failure", so it is the fallback if the extended call returns
       (a debugger that does not implement it). */
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost_call(SYS_EXIT_EXTENDED, block);
    semihost_call(SYS_EXIT, (const void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                                  : 0x20023u /* RunTimeError */));
    for (;;) {
        __asm volatile("wfi");
    }
}

static intptr_t open_file(const char *path, uint32_t mode)
{
    const uintptr_t block[3] = {(uintptr_t)path, mode, text_length(path)};
    return semihost_call(SYS_OPEN, block);
}

static void close_file(intptr_t handle)
{
    const uintptr_t block[1] = {(uintptr_t)handle};
    semihost_call(SYS_CLOSE, block);
}

int em_bsp_file_read(const char *path, void *buf, size_t capacity, size_t *len)
{
    intptr_t handle = open_file(path, OPEN_MODE_READ_BINARY);
    if (handle < 0) {
        return -1;
    }
    const uintptr_t flen_block[1] = {(uintptr_t)handle};
    intptr_t size = semihost_call(SYS_FLEN, flen_block);
    int status = 0;
    if (size < 0) {
        status = -1;
    } else if ((size_t)size > capacity) {
        *len = (size_t)size;
        status = -2;
    } else {
        const uintptr_t read_block[3] = {(uintptr_t)handle, (uintptr_t)buf, (uintptr_t)size};
        /* SYS_READ returns the number of bytes NOT read. */
        if (semihost_call(SYS_READ, read_block) != 0) {
            status = -1;
        } else {
            *len = (size_t)size;
        }
    }
    close_file(handle);
    return status;
}

int em_bsp_file_read_part(const char *path, size_t offset, void *buf, size_t len, size_t *file_len)
{
    intptr_t handle = open_file(path, OPEN_MODE_READ_BINARY);
    if (handle < 0) {
        return -1;
    }
    const uintptr_t flen_block[1] = {(uintptr_t)handle};
    const intptr_t size = semihost_call(SYS_FLEN, flen_block);
    int status = -1;
    if (size >= 0) {
        *file_len = (size_t)size;
        const uintptr_t seek_block[2] = {(uintptr_t)handle, offset};
        const uintptr_t read_block[3] = {(uintptr_t)handle, (uintptr_t)buf, len};
        /* SYS_SEEK returns 0 on success; SYS_READ the number of bytes NOT read. */
        if (offset <= (size_t)size && len <= (size_t)size - offset && semihost_call(SYS_SEEK, seek_block) == 0
            && semihost_call(SYS_READ, read_block) == 0) {
            status = 0;
        }
    }
    close_file(handle);
    return status;
}

static int write_file(const char *path, uint32_t mode, const void *buf, size_t len)
{
    intptr_t handle = open_file(path, mode);
    if (handle < 0) {
        return -1;
    }
    int status = 0;
    if (mode == OPEN_MODE_APPEND_BINARY) {
        /* QEMU 7.2 opens "ab" without O_APPEND (its GDB-flag translation drops it) and writes at
         * offset 0: seek to the end first (a no-op where the mode is honoured). */
        const uintptr_t flen_block[1] = {(uintptr_t)handle};
        const intptr_t size = semihost_call(SYS_FLEN, flen_block);
        const uintptr_t seek_block[2] = {(uintptr_t)handle, (uintptr_t)size};
        status = size >= 0 && semihost_call(SYS_SEEK, seek_block) == 0 ? 0 : -1;
    }
    const uintptr_t block[3] = {(uintptr_t)handle, (uintptr_t)buf, len};
    /* SYS_WRITE returns the number of bytes NOT written. */
    if (status == 0 && semihost_call(SYS_WRITE, block) != 0) {
        status = -1;
    }
    close_file(handle);
    return status;
}

int em_bsp_file_write(const char *path, const void *buf, size_t len)
{
    return write_file(path, OPEN_MODE_WRITE_BINARY, buf, len);
}

int em_bsp_file_append(const char *path, const void *buf, size_t len)
{
    return write_file(path, OPEN_MODE_APPEND_BINARY, buf, len);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int em_bsp_args(char *storage, size_t capacity, const char **argv, int max_args)
{
    if (storage == NULL || capacity == 0) {
        return -1;
    }
    /* In: buffer and its size. Out: the same buffer, length of the text without its NUL. */
    uintptr_t block[2] = {(uintptr_t)storage, capacity};
    if (semihost_call(SYS_GET_CMDLINE, block) != 0) {
        return -1; /* no command line, or longer than capacity */
    }
    size_t text_len = block[1] < capacity ? block[1] : capacity - 1;
    storage[text_len] = '\0';

    /* Split in place on whitespace; word 0 is the program name. */
    int words = 0;
    int argc = 0;
    char *p = storage;
    while (*p != '\0') {
        while (is_space(*p)) {
            *p++ = '\0';
        }
        if (*p == '\0') {
            break;
        }
        if (words > 0) {
            if (argc == max_args) {
                return -1;
            }
            argv[argc++] = p;
        }
        ++words;
        while (*p != '\0' && !is_space(*p)) {
            ++p;
        }
    }
    return argc;
}
