// The CUDA registry entries: every strategy on the device, accurate and fast math, float32 and
// native float16 / bfloat16 compute. Unavailable (and never filled) without a CUDA device; their
// accuracy is then modelled on the host (device_model.h), not measured.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "peverify/core/cuda/device_buffer.h"
#include "peverify/core/cuda/device_timing.h"
#include "peverify/core/cuda/launch.h"
#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/precise/frequencies.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/row_writer.h"

namespace pev::core {
namespace cuda {
namespace {

void check(cudaError_t e, const Implementation& self, const char* what) {
  cuda::check(e, self.name, what);
}

// Rows per launch: at most 256 MiB of table, and (anchored) at most 65534 anchor intervals, so
// that the segments, one more when the start is not on an anchor, fit the grid's y limit 65535.
constexpr size_t kChunkBytes = size_t{256} << 20;

// One entry's kernels for one spec: the request and its inputs in device memory (frequencies,
// longrope's factors, the precise strategy's double-double w), set up once for every launch.
// Callers check that a device is present first.
class Kernels {
 public:
  Kernels(const Implementation& self, const TableSpec& spec)
      : self_(self),
        row_bytes_(static_cast<size_t>(table_width(spec)) * element_size(self.output)),
        // The kernels' scratch (3 x d/2), then longrope's factors (d/2 doubles).
        scratch_(4 * static_cast<size_t>(spec.d_model / 2) * sizeof(double), self.name) {
    const int half = spec.d_model / 2;
    chunk_ = std::max<uint64_t>(1, kChunkBytes / row_bytes_);
    if (self.strategy == Strategy::kAnchored)
      chunk_ = std::min<uint64_t>(chunk_, 65534 * self.anchor_interval);
    r_.strategy = self.strategy;
    r_.compute = self.compute;
    r_.output = self.output;
    r_.d_model = spec.d_model;
    r_.width = table_width(spec);
    r_.schedule = spec.schedule;
    r_.layout = spec.layout;
    r_.base = strategy_base(spec);
    r_.step = -std::log(r_.base) / static_cast<double>(frequency_exponent(spec, 1).denominator);
    r_.anchor_interval = self.anchor_interval;
    r_.recipe = recipe_scalars(spec);
    r_.scratch = static_cast<float*>(scratch_.get());
    if (r_.recipe.ext_factors) {
      double* ext = static_cast<double*>(scratch_.get()) + 3 * half;
      check(cudaMemcpy(ext, r_.recipe.ext_factors, half * sizeof(double), cudaMemcpyHostToDevice),
            self, "cudaMemcpy");
      r_.recipe.ext_factors = ext;
    }
    if (self.strategy == Strategy::kPrecise) {
      const std::vector<precise::DoubleDouble> w = precise::double_double_frequencies(spec);
      std::vector<double> hi(half), lo(half);
      for (int k = 0; k < half; ++k) {
        hi[k] = w[k].hi;
        lo[k] = w[k].lo;
      }
      double* d = static_cast<double*>(scratch_.get());
      check(cudaMemcpy(d, hi.data(), half * sizeof(double), cudaMemcpyHostToDevice), self,
            "cudaMemcpy");
      check(cudaMemcpy(d + half, lo.data(), half * sizeof(double), cudaMemcpyHostToDevice), self,
            "cudaMemcpy");
      r_.w_hi = d;
      r_.w_lo = d + half;
      r_.recipe.attention = precise::attention_in_double(spec);
    }
  }
  size_t row_bytes() const { return row_bytes_; }
  uint64_t chunk() const { return chunk_; }

  // Launches the kernels that fill rows start .. start + count - 1 (count <= chunk()) into
  // `table`, device memory of count rows; asynchronous, on the default stream.
  void launch(void* table, uint64_t start, uint64_t count) {
    r_.table = table;
    r_.start = start;
    r_.count = count;
    const int e = self_.strategy == Strategy::kPrecise  ? run_precise(r_)
                  : self_.backend == Backend::kCudaFast ? run_fast(r_)
                                                        : run_accurate(r_);
    check(static_cast<cudaError_t>(e), self_, "kernel launch");
  }

