/**
 * The person-detection cascade (model=cascade): two programs in one firmware, what a
 * battery-powered camera runs. Per embedded frame (µYOLO's 128×128 int8 input): the visual wake
 * words gate on its 96×96 downscale (gate.c); only when the gate says person, µYOLO on the frame,
 * its boxes decoded and NMS'd on the device (firmware/yolo/).
 *
 * The two programs run one after the other in the same arenas (em_app_arenas, sized by the build
 * for the larger plan per region): the gate's output is printed before µYOLO's input overwrites it.
 * Inferences are numbered in run order (k); each prints its vector line and its label (gate) or
 * boxes (µYOLO) line under k, and every frame f ends with
 *     EM frame <f> gate=<k> person=<0|1>[ detector=<k + 1>]
 * (apps/person_detect/model.py Cascade.run_reference prints the same from the reference).
 * Exit status: 0 when every inference ran, else the runtime status that stopped it.
 */
#include <stdint.h>

#include "em_app_model.h"
#include "em_model_program.h"
#include "em_print.h"
#include "em_test_vectors.h"
#include "gate.h"
#include "input_provider.h"
#include "responder.h"

static void print_frame_line(uint32_t frame, uint32_t gate, int person) {
    em_print("EM frame ");
    em_print_u64(frame);
    em_print(" gate=");
    em_print_u64(gate);
    em_print(" person=");
    em_print_u64((uint64_t)person);
    if (person) {
        em_print(" detector=");
        em_print_u64(gate + 1u);
    }
    em_print("\n");
}

int em_app_main(void) {
    em_app_model gate, detector;
    em_status status;
    if ((status = em_app_model_open_program(&gate, em_model_program_vww, em_model_program_vww_size,
                                            em_model_program_vww_crc32)) != EM_OK ||
        (status = em_app_model_open_program(&detector, em_model_program_yolo, em_model_program_yolo_size,
                                            em_model_program_yolo_crc32)) != EM_OK) {
        return (int)status;
    }
    uint32_t k = 0;  /* inferences so far */
    for (uint32_t f = 0; f < input_count(); ++f) {
        if (pd_gate_input(em_test_vectors[f], &gate.input) != 0) {
            return em_app_fail("gate input", EM_ERR_BAD_ARGUMENT);
        }
        uint64_t count;
        if ((status = em_app_model_invoke(&gate, &count)) != EM_OK) {
            return (int)status;
        }
        const uint32_t gate_k = k++;
        const int person = pd_gate_respond(gate_k, count, &gate.output);
        if (person < 0) {
            return em_app_fail("gate output", EM_ERR_BAD_ARGUMENT);
        }
        if (person) {
            if (input_fill(f, (int8_t *)detector.input.data, detector.input.size) != 0) {
                return em_app_fail("input", EM_ERR_BAD_ARGUMENT);
            }
            if ((status = em_app_model_invoke(&detector, &count)) != EM_OK) {
                return (int)status;
            }
            if (respond(k++, count, &detector.output) != 0) {
                return em_app_fail("output", EM_ERR_BAD_ARGUMENT);
            }
        }
        print_frame_line(f, gate_k, person);
    }
    return em_app_model_finish();
}
