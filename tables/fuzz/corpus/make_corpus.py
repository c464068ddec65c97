#!/usr/bin/python3
"""Writes the seed corpora of the table readers' fuzzers (also read by table_reader_test).

The .npy seeds are written by NumPy itself, so the tests check the readers against real NumPy
output; the .safetensors seeds are assembled by hand (8-byte length, JSON header, data), as the
safetensors package is not a dependency. Run from this folder: /usr/bin/python3 make_corpus.py
"""
import io
import json
import struct

import numpy as np


def npy(name, array, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, version=version)
    with open("npy/" + name, "wb") as f:
        f.write(buf.getvalue())
    return buf.getvalue()


def safetensors(name, tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for key, (dtype, shape, data) in tensors.items():
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # what the reference writer does: data aligned to 8
    with open("safetensors/" + name, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def bf16_bits(x):
    # Round to nearest even from float32 bits (exact for the values used here).
    b = np.asarray(x, dtype="<f4").view("<u4").astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype("<u2")


pos = np.arange(4)[:, None]
k = np.arange(4)[None, :] // 2
angle = pos / 10000.0 ** (2 * k / 4)
pe = np.where(np.arange(4) % 2 == 0, np.sin(angle), np.cos(angle))  # interleaved, d = 4

npy("f4_2x3.npy", (np.arange(6).reshape(2, 3) / 8).astype("<f4"))
npy("f8_1x4x4.npy", pe.reshape(1, 4, 4).astype("<f8"))
npy("f2_fortran_v3.npy", np.asfortranarray((np.arange(6).reshape(2, 3) / 8).astype("<f2")),
    version=(3, 0))
npy("f4_bigendian_v2.npy", (np.arange(6).reshape(2, 3) / 8).astype(">f4"), version=(2, 0))
npy("u2_bf16.npy", bf16_bits(pe))
npy("v2_bf16.npy", bf16_bits(pe).view("V2"))
# ml_dtypes' bfloat16 saves as '<V2' (its dtype.str); plain NumPy writes '|V2': same length.
with open("npy/v2_bf16.npy", "rb") as f:
    data = f.read()
with open("npy/lt_v2_bf16.npy", "wb") as f:
    f.write(data.replace(b"'|V2'", b"'<V2'", 1))

safetensors("f32.safetensors", {"pe": ("F32", [4, 4], pe.astype("<f4").tobytes())})
safetensors("f64_1xNxd.safetensors", {"pe": ("F64", [1, 4, 4], pe.astype("<f8").tobytes())})
safetensors("multi.safetensors",
            {"pe": ("BF16", [4, 4], bf16_bits(pe).tobytes()),
             "cos": ("F16", [4, 2], np.cos(angle[:, ::2]).astype("<f2").tobytes())},
            metadata={"format": "pt"})