 private:
  const Implementation& self_;
  size_t row_bytes_;
  DeviceBuffer scratch_;
  uint64_t chunk_ = 1;
  Request r_;
};

void fill(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  if (!device_present()) throw std::runtime_error(self.name + ": no CUDA device");
  if (count == 0) return;
  Kernels kernels(self, spec);
  const uint64_t chunk = std::min(kernels.chunk(), count);
  DeviceBuffer table(chunk * kernels.row_bytes(), self.name);
  for (uint64_t done = 0; done < count; done += chunk) {
    const uint64_t n = std::min(chunk, count - done);
    kernels.launch(table.get(), spec.start + done, n);
    check(cudaMemcpy(static_cast<char*>(out) + done * kernels.row_bytes(), table.get(),
                     n * kernels.row_bytes(), cudaMemcpyDeviceToHost),
          self, "kernel");
  }
}

}  // namespace

std::vector<double> time_table_kernels(const Implementation& e, const TableSpec& spec,
                                       uint64_t rows, int repetitions) {
  if (e.device != Device::kCuda) throw std::runtime_error(e.name + " is not a CUDA entry");
  if (!device_present()) throw std::runtime_error(e.name + ": no CUDA device");
  Kernels kernels(e, spec);
  DeviceBuffer table(rows * kernels.row_bytes(), e.name);
  return time_repetitions(e.name, repetitions, [&] {
    for (uint64_t done = 0; done < rows; done += kernels.chunk())
      kernels.launch(static_cast<char*>(table.get()) + done * kernels.row_bytes(),
                     spec.start + done, std::min(kernels.chunk(), rows - done));
  });
}

namespace {

// The claims' constants (docs/mathematics.md §3.2), from the documented bounds of device_model.h,
// for bases up to the limits' max_base (10^6). In units of u of the compute type, the angle's
// relative error is at most:
//   logspace, accurate: c = fl(-ln b / d) and fl(2k c) cost 2u, which exp amplifies by
//     |2k c| <= ln b; expf 2 ulp (4u); pos * w u: 2 ln b + 5 = 32.7 at b = 1e6;
//   pow, accurate: fl(2k/d) costs u |2k/d ln b| <= u ln b; powf 4 ulp (8u); pos / den u:
//     ln b + 9 = 22.9;
// and sincosf adds 2 ulp <= 4u |value|. So C = 36 (cuda_accurate in encoding/claims.json).
//   fast: __expf 2 + floor(1.173 |x|) = 18 ulp (36u) for |x| <= ln b: 2 ln b + 37 = 64.6;
//   __powf: __log2f 2 ulp (4u of log2 b), the product and the exponent (u each): 6u ln b;
//     exp2f 2 ulp (4u), __fdividef 2 ulp (4u): 6 ln b + 8 = 90.9; so C = 96 (cuda_fast).
// __sinf and __cosf are documented only absolutely (2^-21.41, 2^-21.19 on [-pi, pi]): the fast
// claims take them to keep a relative error near zero and beyond pi as well, which the
// documentation does not give. core/cuda/device_model_test.cc checks, on the host model, that
// the accurate and precise entries meet their claims and the fast ones meet theirs plus that
// absolute floor over the documented range; a device run decides the rest.
// The rotations add about 2u per step plus the error of sin w, cos w, inside the same C via the
// claim's `steps` term. Where the claims hold is claims.json's `limits`, as on the CPU
// (apply_model_limits; the precise kernel's positions as the CPU's precise strategy's).

std::string mirrors(const Implementation& e) {
  switch (e.strategy) {
    case Strategy::kPow:
      return "pos / pow(b, 2k/d)";
    case Strategy::kLogspace:
      return "PyTorch: pos * exp(2k * (-ln b / d))";
    case Strategy::kRecurrence:
      return "PE_{p+1} = M_1 PE_p from PE_0";
    case Strategy::kAnchored:
      return "direct row every " + std::to_string(e.anchor_interval) +
             " positions, M_1 rotations between";
    case Strategy::kPrecise:
      return "ours: double-double w, every element direct in double, rounded once";
  }
  return "";
}

std::string describe(const Implementation& e) {
  std::string d = mirrors(e);
  if (e.strategy != Strategy::kPrecise) {
    d += e.compute == Dtype::kFloat32   ? " in float32"
         : e.compute == Dtype::kFloat16 ? " with every op rounded to float16"
                                        : " with every op rounded to bfloat16";
    const bool fast = e.backend == Backend::kCudaFast;
    if (e.strategy == Strategy::kPow)
      d += fast ? " (__sincosf, __powf, __fdividef)" : " (sincosf, powf)";
    else
      d += fast ? " (__sincosf, __expf)" : " (sincosf, expf)";
  }
  return d + " on the device; " + modelled_text(e);
}

}  // namespace
}  // namespace cuda

void add_cuda_entries(std::vector<Implementation>& out) {
  struct Combination {
    Strategy strategy;
    Dtype compute, output;
  };
  const Combination direct_and_rotation[] = {
      {Strategy::kPow, Dtype::kFloat32, Dtype::kFloat32},
      {Strategy::kPow, Dtype::kFloat32, Dtype::kFloat16},
      {Strategy::kPow, Dtype::kFloat32, Dtype::kBFloat16},
      {Strategy::kPow, Dtype::kFloat16, Dtype::kFloat16},
      {Strategy::kPow, Dtype::kBFloat16, Dtype::kBFloat16},
      {Strategy::kLogspace, Dtype::kFloat32, Dtype::kFloat32},
      {Strategy::kLogspace, Dtype::kFloat32, Dtype::kFloat16},
      {Strategy::kLogspace, Dtype::kFloat32, Dtype::kBFloat16},
      {Strategy::kLogspace, Dtype::kFloat16, Dtype::kFloat16},
      {Strategy::kLogspace, Dtype::kBFloat16, Dtype::kBFloat16},
      {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kFloat32},
      {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kFloat16},
      {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kBFloat16},
      {Strategy::kRecurrence, Dtype::kFloat16, Dtype::kFloat16},
      {Strategy::kRecurrence, Dtype::kBFloat16, Dtype::kBFloat16},
      {Strategy::kAnchored, Dtype::kFloat32, Dtype::kFloat32},
      {Strategy::kAnchored, Dtype::kFloat32, Dtype::kFloat16},
      {Strategy::kAnchored, Dtype::kFloat32, Dtype::kBFloat16},
  };
  std::vector<Implementation> added;
  for (Backend backend : {Backend::kCudaAccurate, Backend::kCudaFast}) {
    for (const Combination& c : direct_and_rotation) {
      Implementation e;
      e.device = Device::kCuda;
      e.strategy = c.strategy;
      e.compute = c.compute;
      e.output = c.output;
      e.backend = backend;
      e.claim = Claim::model(c.compute,
                             backend == Backend::kCudaFast ? claim_constants().cuda_fast_c
                                                           : claim_constants().cuda_accurate_c,
                             claim_constants().nearest_output_ulps);
      apply_model_limits(e);
      added.push_back(e);
    }
  }
  for (Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    Implementation e;
    e.device = Device::kCuda;
    e.strategy = Strategy::kPrecise;
    e.compute = Dtype::kFloat64;
    e.output = output;
    e.backend = Backend::kCudaAccurate;
    e.claim = Claim::faithful();
    e.max_position = claim_constants().limits.precise_max_position;
    added.push_back(e);
  }
  for (Implementation& e : added) {
    e.name = entry_name(e);  // the description's recorded model is looked up by name
    e.flags = std::string(PEV_CUDA_FLAGS) +
              (e.strategy == Strategy::kPrecise ? "; double, explicit FMA only"
               : e.backend == Backend::kCudaFast
                   ? "; intrinsics __sincosf/__expf/__powf/__fdividef called explicitly"
                   : "; CUDA math library sincosf/expf/powf, correctly rounded division");
    e.description = cuda::describe(e);
    e.recipes = every_recipe();
    e.fill = cuda::fill;
    e.available = cuda::device_present;
    e.unavailable_reason = "no CUDA device";
    out.push_back(std::move(e));
  }
}

}  // namespace pev::core
