/* Exercises the host-file and argument hooks. Arguments: <input path> <output path>.
   Reads the input, writes it reversed to the output, and prints one line per check:
   `args=<n> <word>|<word>|`, `read=<status> len=<n>`, `small=<status of a too-small read>`,
   `missing=<status of a missing file>`, `write=<status>`. */
#include <string.h>

#include "em_bsp.h"

static uint8_t buffer[4096];

static void put(const char *text)
{
    em_bsp_console_write(text, strlen(text));
}

static void put_int(int value)
{
    char text[12];
    int n = 0;
    unsigned magnitude = value < 0 ? 0u - (unsigned)value : (unsigned)value;
    do {
        text[n++] = (char)('0' + magnitude % 10u);
        magnitude /= 10u;
    } while (magnitude != 0u);
    if (value < 0) {
        text[n++] = '-';
    }
    while (n > 0) {
        em_bsp_console_write(&text[--n], 1);
    }
}

int em_app_main(void)
{
    char storage[256];
    const char *argv[4];
    int argc = em_bsp_args(storage, sizeof storage, argv, 4);
    put("args=");
    put_int(argc);
    put(" ");
    for (int i = 0; i < argc; ++i) {
        put(argv[i]);
        put("|");
    }
    put("\n");
    if (argc != 2) {
        return 1;
    }

    size_t len = 0;
    int status = em_bsp_file_read(argv[0], buffer, sizeof buffer, &len);
    put("read=");
    put_int(status);
    put(" len=");
    put_int((int)len);
    put("\n");

    size_t unused = 0;
    put("small=");
    put_int(em_bsp_file_read(argv[0], buffer + 2048, 1, &unused));
    put("\nmissing=");
    put_int(em_bsp_file_read("no-such-file.bin", buffer + 2048, 16, &unused));
    put("\n");

    for (size_t i = 0; i < len / 2; ++i) {
        uint8_t t = buffer[i];
        buffer[i] = buffer[len - 1 - i];
        buffer[len - 1 - i] = t;
    }
    put("write=");
    put_int(em_bsp_file_write(argv[1], buffer, len));
    put("\n");
    return 0;
}
