/**
 * @file link_result.c
 * @brief GET_RESULT of µYOLO's serving firmware (apps/common/firmware/em_link.h): the boxes after
 *        decoding and NMS on the device (pd_decode), for tools/camera_demo.py.
 *
 * Payload, little-endian: u32 count, then count × (i8 score, u8 cell, u16 x0, y0, x1, y1), the
 * coordinates in 1/PD_Q of the image side, best box first.
 */
#include "detect.h"
#include "em_link.h"

#define BOX_BYTES 10u

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

int32_t em_link_app_result(const em_program *program, uint8_t *const *arenas, uint8_t *out, uint32_t capacity)
{
    em_tensor output;
    static pd_detections found;
    if (em_program_output(program, 0, arenas, &output) != EM_OK
        || pd_decode((const int8_t *)output.data, output.size, &found) != 0
        || capacity < 4u + BOX_BYTES * found.count) {
        return -1;
    }
    for (uint32_t i = 0; i < 4u; ++i) {
        out[i] = (uint8_t)(found.count >> (8u * i));
    }
    for (uint32_t i = 0; i < found.count; ++i) {
        uint8_t *p = out + 4u + BOX_BYTES * i;
        const pd_box *b = &found.boxes[i];
        p[0] = (uint8_t)b->score;
        p[1] = b->cell;
        put_u16(p + 2, b->x0);
        put_u16(p + 4, b->y0);
        put_u16(p + 6, b->x1);
        put_u16(p + 8, b->y1);
    }
    return (int32_t)(4u + BOX_BYTES * found.count);
}
