#include "detect.h"

#define PD_CELLS (PD_GRID * PD_GRID)

static int32_t clamp_q(int32_t v) { return v < 0 ? 0 : (v > PD_Q ? PD_Q : v); }

static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

int pd_overlaps(const pd_box *a, const pd_box *b, int32_t iou_percent) {
    const int64_t iw = max32(0, min32(a->x1, b->x1) - max32(a->x0, b->x0));
    const int64_t ih = max32(0, min32(a->y1, b->y1) - max32(a->y0, b->y0));
    const int64_t inter = iw * ih;
    const int64_t area_a = (int64_t)(a->x1 - a->x0) * (a->y1 - a->y0);
    const int64_t area_b = (int64_t)(b->x1 - b->x0) * (b->y1 - b->y0);
    return inter * 100 > (int64_t)iou_percent * (area_a + area_b - inter);
}

/* One cell's box (detect.py decode_int8). v[] are the cell's five output bytes. */
static pd_box cell_box(const int8_t *v, uint32_t cell) {
    const int32_t cx = (int32_t)(((cell % PD_GRID) * PD_Q + pd_position[v[1] + 128]) / PD_GRID);
    const int32_t cy = (int32_t)(((cell / PD_GRID) * PD_Q + pd_position[v[2] + 128]) / PD_GRID);
    const int32_t w = pd_size[v[3] + 128], h = pd_size[v[4] + 128];
    const int32_t x0 = cx - w / 2, y0 = cy - h / 2;
    pd_box box = {v[0], (uint8_t)cell, (uint16_t)clamp_q(x0), (uint16_t)clamp_q(y0),
                  (uint16_t)clamp_q(x0 + w), (uint16_t)clamp_q(y0 + h)};
    return box;
}

int pd_decode(const int8_t *output, size_t size, pd_detections *out) {
    if (size != (size_t)PD_CELLS * PD_CELL_VALUES) {
        return -1;
    }
    /* Candidates in (score descending, cell ascending) order: cells arrive in ascending order,
     * and the insertion places each after every candidate of equal or higher score. */
    pd_box candidates[PD_CELLS];
    uint32_t n = 0;
    for (uint32_t cell = 0; cell < PD_CELLS; ++cell) {
        const int8_t *v = output + cell * PD_CELL_VALUES;
        if (v[0] < PD_SCORE_FLOOR) {
            continue;
        }
        uint32_t at = n++;
        for (; at > 0 && candidates[at - 1].score < v[0]; --at) {
            candidates[at] = candidates[at - 1];
        }
        candidates[at] = cell_box(v, cell);
    }
    out->count = 0;
    for (uint32_t i = 0; i < n && out->count < PD_MAX_BOXES; ++i) {
        uint32_t k = 0;
        while (k < out->count && !pd_overlaps(&candidates[i], &out->boxes[k], PD_IOU_PERCENT)) {
            ++k;
        }
        if (k == out->count) {
            out->boxes[out->count++] = candidates[i];
        }
    }
    return 0;
}
