// The oracle's batch interface: an engine evaluates the exact sin and cos of a tile of
// (positions x pairs) and rounds each once, correctly, to the requested format. Callers only see
// this interface, so a faster engine can replace the MPFR one without changing them.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

struct Tile {
  uint64_t first_position = 0;
  int position_count = 0;
  int first_pair = 0;
  int pair_count = 0;
};

// Row-major [position][pair]. `*_rounded` hold the correctly rounded value in the target format
// (exactly representable, widened to double); `*_exact` the exact value correctly rounded to
// double, which is what error measures compare against.
struct TileValues {
  std::vector<double> sin_rounded, cos_rounded, sin_exact, cos_exact;
  void resize(size_t n) {
    sin_rounded.resize(n);
    cos_rounded.resize(n);
    sin_exact.resize(n);
    cos_exact.resize(n);
  }
};

// How often each rung of the precision ladder was the one that decided an element. For the fast
// engine, rung 0 is its double-double evaluation and rung 1 the elements it handed to MPFR.
struct EngineStats {
  static constexpr int kRungs = 8;
  std::array<std::atomic<uint64_t>, kRungs> decided_at_rung{};
  std::atomic<uint64_t> handed_off{0};  // elements a fast engine passed to MPFR
  uint64_t total() const;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // Safe to call concurrently on distinct tiles.
  virtual void evaluate(const Tile& tile, TileValues& out) const = 0;
  EngineStats& stats() const { return stats_; }

 private:
  mutable EngineStats stats_;
};

// The MPFR engine for (d, base, schedule) with results rounded to `target`. The spec's layout and
// start do not matter to an engine: it works in (position, pair) coordinates.
std::unique_ptr<Engine> make_mpfr_engine(const TableSpec& spec, Dtype target);

// The fast engine (oracle/fast_engine.md): the same results bit for bit, ~200x faster. It evaluates
// each element in double-double with a proven error bound, rounds where the bound decides the
// rounding and hands the rest to an MPFR engine (counted in stats().handed_off).
std::unique_ptr<Engine> make_fast_engine(const TableSpec& spec, Dtype target);

enum class EngineKind { kFast, kMpfr };
std::unique_ptr<Engine> make_engine(EngineKind kind, const TableSpec& spec, Dtype target);
// "fast" and "mpfr", as the command line spells them; nullopt for an unknown name.
std::string_view name_of(EngineKind kind);
std::optional<EngineKind> parse_engine_kind(std::string_view name);

}  // namespace pev::oracle
