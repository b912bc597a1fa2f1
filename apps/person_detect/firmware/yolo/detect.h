/**
 * @file detect.h
 * @brief µYOLO's box decoding and non-maximum suppression on the device, in integers only: the
 * twin of apps/person_detect/detect.py (decode_int8), which defines every step; the tables and
 * constants (PD_*) come from em_app_generated.h, made from the program's output quantization.
 */
#ifndef PERSON_DETECT_DETECT_H
#define PERSON_DETECT_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "em_app_generated.h"

/** One detection. Coordinates in 1/PD_Q of the image side (0..PD_Q), x0 ≤ x1, y0 ≤ y1. */
typedef struct {
    int8_t score;   /**< the cell's objectness byte (higher: more confident) */
    uint8_t cell;   /**< row · PD_GRID + column */
    uint16_t x0, y0, x1, y1;
} pd_box;

/** The detections of one image, best first; fixed size, no heap. */
typedef struct {
    uint32_t count;               /**< 0..PD_MAX_BOXES */
    pd_box boxes[PD_MAX_BOXES];
} pd_detections;

/**
 * Decodes µYOLO's int8 output (@p size = PD_GRID² · PD_CELL_VALUES bytes: per cell, row-major,
 * objectness, x, y, √w, √h) into @p out: cells whose objectness byte ≥ PD_SCORE_FLOOR, boxes
 * from the tables, greedy NMS (score, then cell order; IoU > PD_IOU_PERCENT % suppresses).
 * @return 0, or -1 when @p size is not the µYOLO output's.
 */
int pd_decode(const int8_t *output, size_t size, pd_detections *out);

/** 1 when a and b overlap by IoU > @p iou_percent %: inter · 100 > iou_percent · union (int64). */
int pd_overlaps(const pd_box *a, const pd_box *b, int32_t iou_percent);

#endif
