/**
 * @file host.c
 * @brief The host "board": em_bsp.h on a POSIX system, for tests and debugging.
 *
 * main() keeps argv for em_bsp_args(), runs em_app_main() and exits with its status. The
 * console is stdout, files use stdio, and the counter reads CLOCK_MONOTONIC in nanoseconds.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <unistd.h>

#include "em_bsp.h"

static int host_argc;
static char **host_argv;

int main(int argc, char **argv)
{
    host_argc = argc;
    host_argv = argv;
    em_bsp_exit(em_app_main());
}

void em_bsp_console_write(const char *text, size_t len)
{
    fwrite(text, 1, len, stdout);
    fflush(stdout); /* a serial-link peer on a pipe must see every frame at once */
}

/* stdin: poll() says whether a byte is there, waiting at most 1 ms so that a serving loop does
   not spin a host core at 100 % (a board's UART poll returns at once); end of input is -2. */
int em_bsp_console_poll(void)
{
    struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
    unsigned char byte;
    if (poll(&in, 1, 1) != 1) {
        return -1;
    }
    if (in.revents & POLLNVAL) {
        return -2;
    }
    return read(STDIN_FILENO, &byte, 1) == 1 ? byte : -2;
}

uint64_t em_bsp_counter_hz(void)
{
    return 1000000000u;
}

uint64_t em_bsp_counter_read(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

const char *em_bsp_counter_unit(void)
{
    return "ns (host)";
}

/* Wall time is noisy: the overhead is the smallest of a few back-to-back read pairs,
   measured once. */
uint64_t em_bsp_counter_overhead(void)
{
    static int measured;
    static uint64_t overhead;
    if (!measured) {
        overhead = UINT64_MAX;
        for (int i = 0; i < 64; ++i) {
            uint64_t t0 = em_bsp_counter_read();
            uint64_t t1 = em_bsp_counter_read();
            if (t1 - t0 < overhead) {
                overhead = t1 - t0;
            }
        }
        measured = 1;
    }
    return overhead;
}

size_t em_bsp_stack_peak(void)
{
    return 0; /* the host's stack belongs to the OS: not measured */
}

void em_bsp_exit(int status)
{
    fflush(stdout);
    exit(status);
}

int em_bsp_file_read(const char *path, void *buf, size_t capacity, size_t *len)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return -1;
    }
    int status = 0;
    long size = -1;
    if (fseek(file, 0, SEEK_END) == 0) {
        size = ftell(file);
    }
    if (size < 0 || fseek(file, 0, SEEK_SET) != 0) {
        status = -1;
    } else if ((unsigned long)size > capacity) {
        *len = (size_t)size;
        status = -2;
    } else if (fread(buf, 1, (size_t)size, file) != (size_t)size) {
        status = -1;
    } else {
        *len = (size_t)size;
    }
    fclose(file);
    return status;
}

int em_bsp_file_read_part(const char *path, size_t offset, void *buf, size_t len, size_t *file_len)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return -1;
    }
    int status = -1;
    long size = -1;
    if (fseek(file, 0, SEEK_END) == 0) {
        size = ftell(file);
    }
    if (size >= 0) {
        *file_len = (size_t)size;
        if (offset <= (size_t)size && len <= (size_t)size - offset && fseek(file, (long)offset, SEEK_SET) == 0
            && fread(buf, 1, len, file) == len) {
            status = 0;
        }
    }
    fclose(file);
    return status;
}

static int write_file(const char *path, const char *mode, const void *buf, size_t len)
{
    FILE *file = fopen(path, mode);
    if (file == NULL) {
        return -1;
    }
    int status = fwrite(buf, 1, len, file) == len ? 0 : -1;
    if (fclose(file) != 0) {
        status = -1;
    }
    return status;
}

int em_bsp_file_write(const char *path, const void *buf, size_t len)
{
    return write_file(path, "wb", buf, len);
}

int em_bsp_file_append(const char *path, const void *buf, size_t len)
{
    return write_file(path, "ab", buf, len);
}

/* Copies argv[1..] into storage so that the words outlive any caller-side changes, as on the
   target where they live in the caller's storage too. */
int em_bsp_args(char *storage, size_t capacity, const char **argv, int max_args)
{
    int count = host_argc - 1;
    if (count < 0 || count > max_args) {
        return -1;
    }
    size_t used = 0;
    for (int i = 0; i < count; ++i) {
        size_t len = strlen(host_argv[i + 1]) + 1;
        if (used + len > capacity) {
            return -1;
        }
        memcpy(storage + used, host_argv[i + 1], len);
        argv[i] = storage + used;
        used += len;
    }
    return count;
}
