// All 2^32 floats, on every compiled SIMD target, against the oracle (label `exhaustive`). The
// oracle decides each float once (0.1-0.15 us); every target's row, the same floats widened to
// double through the double rows (rounding to odd leaves them alone), and the scalar function,
// must give the same bits as its verdict. About 24 CPU-minutes in all: 12 minutes on 2 idle cores.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "peverify/core/convert.h"
#include "peverify/crosscheck/convert_testutil.h"

namespace pev::core {
namespace {

using testutil::describe;

constexpr uint64_t kAll = uint64_t{1} << 32;
constexpr uint64_t kChunk = uint64_t{1} << 22;  // 1024 chunks; progress every 64
constexpr int kShown = 10;                      // failures printed in full

enum class Check { kOracle, kTruncation };

struct Tally {
  std::mutex mutex;
  uint64_t wrong = 0;   // the best target or the scalar function disagrees with the reference
  uint64_t differ = 0;  // another target, or a double row, disagrees with the best target
  std::vector<std::string> shown;

  void add(uint64_t w, uint64_t d, std::vector<std::string>& messages) {
    std::lock_guard lock(mutex);
    wrong += w, differ += d;
    for (auto& m : messages) {
      if (shown.size() < kShown) shown.push_back(std::move(m));
    }
  }
};

uint16_t scalar(float x, Dtype format, Conversion conversion) {
  if (format == Dtype::kFloat16) return f16_from_f32(x);
  return conversion == Conversion::kTruncate ? bf16_from_f32_truncate(x) : bf16_from_f32(x);
}

void check_every_float(Dtype format, Conversion conversion, Check check) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();  // best first
  ASSERT_FALSE(targets.empty());
  const char* name = format == Dtype::kFloat16             ? "float16"
                     : conversion == Conversion::kTruncate ? "bfloat16 (truncate)"
                                                           : "bfloat16";
  fmt::print("{}: every float on", name);
  for (const int64_t t : targets) fmt::print(" {}", hwy::TargetName(t));
  fmt::print("\n");

  std::vector<float> in(kChunk);
  std::vector<double> wide(kChunk);
  std::vector<std::vector<uint16_t>> out(targets.size(), std::vector<uint16_t>(kChunk));
  std::vector<std::vector<uint16_t>> out_wide(targets.size(), std::vector<uint16_t>(kChunk));
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t base = 0; base < kAll; base += kChunk) {
    for (uint64_t i = 0; i < kChunk; ++i) {
      in[i] = std::bit_cast<float>(static_cast<uint32_t>(base + i));
      wide[i] = in[i];
    }
    // The target is process-wide: switch it only while no thread converts.
    for (size_t t = 0; t < targets.size(); ++t) {
      hwy::SetSupportedTargetsForTest(targets[t]);
      testutil::parallel_for(kChunk, [&](size_t begin, size_t end) {
        convert_row(in.data() + begin, end - begin, format, conversion, out[t].data() + begin);
        convert_row(wide.data() + begin, end - begin, format, conversion,
                    out_wide[t].data() + begin);
      });
    }
    hwy::SetSupportedTargetsForTest(0);  // back to the best target, for the scalar functions

    testutil::parallel_for(kChunk, [&](size_t begin, size_t end) {
      testutil::OracleRounding oracle;
      uint64_t wrong = 0, differ = 0;
      std::vector<std::string> messages;
      for (size_t i = begin; i < end; ++i) {
        const float x = in[i];
        const uint16_t got = out[0][i];
        bool ok;
        std::string expected;
        if (check == Check::kTruncation) {
          ok = got == std::bit_cast<uint32_t>(x) >> 16;
        } else if (std::isnan(x)) {
          ok = testutil::is_quiet_nan(got, format);
          expected = "a quiet NaN";
        } else {
          const uint16_t e = oracle.expected(x, format);
          ok = got == e;
          expected = fmt::format("0x{:04x}", e);
        }
        const uint16_t one = scalar(x, format, conversion);
        if (!ok || one != got) {
          ++wrong;
          if (messages.size() < kShown)
            messages.push_back(fmt::format("{}: {} row 0x{:04x}, scalar 0x{:04x}, expected {}",
                                           describe(x), hwy::TargetName(targets[0]), got, one,
                                           expected));
        }
        for (size_t t = 0; t < targets.size(); ++t) {
          if (t > 0 && out[t][i] != got) {
            ++differ;
            if (messages.size() < kShown)
              messages.push_back(fmt::format("{}: {} gives 0x{:04x}, {} 0x{:04x}", describe(x),
                                             hwy::TargetName(targets[t]), out[t][i],
                                             hwy::TargetName(targets[0]), got));
          }
          if (out_wide[t][i] != got) {
            ++differ;
            if (messages.size() < kShown)
              messages.push_back(
                  fmt::format("{} as a double: {} gives 0x{:04x}, as a float 0x{:04x}", describe(x),
                              hwy::TargetName(targets[t]), out_wide[t][i], got));
          }
        }
      }
      tally.add(wrong, differ, messages);
    });

    const uint64_t done = base + kChunk;
    if (done % (64 * kChunk) == 0) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("{}: {:5.1f}% of 2^32 in {:.0f} s (~{:.0f} s to go), {} wrong, {} differ\n", name,
                 100.0 * static_cast<double>(done) / kAll, s,
                 s * static_cast<double>(kAll - done) / static_cast<double>(done), tally.wrong,
                 tally.differ);
      std::fflush(stdout);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("{}: 2^32 floats x {} targets checked in {:.1f} s\n", name, targets.size(), seconds);
  ::testing::Test::RecordProperty("seconds", std::to_string(seconds));
  for (const std::string& m : tally.shown) ADD_FAILURE() << m;
  EXPECT_EQ(tally.wrong, 0u);
  EXPECT_EQ(tally.differ, 0u);
}

TEST(ConvertExhaustive, Float16EveryFloatEveryTargetMatchesOracle) {
  check_every_float(Dtype::kFloat16, Conversion::kNearestEven, Check::kOracle);
}

TEST(ConvertExhaustive, BFloat16EveryFloatEveryTargetMatchesOracle) {
  check_every_float(Dtype::kBFloat16, Conversion::kNearestEven, Check::kOracle);
}

TEST(ConvertExhaustive, BFloat16TruncateEveryFloatEveryTargetDropsTheLow16Bits) {
  check_every_float(Dtype::kBFloat16, Conversion::kTruncate, Check::kTruncation);
}

}  // namespace
}  // namespace pev::core
