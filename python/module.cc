// `import peverify`: the verifier inside Python tests, over the same C++ as the `peverify`
// command (docs/features.md §13). Bad arguments raise ValueError with the command line's one-line
// message; the C++ runs with the GIL released; a table is read in place whenever its memory
// allows.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstring>
#include <optional>
#include <string>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/registry_json.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/request.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"
#include "peverify/python/arguments.h"
#include "peverify/python/array_table.h"
#include "peverify/python/results.h"
#include "peverify/python/rotary.h"
#include "peverify/python/sinusoids.h"
#include "peverify/support/atomic_file.h"
#include "peverify/verify/verify.h"

namespace py = pybind11;

namespace pev::python {
namespace {

// An array of `rows` x `width` elements of `dtype` as NumPy returns them: float64, float32,
// float16, and bfloat16 as uint16 bit patterns (NumPy has no bfloat16).
py::array table_array(Dtype dtype, uint64_t rows, uint64_t width) {
  const std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(rows),
                                          static_cast<py::ssize_t>(width)};
  switch (dtype) {
    case Dtype::kFloat64:
      return py::array_t<double>(shape);
    case Dtype::kFloat32:
      return py::array_t<float>(shape);
    case Dtype::kFloat16:
      return py::array(py::dtype("float16"), shape);
    case Dtype::kBFloat16:
      return py::array_t<uint16_t>(shape);
  }
  throw std::logic_error("unknown dtype");
}

// oracle() and generate()'s `positions`: a count of rows from `start`, or the rows' position ids.
struct Rows {
  TableSpec spec;
  uint64_t count = 0;
  std::optional<RowPositions> ids;
};

Rows rows_of(const py::object& positions, const Arguments& args) {
  Rows r;
  if (py::isinstance<py::int_>(positions) && !py::isinstance<py::bool_>(positions)) {
    const int64_t n = positions.cast<int64_t>();
    r.spec = resolve_computed(table_request(args), n);
    r.count = static_cast<uint64_t>(n);
    return r;
  }
  if (args.start != 0) throw ConfigError("start and position ids both say where the rows are");
  r.ids = position_ids_of(positions);
  r.count = r.ids->rows();
  if (r.count == 0) throw ConfigError("positions holds no ids");
  r.spec = resolve_computed(table_request(args), static_cast<int64_t>(r.ids->max_position() + 1));
  if (auto err = validate_positions(*r.ids, r.spec, r.count))
    throw ConfigError("positions: " + *err);
  set_sequence_length(r.spec, *r.ids);
  return r;
}

py::array oracle_table(const Rows& rows, const std::string& dtype_name,
                       const std::string& engine_name, int threads) {
  const TableSpec& spec = rows.spec;
  const uint64_t positions = rows.count;
  const StoredType stored = resolve_stored(dtype_name, spec.layout);
  const Dtype dtype = stored.dtype;
  const auto engine_kind = oracle::parse_engine_kind(engine_name);
  if (!engine_kind) throw ConfigError("unknown engine '" + engine_name + "' (fast, mpfr)");
  const uint64_t columns = static_cast<uint64_t>(table_width(spec));
  // complex64: the polar layout's (cos, sin) float32 pairs, the same bytes as [N, d/2] complex.
  py::array out =
      stored.complex
          ? py::array_t<std::complex<float>>(std::vector<py::ssize_t>{
                static_cast<py::ssize_t>(positions), static_cast<py::ssize_t>(columns / 2)})
          : table_array(dtype, positions, columns);
  auto* data = static_cast<unsigned char*>(out.mutable_data());
  {
    py::gil_scoped_release release;
    const auto engine = oracle::make_engine(*engine_kind, spec, dtype);
    const size_t size = traits_of(dtype).storage_bits / 8;
    const uint64_t width = columns;
    // A block of rows at a time: the encodings pass through a buffer, never the whole table.
    const uint64_t block = std::max<uint64_t>(1, (uint64_t{1} << 20) / width);
    std::vector<uint64_t> bits;
    for (uint64_t first = 0; first < positions; first += block) {
      const uint64_t n = std::min(block, positions - first);
      bits.resize(n * width);
      if (rows.ids)
        oracle::rounded_encodings_at(*engine, spec, *rows.ids, first, n, dtype, bits.data(),
                                     threads);
      else
        oracle::rounded_encodings(*engine, spec, first, n, dtype, bits.data(), threads);
      for (size_t i = 0; i < bits.size(); ++i)  // the low bytes: little-endian
        std::memcpy(data + (first * width + i) * size, &bits[i], size);
    }
  }
  return out;
}

py::array generate_table(const std::string& name, const Rows& rows, int threads) {
  const core::Implementation* impl = core::find_implementation(name);
  if (!impl) throw ConfigError("unknown implementation '" + name + "' (see peverify.list())");
  if (impl->available && !impl->available())
    throw ConfigError(name + " cannot run here: " + std::string(impl->unavailable_reason));
  const TableSpec& spec = rows.spec;
  py::array out = table_array(impl->output, rows.count, static_cast<uint64_t>(table_width(spec)));
  void* data = out.mutable_data();
  {
    py::gil_scoped_release release;
    if (!rows.ids) {
      core::fill_rows(*impl, spec, rows.count, data, threads);
    } else {
      const core::GeneratedTable t = core::generate_at(*impl, spec, *rows.ids, threads);
      if (t.halves.empty())
        std::memcpy(data, t.floats.data(), t.floats.size() * sizeof(float));
      else
        std::memcpy(data, t.halves.data(), t.halves.size() * sizeof(uint16_t));
    }
  }
  return out;
}

verify::VerifyResult verify_array(const py::object& table, const Arguments& args,
                                  const std::optional<std::string>& dtype, int threads) {
  const auto [host, host_dtype] = host_array(table, dtype);
  ArrayTable a = array_table(host, host_dtype);
  const TableStream& t = *a.stream;
  const TableSpec spec = resolve_read(table_request(args), t.rows(), t.width(), t.complex());
  verify::VerifyOptions options;
  options.spec = spec;
  if (args.positions) {
    if (args.start != 0) throw ConfigError("start and positions both say where the rows are");
    if (auto err = validate_positions(*args.positions, spec, t.rows()))
      throw ConfigError("positions: " + *err);
    options.positions = args.positions;
    set_sequence_length(options.spec, *args.positions);
    options.positions_name = "positions";
  }
  options.source = rotary_source(table_request(args).rotary);
  options.other_layer_types = layer_type_specs(table_request(args).rotary, options.spec);
  if (args.model) options.head_dim = args.model->head_dim;
  options.claim = resolve_claim(claim_request(args));
  options.threads = threads;
  verify::TableInput input{
      "array",
      t.description() + (a.copied ? " (strided: read from a contiguous copy)" : ""),
      t.dtype(),
      t.rows(),
      [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); },
      {}};
  py::gil_scoped_release release;
  return verify::verify_table(std::move(input), options);
}

