"""The program file's checksum: a CRC-32 trailer over every byte before it.

A program file is the FlatBuffers program (compiler/schema/program.fbs) followed by four bytes,
the little-endian CRC-32 (IEEE 802.3, zlib's crc32) of everything before them. The runtime's
em_program_load() and the host verifier refuse a file whose trailer differs with
EM_ERR_PROGRAM_CORRUPT before they read any field, so a flipped byte anywhere — a weight, a
zero point, the trailer itself — is a named status, not a different answer. A trailer rather
than a field: it covers every byte with no field to leave out of its own sum, and runtimes
that predate it read the FlatBuffers part and ignore what follows.
"""
from __future__ import annotations

import struct
import zlib

from compiler.errors import ProgramFormatError

CHECKSUM_BYTES = 4


def with_checksum(body: bytes) -> bytes:
    """`body` (a FlatBuffers program) and its CRC-32 trailer: the program file's bytes."""
    return bytes(body) + struct.pack("<I", zlib.crc32(body))


def without_checksum(data: bytes) -> bytes:
    """The FlatBuffers part of a program file; ProgramFormatError unless its trailer matches."""
    if len(data) < 8 + CHECKSUM_BYTES:
        raise ProgramFormatError(f"not an Ember program: {len(data)} bytes is shorter than a program's header")
    body, (trailer,) = data[:-CHECKSUM_BYTES], struct.unpack("<I", data[-CHECKSUM_BYTES:])
    if zlib.crc32(body) != trailer:
        raise ProgramFormatError(
            f"corrupt program ({len(data)} bytes): its trailer {trailer:#010x} is not the CRC-32 of its other "
            f"bytes ({zlib.crc32(body):#010x}): a changed or truncated copy, or a file written before programs "
            "carried a checksum; lower the model again")
    return body
