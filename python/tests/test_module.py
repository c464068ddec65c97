"""The Python module against the command line it shares its C++ with: the same tables, the same
verdicts; bad input is a ValueError; arrays are read in place; the GIL is released."""
import json
import os
import pathlib
import resource
import subprocess
import sys
import threading

import numpy as np
import pytest

import peverify

CLI = os.environ.get("PEVERIFY", "build/bin/peverify")


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def cli_verify_json(tmp_path, table, *flags):
    path = tmp_path / "table.npy"
    np.save(path, table)
    out = tmp_path / "verdict.json"
    run = cli("verify", str(path), "--json", str(out), *flags)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(out.read_text()), run.returncode == 0


def comparable(verdict_json):
    """A verdict's JSON without what differs between a file and an array: the table's name and
    description, and the timings."""
    j = dict(verdict_json)
    for key in ("table", "description", "seconds"):
        j.pop(key, None)
    return j


def cli_table(tmp_path, *args):
    path = tmp_path / "generated.npy"
    run = cli(*args, "-o", str(path))
    assert run.returncode == 0, run.stderr
    return np.load(path)


# (name, how the table is made, the verify keywords, the same as command-line flags); these are
# the cases of verify/verify_test.cc and rotary_verify_test.cc that a user could write to a file.
def honest(tmp_path):
    return cli_table(tmp_path, "generate", "--impl", "cpu/logspace/f32>f32/sleef-u10",
                     "--d-model", "64", "--positions", "600")


def corrupted(tmp_path):
    t = honest(tmp_path).copy()
    t[123, 9] += 1e-3
    return t


def out_of_range(tmp_path):
    t = honest(tmp_path).copy()
    t[77, 1] = 1.5
    return t


def with_nan(tmp_path):
    t = honest(tmp_path).copy()
    t[401, 30] = np.nan
    return t


def duplicated_rows(tmp_path):
    t = honest(tmp_path).copy()
    t[500] = t[10]
    return t


def negative_zero(tmp_path):
    t = cli_table(tmp_path, "oracle", "--d-model", "64", "--positions", "300").copy()
    t[0, 0] = -0.0
    return t


def bfloat16_bits(tmp_path):
    return cli_table(tmp_path, "generate", "--impl", "cpu/logspace/bf16>bf16/glibc",
                     "--d-model", "64", "--positions", "600")


def llama_cache(tmp_path):
    return cli_table(tmp_path, "generate", "--impl", "cpu/pow/f32>f32/sleef-u10",
                     "--model-config", "llama-3.1-8b", "--layout", "rope-cos-dup",
                     "--positions", "300", "--start", "130000")


YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}


def yarn_cache(tmp_path):
    return cli_table(tmp_path, "generate", "--impl", "cpu/logspace/f32>bf16/sleef-u10",
                     "--d-model", "128", "--base", "1000000", "--rope-scaling", json.dumps(YARN),
                     "--layout", "rope-cos-sin", "--positions", "200")


def polar_cache(tmp_path):
    t = cli_table(tmp_path, "oracle", "--d-model", "64", "--layout", "polar", "--positions", "200")
    return t.view(np.complex64)  # Meta's freqs_cis: complex64 [N, d/2]


def exact(tmp_path, *flags):
    return cli_table(tmp_path, "oracle", *flags).copy()


