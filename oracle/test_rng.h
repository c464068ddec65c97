// A reproducible random source for the oracle's tests.
#pragma once

#include <cstdint>
#include <random>

namespace pev::oracle {

// mt19937_64's sequence is fixed by the standard; the std:: distributions are not.
class TestRng {
 public:
  explicit TestRng(uint64_t seed) : engine_(seed) {}
  uint64_t below(uint64_t n) { return engine_() % n; }  // bias < n / 2^64: negligible here
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace pev::oracle
