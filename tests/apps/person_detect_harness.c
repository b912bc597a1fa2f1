/* Test harness for apps/person_detect/firmware/yolo/detect.c on the host (tests/apps/test_person_detect.py).
 * stdin, one case a line:
 *   d <245 ints>                      decode one µYOLO output → prints detect.py's boxes_line
 *   o <pct> <s a x0 y0 x1 y1> ×2      pd_overlaps of two boxes → prints 0 or 1
 */
#include <stdio.h>

#include "detect.h"

int main(void) {
    char kind;
    unsigned index = 0;
    while (scanf(" %c", &kind) == 1) {
        if (kind == 'd') {
            int8_t output[PD_GRID * PD_GRID * PD_CELL_VALUES];
            for (unsigned i = 0; i < sizeof output; ++i) {
                int v;
                if (scanf("%d", &v) != 1) return 2;
                output[i] = (int8_t)v;
            }
            pd_detections found;
            if (pd_decode(output, sizeof output, &found) != 0) return 3;
            printf("EM boxes %u n=%u", index++, (unsigned)found.count);
            for (unsigned i = 0; i < found.count; ++i) {
                const pd_box *b = &found.boxes[i];
                printf(" %d@%u:%u,%u,%u,%u", b->score, b->cell, b->x0, b->y0, b->x1, b->y1);
            }
            printf("\n");
        } else if (kind == 'o') {
            int pct;
            pd_box box[2];
            if (scanf("%d", &pct) != 1) return 2;
            for (int k = 0; k < 2; ++k) {
                int s, c, x0, y0, x1, y1;
                if (scanf("%d %d %d %d %d %d", &s, &c, &x0, &y0, &x1, &y1) != 6) return 2;
                box[k] = (pd_box){(int8_t)s, (uint8_t)c, (uint16_t)x0, (uint16_t)y0, (uint16_t)x1, (uint16_t)y1};
            }
            printf("%d\n", pd_overlaps(&box[0], &box[1], pct));
        } else {
            return 4;
        }
    }
    return 0;
}
