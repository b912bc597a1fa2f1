"""Person detection models. For now the MLPerf Tiny visual wake words reference: MobileNetV1
with width multiplier α = 0.25 on 96×96×3, 2 classes (person / no person).

As in mlcommons/tiny benchmarks/visual_wake_words vww_model.py (`mobilenet_v1`, 8 filters):

    conv 3×3/2, 8 → BN → ReLU                                             96 → 48
    13 × [depthwise 3×3 (stride s) → BN → ReLU, pointwise 1×1 → BN → ReLU]
          channels 16, 32, 32, 64, 64, 128, 128 ×5, 256, 256; stride 2 in blocks 2, 4, 6, 12
    average pool 3×3 → flatten → dense 2 → softmax

(ReLU, not ReLU6, as the reference). 7.5 M MACs. Padding: Keras' "same" (apps/common/padding.py):
1 on every stride-1 3×3; at stride 2 on even sizes 0 above/left and 1 below/right, by a ZeroPad2d
that Ember folds into the convolution.

µYOLO (`micro_yolo`): a single-class YOLOv1-style detector, see its docstring.

BUILDERS names every model of this app; `MODELS` the build's `model=` choices (yolo, vww).
The build's model=cascade runs both in one firmware (`Cascade`): the visual wake words gate on
every frame, µYOLO only on frames the gate calls person.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from apps.common.checkpoint import read_checkpoint
from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 3, 96, 96)
CLASSES = 2
# (pointwise output channels at α = 1, depthwise stride) of the 13 separable blocks
BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
          (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))
STEM = 32


def _conv_bn_relu(conv: list[nn.Module]) -> list[nn.Module]:
    return [*conv, nn.BatchNorm2d(conv[-1].out_channels), nn.ReLU()]


class MobileNetV1(nn.Module):
    def __init__(self, alpha: float = 0.25, classes: int = CLASSES, resolution: int = INPUT_SHAPE[-1]) -> None:
        super().__init__()
        channels = int(STEM * alpha)
        # Keras "same" at stride 2 on even sizes pads (0, 1): an explicit zero pad before the conv
        layers = _conv_bn_relu(same_conv2d(3, channels, 3, resolution, stride=2))
        size = (resolution + 1) // 2
        for width, stride in BLOCKS:
            outputs = int(width * alpha)
            layers += _conv_bn_relu(same_conv2d(channels, channels, 3, size, stride, groups=channels))
            layers += _conv_bn_relu([nn.Conv2d(channels, outputs, 1)])
            channels, size = outputs, (size + stride - 1) // stride
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(size)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return torch.softmax(self.classifier(torch.flatten(x, 1)), dim=1)


def mobilenet_v1_025() -> MobileNetV1:
    """The visual wake words reference, MobileNetV1-0.25 at 96×96 (untrained)."""
    return MobileNetV1(alpha=0.25)


# --- µYOLO ---

YOLO_INPUT_SHAPE = (1, 3, 128, 128)
GRID = 7
CELL_VALUES = 5          # objectness, x, y, w, h
OBJECTNESS_GAIN = 8.0    # the network emits objectness logit / 8: its range then matches the box
                         # values' (0..1), so the one int8 scale of the output suits both
# (pointwise output channels, depthwise stride) of the separable blocks after the 3×3/2 stem
YOLO_STEM = 16
YOLO_BLOCKS = ((32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1))
YOLO_REDUCE = 64         # 1×1 conv before the head: 4 × 4 × 64 = 1024 features


class MicroYolo(nn.Module):
    """µYOLO: 128×128 RGB → 7×7 cells × (objectness, x, y, w, h), one box per cell, class person.

        conv 3×3/2, 16 → BN → ReLU6                                           128 → 64
        8 × [depthwise 3×3 (stride s) → BN → ReLU6, pointwise 1×1 → BN → ReLU6]
              channels 32, 32, 64, 64, 128, 128, 256, 256; stride 2 in blocks 1, 3, 5, 7   → 4
        pointwise 1×1, 64 → BN → ReLU6 → flatten (1024) → linear 245 (the prediction head)

    The widths are MobileNetV1's pruned to a quarter and cut after 8 blocks (no 512-wide ones):
    about 450 K parameters, most of them in the linear head, which lets every cell see the whole
    image as in YOLOv1. Per cell (row-major, output index (row·7 + col)·5 + k): objectness logit / 8,
    x and y of the box centre within the cell (0..1), √w and √h of the box as a share of the image
    (0..1); `apps.person_detect.detect` decodes them (and runs on the device in C).
    Only ops Ember lowers to int8: conv, depthwise conv, clamp (ReLU6), linear, flatten.
    """

    def __init__(self) -> None:
        super().__init__()
        resolution = YOLO_INPUT_SHAPE[-1]
        layers = _conv_bn_relu6(same_conv2d(3, YOLO_STEM, 3, resolution, stride=2))
        channels, size = YOLO_STEM, resolution // 2
        for outputs, stride in YOLO_BLOCKS:
            layers += _conv_bn_relu6(same_conv2d(channels, channels, 3, size, stride, groups=channels))
            layers += _conv_bn_relu6([nn.Conv2d(channels, outputs, 1)])
            channels, size = outputs, (size + stride - 1) // stride
        layers += _conv_bn_relu6([nn.Conv2d(channels, YOLO_REDUCE, 1)])
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(YOLO_REDUCE * size * size, GRID * GRID * CELL_VALUES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.features(x), 1))


def _conv_bn_relu6(conv: list[nn.Module]) -> list[nn.Module]:
    return [*conv, nn.BatchNorm2d(conv[-1].out_channels), nn.ReLU6()]


def micro_yolo() -> MicroYolo:
    """µYOLO at 128×128 (untrained)."""
    return MicroYolo()


BUILDERS: dict[str, Callable[[], nn.Module]] = {"mobilenet_v1_025": mobilenet_v1_025, "micro_yolo": micro_yolo}
MODELS = {"yolo": "micro_yolo", "vww": "mobilenet_v1_025"}   # build variable model= → builder


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)


def checkpoint_path(model: str) -> Path:
    """The committed checkpoint of `model` (a key of MODELS)."""
    if model not in MODELS:
        raise ValueError(f"unknown person_detect model {model!r}; choose one of {', '.join(sorted(MODELS))}")
    return Path(__file__).with_name(f"checkpoint-{model}.pt")


# --- what the build needs from each model (site_scons/ember_build/app_build.py; app.yaml's
# variants name `yolo` and `vww` below) ---

CALIBRATION_SEED, VECTOR_SEED = 40, 50       # scenes of their own: neither trained nor tested on
TEST_SEED = {"yolo": 3, "vww": 13}           # the held-out test scenes (apps/person_detect/train.py)


def load_trained(model: str = "yolo", path: Path | None = None) -> tuple[nn.Module, dict]:
    """The committed checkpoint of `model` (yolo or vww): model in eval mode, and its metadata."""
    checkpoint = read_checkpoint(path or checkpoint_path(model), "person_detect", model)  # CheckpointError, named
    return checkpoint.load_into(BUILDERS[MODELS[model]]()).eval(), checkpoint.meta


def _size(model: str) -> int:
    return YOLO_INPUT_SHAPE[-1] if model == "yolo" else INPUT_SHAPE[-1]


def _scenes(model: str, count: int, seed: int, root: Path | str | None = None):
    """Rendered scenes (or, with `root`, COCO val2017 under root/annotations, root/val2017)."""
    from apps.person_detect import data

    if root is not None:
        root = Path(root)
        return data.load_coco(root / "annotations" / "instances_val2017.json", root / "val2017", _size(model), count)
    return data.synthetic(count, seed, _size(model))


def _nchw(images) -> torch.Tensor:
    return torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255.0


class ModelHooks:
    """load_trained, example_inputs, calibration_data, test_vectors (+ the firmware's extras) of one
    person-detection model; `yolo` and `vww` below are the two app.yaml names."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.__name__ = f"{__name__}:{model}"  # what error messages call it (app.yaml's name)

    def load_trained(self) -> tuple[nn.Module, dict]:
        return load_trained(self.model)

    def accuracy_figures(self, model: nn.Module, program, count: int = 200, root: Path | str | None = None) -> dict:
        return accuracy_figures(model, program, count, root)

    def example_inputs(self) -> tuple[torch.Tensor]:
        return (torch.zeros(1, 3, _size(self.model), _size(self.model)),)

    def calibration_data(self, count: int = 32, seed: int = CALIBRATION_SEED) -> list[torch.Tensor]:
        """Rendered scenes as the model takes them: [1, 3, S, S] in 0..1."""
        x = _nchw(_scenes(self.model, count, seed).images)
        return [x[i:i + 1] for i in range(count)]

    def test_vectors(self, count: int, seed: int = VECTOR_SEED) -> "np.ndarray":
        """[count, 1, S, S, 3] float32 images in 0..1, NHWC as the program takes them (app_build
        quantizes them to its int8 input); scenes with people and without."""
        import numpy as np

        scenes = _scenes(self.model, 4 * count, seed)
        with_people = [i for i, b in enumerate(scenes.boxes) if len(b)]
        without = [i for i, b in enumerate(scenes.boxes) if not len(b)]
        picks = sorted((with_people[: count - count // 4] + without)[:count])
        return (scenes.images[picks][:, None] / np.float32(255.0)).astype(np.float32)

    def firmware_header(self, program) -> str:
        """em_app_generated.h: µYOLO's decode tables from the program's output quantization."""
        if self.model != "yolo":
            return "/* Generated by apps/person_detect/model.py: visual wake words needs no tables. */\n"
        from apps.person_detect import detect

        return detect.tables_header_c(output_tables(program))

    def expected_lines(self, program, outputs: list) -> list[str]:
        """What the device must print besides the raw output: the boxes (yolo) or label (vww)."""
        from apps.person_detect import detect

        if self.model == "yolo":
            tables = output_tables(program)
            return [detect.boxes_line(i, detect.decode_int8(out, tables)) for i, out in enumerate(outputs)]
        return [label_line(i, out) for i, out in enumerate(outputs)]


yolo, vww = ModelHooks("yolo"), ModelHooks("vww")


class CascadeError(ValueError):
    """Programs that cannot form the cascade (gate and detector inputs of different quantization)."""


def gate_rows(frame_side: int, gate_side: int) -> "np.ndarray":
    """The frame rows (and columns) the gate's nearest-neighbour downscale takes: the frame pixel
    under each gate pixel's centre, ((2·i + 1) · frame) // (2 · gate) (firmware/cascade/gate.c)."""
    import numpy as np

    return ((2 * np.arange(gate_side) + 1) * frame_side) // (2 * gate_side)


def gate_input(frame, gate_side: int) -> "np.ndarray":
    """The gate's int8 [1, g, g, 3] from a frame [1, S, S, 3] of the same input quantization: a byte
    gather, so the device's copy is exact."""
    import numpy as np

    rows = gate_rows(np.asarray(frame).shape[1], gate_side)
    return np.ascontiguousarray(np.asarray(frame)[:, rows][:, :, rows])


def frame_line(frame: int, gate: int, person: int) -> str:
    """The console line closing frame `frame` (firmware/cascade/main.c): the inference numbers of
    its gate run and, when it said person, of its µYOLO run."""
    return f"EM frame {frame} gate={gate} person={person}" + (f" detector={gate + 1}" if person else "")


class Cascade:
    """model=cascade: two programs in one firmware (app.yaml `programs: [vww, yolo]`), run one
    after the other in shared arenas (ember_build.app_build.compile_programs). Per frame, µYOLO's
    128×128 input: the visual wake words gate sees its 96×96 nearest-neighbour downscale (the two
    programs take the same input quantization, so the downscale is a byte gather on the device);
    µYOLO runs only when the gate says person. Inferences are numbered in run order; each prints
    the vector line and its label (gate) or boxes (µYOLO) line under its number, each frame a
    frame_line."""

    input_program = "yolo"  # the embedded frames take µYOLO's input quantization
    __name__ = f"{__name__}:cascade"

    def test_vectors(self, count: int, seed: int = VECTOR_SEED) -> "np.ndarray":
        """µYOLO's test frames (ModelHooks.test_vectors): scenes with people and without."""
        return yolo.test_vectors(count, seed)

    @staticmethod
    def _sides(programs: dict) -> tuple[int, int]:
        gate, detector = (programs[n].graph.tensors[programs[n].graph.inputs[0]] for n in ("vww", "yolo"))
        if (gate.dtype, list(gate.quant.scale), list(gate.quant.zero_point)) != (
                detector.dtype, list(detector.quant.scale), list(detector.quant.zero_point)):
            raise CascadeError(f"the gate's input ({gate.dtype}, scale {gate.quant.scale}, zero point "
                               f"{gate.quant.zero_point}) and µYOLO's ({detector.dtype}, scale {detector.quant.scale}, "
                               f"zero point {detector.quant.zero_point}) differ: the device's downscale copies bytes; "
                               "calibrate both on images in 0..1 (int8_io: true)")
        return int(detector.shape[1]), int(gate.shape[1])

    def firmware_header(self, programs: dict) -> str:
        """µYOLO's decode tables, and PD_FRAME_SIDE / PD_GATE_SIDE for the gate's downscale."""
        frame, gate = self._sides(programs)
        tables = yolo.firmware_header(programs["yolo"])
        return tables[: tables.rindex("#endif")] + (
            f"/* model=cascade: frame side (µYOLO's input) and the gate's (visual wake words') */\n"
            f"#define PD_FRAME_SIDE {frame}\n#define PD_GATE_SIDE {gate}\n#endif\n")

    def run_reference(self, programs: dict, frames) -> tuple[list, list[str]]:
        """What the firmware runs on `frames` (int8 [N, 1, S, S, 3]): the outputs of every inference
        in run order and the lines it prints (label, boxes and frame lines)."""
        from apps.person_detect import detect

        _, gate_side = self._sides(programs)
        tables = output_tables(programs["yolo"])
        outputs, lines = [], []
        for f, frame in enumerate(frames):
            gate = programs["vww"].run_reference(gate_input(frame, gate_side))[0]
            k, person = len(outputs), vww_label(gate)
            outputs.append(gate)
            lines.append(label_line(k, gate))
            if person:
                found = programs["yolo"].run_reference(frame)[0]
                outputs.append(found)
                lines.append(detect.boxes_line(k + 1, detect.decode_int8(found, tables)))
            lines.append(frame_line(f, k, person))
        return outputs, lines


    def figures(self, programs: dict, count: int = 500) -> dict:
        """Held-out figures of the cascade's int8 reference on µYOLO's test scenes (seed
        TEST_SEED["yolo"], never trained on): the gate's accuracy against the scenes' VWW labels on
        the device's downscale (and, for comparison, on an antialiased bilinear one computed on the
        host), the share of frames µYOLO runs on, and mAP@0.5 of µYOLO alone and behind the gate
        (a frame the gate stops has no boxes)."""
        import numpy as np

        from apps.person_detect import detect
        from ember_build.app_build import program_inputs

        _, gate_side = self._sides(programs)
        scenes = _scenes("yolo", count, TEST_SEED["yolo"])
        frames = program_inputs(programs["yolo"], scenes.images[:, None].astype(np.float32) / np.float32(255.0))
        gate = np.array([vww_label(programs["vww"].run_reference(gate_input(f, gate_side))[0]) for f in frames])
        resized = torch.nn.functional.interpolate(_nchw(scenes.images), size=(gate_side, gate_side), mode="bilinear",
                                                  antialias=True, align_corners=False)
        host = program_inputs(programs["vww"], resized.permute(0, 2, 3, 1).numpy()[:, None])
        bilinear = np.array([vww_label(programs["vww"].run_reference(x)[0]) for x in host])
        tables = output_tables(programs["yolo"], detect.MAP_SCORE_THRESHOLD)
        found = [detect.int_boxes_as_detections(detect.decode_int8(programs["yolo"].run_reference(f)[0], tables), tables)
                 for f in frames]
        stopped = (np.zeros(0), np.zeros((0, 4)))
        labels = np.asarray(scenes.labels)
        return {"samples": count, "person_frames": int(labels.sum()),
                "gate_accuracy": float((gate == labels).mean()),
                "gate_accuracy_bilinear_host": float((bilinear == labels).mean()),
                "person_frames_passed": float(gate[labels == 1].mean()),
                "empty_frames_stopped": float(1 - gate[labels == 0].mean()),
                "detector_share": float(gate.mean()),
                "map50_detector_alone": detect.average_precision(found, scenes.boxes),
                "map50_cascade": detect.average_precision([b if g else stopped for b, g in zip(found, gate)], scenes.boxes)}

    def figures_of_build(self, out: str | Path, count: int = 500) -> dict:
        """figures() of the programs a cascade build wrote (build/<board>/person_detect-cascade)."""
        from compiler.program import Program

        gen = Path(out) / "gen"
        return self.figures({name: Program.load(gen / f"program-{name}.embr") for name in ("vww", "yolo")}, count)


cascade = Cascade()


def output_quantization(program) -> tuple[float, int]:
    tensor = program.graph.tensors[program.graph.outputs[0]]
    if tensor.dtype != "int8":
        raise ValueError(f"person_detect needs the program's int8 output (int8_io: true), got {tensor.dtype}")
    return float(tensor.quant.scale[0]), int(tensor.quant.zero_point[0])


def output_tables(program, probability: float | None = None):
    """µYOLO's integer decode tables for `program`'s output quantization."""
    from apps.person_detect import detect

    return detect.decode_tables(*output_quantization(program), probability or detect.SCORE_THRESHOLD)


def vww_label(output) -> int:
    """1 (person) when the person byte exceeds the no-person byte (ties: no person); the device's rule."""
    import numpy as np

    q = np.asarray(output).reshape(-1)
    return int(int(q[1]) > int(q[0]))


def label_line(index: int, output) -> str:
    """The console line the device prints for vector `index` (firmware/vww/responder.c)."""
    import numpy as np

    q = np.asarray(output).reshape(-1)
    return f"EM label {index} person={vww_label(q)} bytes={int(q[0])},{int(q[1])}"


def accuracy_figures(model: nn.Module, program, count: int = 200, root: Path | str | None = None) -> dict:
    """Held-out figures of the float model and of the int8 program (its reference run, outputs
    decoded by the device's Python twin): mAP@0.5 for µYOLO, accuracy for visual wake words.

    Scenes: the test seed train.py never trains on (or, with `root`, the first `count` COCO
    val2017 images). mAP uses a score floor of detect.MAP_SCORE_THRESHOLD (the whole curve)."""
    import numpy as np

    from apps.person_detect import detect
    from ember_build.app_build import program_inputs

    name = "yolo" if isinstance(model, MicroYolo) else "vww"
    scenes = _scenes(name, count, TEST_SEED[name], root)
    with torch.no_grad():
        floats = torch.cat([model.eval()(_nchw(scenes.images[i:i + 50])) for i in range(0, count, 50)]).numpy()
    quantized = program_inputs(program, scenes.images[:, None].astype(np.float32) / np.float32(255.0))
    ints = [program.run_reference(x)[0] for x in quantized]
    if name == "vww":
        return {"metric": "accuracy", "float": float((floats.argmax(1) == scenes.labels).mean()),
                "int8_reference": float(np.mean([vww_label(q) == label for q, label in zip(ints, scenes.labels)])),
                "samples": count}
    tables = output_tables(program, detect.MAP_SCORE_THRESHOLD)
    found_float = [detect.decode_float(o, detect.MAP_SCORE_THRESHOLD) for o in floats]
    found_int = [detect.int_boxes_as_detections(detect.decode_int8(q, tables), tables) for q in ints]
    return {"metric": "mAP@0.5", "float": detect.average_precision(found_float, scenes.boxes),
            "int8_reference": detect.average_precision(found_int, scenes.boxes), "samples": count}