void def_verify(py::module_& m) {
  m.def(
      "verify",
      [](const py::object& table, const py::kwargs& kwargs) -> py::object {
        if (asks_for_sinusoid(kwargs)) return verify_sinusoid_array(table, kwargs);
        const Arguments args = arguments(kwargs, kVerify);
        return py::cast(verify_array(table, args, args.dtype, args.threads));
      },
      py::arg("table"),
      fmt::format(
          "verify(table, *, {0}) -> Verdict\n\nEvery property of `peverify verify` on an array "
          "([N, d], extra dimensions of size 1 allowed; complex for layout='polar'), read in "
          "place. A bfloat16 tensor: t.view(torch.int16).numpy() with dtype='bfloat16'. "
          "model_config: a dict (a transformers config's to_dict()), a path to a config.json or a "
          "preset's name; rope_scaling: a dict or JSON text. positions: the rows' integer "
          "position ids ([N]; [3, N] for M-RoPE), for rows that are not start, start + 1, ...: "
          "packed sequences, padding, a gathered batch.\n\nThe other sinusoidal tables (a "
          "SinusoidVerdict): timesteps=T with timestep_recipe= (a preset: {1}; or a dict of "
          "diffusers' names) for a diffusion timestep embedding; rope_axes= (a preset: {2}; or "
          "[16, 56, 56]) with positions= ([axes, N] ids, floats and negatives allowed) and "
          "layout= for multi-axis RoPE; alibi=True (alibi_max_bias=8) for ALiBi's slopes.",
          keyword_signature(kVerify), timestep_preset_names(), rope_axes_preset_names())
          .c_str());
  m.def(
      "assert_table",
      [](const py::object& table, const py::kwargs& kwargs) {
        const Arguments args = arguments(kwargs, kVerify);
        const verify::VerifyResult r = verify_array(table, args, args.dtype, args.threads);
        if (!r.holds()) {
          PyErr_SetString(PyExc_AssertionError, verify::to_text(r).c_str());
          throw py::error_already_set();
        }
      },
      py::arg("table"),
      "assert_table(table, **spec): verify(table, **spec), raising AssertionError with the "
      "verdict's text when it does not pass. For one-line use in pytest.");
}

void def_tables(py::module_& m) {
  m.def(
      "oracle",
      [](const py::object& positions, const py::kwargs& kwargs) {
        const Arguments args = arguments(kwargs, kOracle);
        return oracle_table(rows_of(positions, args), args.dtype.value_or("float32"), args.engine,
                            args.threads);
      },
      py::arg("positions"),
      fmt::format("oracle(positions, *, {}) -> numpy.ndarray\n\nThe exact table, each element "
                  "rounded once, correctly, to dtype (default float32; bfloat16 as uint16 bit "
                  "patterns; complex64, with layout='polar', as Meta's freqs_cis: [N, d/2] cos + "
                  "i sin). positions: a count of rows from start, or the rows' integer position "
                  "ids ([N]; [3, N] for M-RoPE).",
                  keyword_signature(kOracle))
          .c_str());
  m.def(
      "generate",
      [](const std::string& impl, const py::object& positions, const py::kwargs& kwargs) {
        const Arguments args = arguments(kwargs, kGenerate);
        return generate_table(impl, rows_of(positions, args), args.threads);
      },
      py::arg("impl"), py::arg("positions"),
      fmt::format("generate(impl, positions, *, {}) -> numpy.ndarray\n\nOne registry entry's "
                  "table, in its output type (bfloat16 as uint16 bit patterns). positions: a "
                  "count of rows from start, or the rows' integer position ids.",
                  keyword_signature(kGenerate))
          .c_str());
  m.def(
      "list", [] { return from_json(core::registry_json()); },
      "list() -> list\n\nEvery registry entry, as `peverify list --json` gives it.");
}

// Every bad input the command line answers with exit 2 is a ValueError here.
void translate_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const FileError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace
}  // namespace pev::python

PYBIND11_MODULE(peverify, m) {
  using namespace pev::python;
  m.doc() =
      "peverify: whether a sinusoidal positional-encoding or rotary cos/sin table is right, "
      "against its exact values (MPFR, correctly rounded), with the same checks as the "
      "`peverify` command.";
  translate_errors();
  bind_results(m);
  bind_rotary(m);
  bind_sinusoids(m);
  def_verify(m);
  def_tables(m);
}