def nan_and_infinities(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--positions", "300")
    t[10, 3], t[20, 4], t[30, 5] = np.nan, np.inf, -np.inf
    return t


def float16_flushed(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--base", "1000000", "--positions", "300",
              "--dtype", "float16")
    t[(t != 0) & (np.abs(t) < 2.0**-14)] = 0
    return t


def t2t_table(tmp_path):
    return exact(tmp_path, "--d-model", "64", "--schedule", "t2t", "--positions", "300")


def pair_swapped(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--positions", "300")
    t[:, [10, 11]] = t[:, [11, 10]]
    return t


def column_negated(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--positions", "300")
    t[:, 4] = -t[:, 4]
    return t


def rows_swapped(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--positions", "300")
    t[[100, 200]] = t[[200, 100]]
    return t


def rounded_the_other_way(tmp_path):
    t = exact(tmp_path, "--d-model", "64", "--positions", "300")
    ref = exact(tmp_path, "--d-model", "64", "--positions", "300", "--dtype", "float64")
    other = np.nextafter(t, np.where(ref > t, np.float32(np.inf), np.float32(-np.inf)))
    return np.where(ref == t, t, other).astype(np.float32)


def float16_d2(tmp_path):
    return exact(tmp_path, "--d-model", "2", "--positions", "4096", "--dtype", "float16")


def late_d2(tmp_path):
    return exact(tmp_path, "--d-model", "2", "--start", "50000", "--positions", "10000")


def rope_sin_pairs(tmp_path):
    return exact(tmp_path, "--d-model", "32", "--layout", "rope-sin-pairs", "--start", "100",
                 "--positions", "200", "--dtype", "bfloat16")


CASES = [
    ("honest", honest, {}, []),
    ("corrupted element", corrupted, {}, []),
    ("value out of range", out_of_range, {}, []),
    ("NaN", with_nan, {}, []),
    ("duplicated rows", duplicated_rows, {}, []),
    ("wrong base declared", honest, {"base": 11000}, ["--base", "11000"]),
    ("halves declared", honest, {"layout": "halves"}, ["--layout", "halves"]),
    ("shifted positions", honest, {"start": 1}, ["--start", "1"]),
    ("-0.0 under strict", negative_zero, {"budget": "strict"}, ["--budget", "strict"]),
    ("faithful", negative_zero, {"budget": "faithful"}, ["--budget", "faithful"]),
    ("bfloat16 bits", bfloat16_bits, {"dtype": "bfloat16"}, ["--dtype", "bfloat16"]),
    ("model C", honest, {"model_c": 4}, ["--model-c", "4"]),
    ("llama 3.1 preset", llama_cache,
     {"model_config": "llama-3.1-8b", "layout": "rope-cos-dup", "start": 130000},
     ["--model-config", "llama-3.1-8b", "--layout", "rope-cos-dup", "--start", "130000"]),
    ("yarn recipe", yarn_cache,
     {"dtype": "bfloat16", "base": 1e6, "rope_scaling": YARN, "layout": "rope-cos-sin"},
     ["--dtype", "bfloat16", "--base", "1000000", "--rope-scaling", json.dumps(YARN),
      "--layout", "rope-cos-sin"]),
    ("polar", polar_cache, {"layout": "polar"}, ["--layout", "polar"]),
    ("NaN and infinities", nan_and_infinities, {}, []),
    ("float16 subnormals flushed", float16_flushed, {"base": 1e6}, ["--base", "1000000"]),
    ("t2t declared as paper", t2t_table, {}, []),
    ("a pair's sin and cos swapped", pair_swapped, {}, []),
    ("a column negated", column_negated, {}, []),
    ("two rows swapped", rows_swapped, {}, []),
    ("rounded the other way, faithful", rounded_the_other_way, {"budget": "faithful"},
     ["--budget", "faithful"]),
    ("rounded the other way, strict", rounded_the_other_way, {"budget": "strict"},
     ["--budget", "strict"]),
    ("float16 d 2: the format's limit", float16_d2, {"budget": "strict"}, ["--budget", "strict"]),
    ("budgets that check nothing", late_d2, {"start": 50000, "model_c": 40},
     ["--start", "50000", "--model-c", "40"]),
    ("bfloat16 sin pairs", rope_sin_pairs,
     {"layout": "rope-sin-pairs", "start": 100, "dtype": "bfloat16", "budget": "strict"},
     ["--layout", "rope-sin-pairs", "--start", "100", "--dtype", "bfloat16", "--budget",
      "strict"]),
]


@pytest.mark.skipif("PEV_INSTALLED_IN" not in os.environ,
                    reason="run from a build tree (PYTHONPATH), not from an installed module")
def test_the_module_is_the_one_pip_installed():
    """The suite runs against `pip install .`'s module (python/install_venv.sh), not a build tree's."""
    venv = pathlib.Path(os.environ["PEV_INSTALLED_IN"]).resolve()
    module = pathlib.Path(peverify.__file__).resolve()
    assert venv in module.parents, f"imported {module}, not the module installed in {venv}"
    assert pathlib.Path(sys.prefix).resolve() == venv


@pytest.mark.parametrize("name,make,keywords,flags", CASES, ids=[c[0] for c in CASES])
def test_verdicts_equal_the_command_lines(tmp_path, name, make, keywords, flags):
    table = make(tmp_path)
    expected, passed = cli_verify_json(tmp_path, table, *flags)
    verdict = peverify.verify(table, **keywords)
    assert comparable(json.loads(verdict.to_json())) == comparable(expected), name
    assert bool(verdict) == verdict.holds == passed
    assert [p.property for p in verdict.properties] == [v["property"] for v in expected["properties"]]


def test_a_failing_verdict_names_the_element():
    table = cli_table_from_oracle(64, 600).copy()
    table[123, 9] += 1e-3
    verdict = peverify.verify(table)
    assert not verdict
    oracle = verdict.result("oracle")
    assert not oracle.holds
    worst = oracle.worst[0]
    assert (worst.pos, worst.dim) == (123, 9)
    assert worst.abs_error == pytest.approx(1e-3, rel=1e-3)
    assert worst.expected == pytest.approx(table[123, 9] - 1e-3, abs=1e-6)
    assert worst.budget > 0
    assert "oracle" in str(verdict) and "FAIL" in str(verdict)
    with pytest.raises(AssertionError) as e:
        peverify.assert_table(table)
    assert str(e.value) == str(verdict)


def same_value(from_json, attribute):
    """JSON writes null where a float is not finite; the attribute keeps the float."""
    if from_json is None:
        return isinstance(attribute, float) and not np.isfinite(attribute)
    if isinstance(from_json, dict):
        return isinstance(attribute, dict) and from_json.keys() == attribute.keys() and all(
            same_value(from_json[k], attribute[k]) for k in from_json)
    return from_json == attribute


def test_every_json_key_is_an_attribute_of_the_same_value():
    table = cli_table_from_oracle(64, 600).copy()
    table[123, 9] += 1e-3
    table[401, 30] = np.nan
    table[500] = table[10]
    verdict = peverify.verify(table)
    assert not verdict
    j = json.loads(verdict.to_json())
    for key, value in j.items():
        if key != "properties":
            assert same_value(value, getattr(verdict, key)), key
    assert len(j["properties"]) == len(verdict.properties)
    elements = 0
    for pj, p in zip(j["properties"], verdict.properties):
        for key, value in pj.items():
            if key != "worst":
                assert same_value(value, getattr(p, key)), (pj["property"], key)
        assert len(pj["worst"]) == len(p.worst)
        for ej, e in zip(pj["worst"], p.worst):
            elements += 1
            for key, value in ej.items():
                assert same_value(value, getattr(e, key)), (pj["property"], key)
    assert elements > 0 and any(None in ej.values() for pj in j["properties"]
                                for ej in pj["worst"]), "no NaN element: the test lost its case"


def test_the_old_attribute_names_still_read_with_a_deprecation_warning():
    table = cli_table_from_oracle(64, 600).copy()
    table[123, 9] += 1e-3
    verdict = peverify.verify(table)
    worst = verdict.result("oracle").worst[0]
    old_and_new = [(verdict, "passed", "holds"), (verdict, "coverage", "oracle_coverage"),
                   (verdict.properties[0], "name", "property"), (worst, "position", "pos"),
                   (worst, "column", "dim"), (worst, "exact", "expected"),
                   (worst, "error", "abs_error"), (worst, "ulp", "ulp_error"),
                   (worst, "cause", "what")]
    for obj, old, new in old_and_new:
        with pytest.warns(DeprecationWarning, match=f"use '{new}'"):
            assert getattr(obj, old) == getattr(obj, new), old
    with pytest.warns(DeprecationWarning):
        assert [p.property for p in verdict.results] == [p.property for p in verdict.properties]


def cli_table_from_oracle(d_model, positions, **keywords):
    return peverify.oracle(positions, d_model=d_model, **keywords)


def test_oracle_and_generate_give_the_command_lines_bits(tmp_path):
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        mine = peverify.oracle(100, d_model=64, start=1 << 20, dtype=dtype)
        theirs = cli_table(tmp_path, "oracle", "--d-model", "64", "--start", str(1 << 20),
                           "--positions", "100", "--dtype", dtype)
        assert mine.dtype == theirs.dtype and np.array_equal(mine.view(np.uint8),
                                                             theirs.view(np.uint8)), dtype
    mine = peverify.generate("cpu/pow/f32>bf16/sleef-u10", 64, model_config="qwen2.5-7b-yarn",
                             layout="rope-cos-dup")
    theirs = cli_table(tmp_path, "generate", "--impl", "cpu/pow/f32>bf16/sleef-u10",
                       "--model-config", "qwen2.5-7b-yarn", "--layout", "rope-cos-dup",
                       "--positions", "64")
    assert np.array_equal(mine, theirs)


def test_oracle_writes_complex64_as_meta_stores_freqs_cis(tmp_path):
    mine = peverify.oracle(200, d_model=64, layout="polar", dtype="complex64")
    theirs = cli_table(tmp_path, "oracle", "--d-model", "64", "--positions", "200", "--layout",
                       "polar", "--dtype", "complex64")
    assert mine.dtype == theirs.dtype == np.complex64 and mine.shape == theirs.shape == (200, 32)
    assert np.array_equal(mine.view(np.uint8), theirs.view(np.uint8))
    assert mine[1, 0] == pytest.approx(np.cos(1) + 1j * np.sin(1))
    verdict = peverify.verify(mine, layout="polar", budget="strict")
    assert verdict.holds, str(verdict)


def test_list_is_the_registry():
    entries = peverify.list()
    listed = json.loads(cli("list", "--json").stdout)
    assert [e["name"] for e in entries] == [e["name"] for e in listed]


BAD = [
    ("int32 array", lambda: peverify.verify(np.zeros((8, 8), np.int32)), "element type"),
    ("wrong shape", lambda: peverify.verify(np.zeros((2, 8, 8), np.float32)), "shape"),
    ("empty", lambda: peverify.verify(np.zeros((0, 8), np.float32)), "empty"),
    ("NaN base", lambda: peverify.verify(np.zeros((8, 8), np.float32), base=float("nan")), "base"),
    ("unknown rope_type",
     lambda: peverify.verify(np.zeros((8, 128), np.float32),
                             rope_scaling={"rope_type": "banana", "factor": 2}), "rope_type"),
    ("unknown rope_type in a config",
     lambda: peverify.verify(np.zeros((8, 128), np.float32),
                             model_config={"head_dim": 128, "rope_scaling": {"rope_type": "x"}}),
     "rope_type"),
    ("odd d_model", lambda: peverify.verify(np.zeros((8, 7), np.float32)), "even"),
    ("d_model disagrees", lambda: peverify.verify(np.zeros((8, 8), np.float32), d_model=16),
     "wide"),
    ("string d_model", lambda: peverify.verify(np.zeros((8, 8), np.float32), d_model="8"),
     "integer"),
    ("unknown keyword", lambda: peverify.verify(np.zeros((8, 8), np.float32), dmodel=8),
     "unknown argument"),
    ("unknown layout", lambda: peverify.verify(np.zeros((8, 8), np.float32), layout="x"),
     "layout"),
    ("uint16 without dtype", lambda: peverify.verify(np.zeros((8, 8), np.uint16)), "bfloat16"),
    ("not an array", lambda: peverify.verify("pe.npy"), "buffer protocol"),
    ("complex without polar", lambda: peverify.verify(np.zeros((8, 4), np.complex64)), "polar"),
    ("model-c with faithful",
     lambda: peverify.verify(np.zeros((8, 8), np.float32), budget="faithful", model_c=3), "model"),
    ("missing config file",
     lambda: peverify.verify(np.zeros((8, 8), np.float32), model_config="/nonexistent.json"),
     "no file"),
    ("oracle without d_model", lambda: peverify.oracle(10), "d-model"),
    ("complex64 without polar", lambda: peverify.oracle(10, d_model=8, dtype="complex64"),
     "--layout polar"),
    ("oracle past 2^53", lambda: peverify.oracle(10, d_model=8, start=(1 << 53)), "2^53"),
    ("unknown implementation", lambda: peverify.generate("cpu/nope", 10, d_model=8),
     "unknown implementation"),
    # The command line's checks, with its words (encoding/request.h; issue 25).
    ("negative start", lambda: peverify.oracle(10, d_model=8, start=-1), "--start must be >= 0"),
    ("negative threads", lambda: peverify.oracle(10, d_model=8, threads=-1),
     "--threads must be in 1..1024"),
    ("too many threads",
     lambda: peverify.verify(np.zeros((8, 8), np.float32), threads=100000),
     "--threads must be in 1..1024"),
]


@pytest.mark.parametrize("name,call,words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_value_error_with_one_line(name, call, words):
    with pytest.raises(ValueError) as e:
        call()
    message = str(e.value)
    assert words in message, message
    assert "\n" not in message


def test_a_large_array_is_read_in_place():
    table = peverify.oracle(32768, d_model=2048)  # 256 MiB of float32
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    verdict = peverify.verify(table)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert verdict, str(verdict)
    assert "exhaustive" in verdict.oracle_coverage
    assert grown < 64 * 1024, f"peak memory grew by {grown} KiB for a 256 MiB table"


def test_a_strided_view_is_read_from_a_copy_and_says_so():
    table = peverify.oracle(64, d_model=128)
    view = table[:, ::2]  # every other column: interleaved sin and cos become all sines
    assert not view.flags.c_contiguous
    verdict = peverify.verify(view, layout="rope-sin", d_model=128)
    assert "contiguous copy" in json.loads(verdict.to_json())["description"]
    assert verdict, str(verdict)


def test_the_gil_is_released_while_verifying():
    table = peverify.oracle(16384, d_model=512)
    counted = 0
    done = threading.Event()
    worker = threading.Thread(target=lambda: (peverify.verify(table), done.set()))
    worker.start()
    while not done.is_set():
        counted += 1
    worker.join()
    assert counted > 10000, f"the main thread ran only {counted} times while verify ran"
