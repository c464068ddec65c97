// The cache of exact tables (PEV_ORACLE_CACHE, oracle/table.h): keyed by the oracle's version and
// the whole spec, recipe included, so that a stale or foreign entry is never served; and the
// version is the hash of every source that decides the oracle's values.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/table.h"
#include "peverify/oracle/version.h"

namespace pev::oracle {
namespace {

namespace fs = std::filesystem;

// PEV_ORACLE_CACHE pointed at a fresh directory for the test's lifetime.
class CacheDir {
 public:
  CacheDir() {
    std::string pattern = (fs::temp_directory_path() / "pev-cache-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    const char* old = std::getenv("PEV_ORACLE_CACHE");
    if (old) old_ = old;
    setenv("PEV_ORACLE_CACHE", dir_.c_str(), 1);
  }
  ~CacheDir() {
    if (old_.empty()) {
      unsetenv("PEV_ORACLE_CACHE");
    } else {
      setenv("PEV_ORACLE_CACHE", old_.c_str(), 1);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& path() const { return dir_; }

 private:
  std::string dir_, old_;
};

std::vector<double> truth(const TableSpec& spec, uint64_t count) {
  return compute_table(*make_mpfr_engine(spec, Dtype::kFloat64), spec, count, 1).exact;
}

// A cache file with the given header key and values.
void plant(const std::string& path, const std::string& key, const std::vector<double>& values) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << "peverify exact values v2\n" << key << "\n";
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * 8));
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](double x, double y) {
           return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
         });
}

TEST(ExactValuesCache, KeyCoversTheVersionAndEveryFieldOfTheSpec) {
  const TableSpec base = recipes::phi3_longrope(5000, 7);
  const std::string key = exact_values_cache_key(base, 10, "v");
  std::set<std::string> keys = {key};
  const std::vector<std::function<void(TableSpec&)>> changes = {
      [](TableSpec& s) { s.d_model += 2; },
      [](TableSpec& s) { s.base = std::nextafter(s.base, 1e9); },
      [](TableSpec& s) { s.layout = Layout::kRopeSinDup; },
      [](TableSpec& s) { s.start += 1; },
      [](TableSpec& s) { s.rope.type = RopeType::kDefault; },
      [](TableSpec& s) { s.rope.factor = 2; },
      [](TableSpec& s) { s.rope.original_max_position += 1; },
      [](TableSpec& s) { s.rope.max_position += 1; },
      [](TableSpec& s) { s.rope.sequence_length += 1; },
      [](TableSpec& s) { s.rope.beta_fast = 31; },
      [](TableSpec& s) { s.rope.beta_slow = 2; },
      [](TableSpec& s) { s.rope.truncate = false; },
      [](TableSpec& s) { s.rope.mscale = 1.0; },
      [](TableSpec& s) { s.rope.mscale_all_dim = 1.0; },
      [](TableSpec& s) { s.rope.attention_factor = 1.0; },
      [](TableSpec& s) { s.rope.low_freq_factor = 2; },
      [](TableSpec& s) { s.rope.high_freq_factor = 5; },
      [](TableSpec& s) { s.rope.short_factor[47] = std::nextafter(s.rope.short_factor[47], 9.0); },
      [](TableSpec& s) { s.rope.long_factor[0] = 3; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    TableSpec s = base;
    changes[i](s);
    EXPECT_TRUE(keys.insert(exact_values_cache_key(s, 10, "v")).second) << "change " << i;
  }
  EXPECT_TRUE(keys.insert(exact_values_cache_key(base, 11, "v")).second);
  EXPECT_TRUE(keys.insert(exact_values_cache_key(base, 10, "w")).second);
  EXPECT_NE(exact_values_cache_path("d", base, 10, "v"),
            exact_values_cache_path("d", base, 10, "w"));
}

TEST(ExactValuesCache, ServesOnlyItsOwnEntry) {
  const CacheDir cache;
  TableSpec spec = recipes::qwen25_yarn();
  spec.d_model = 16;
  spec.start = 1000;
  const uint64_t rows = 6;
  const std::vector<double> want = truth(spec, rows);
  ASSERT_TRUE(same_bits(exact_values(spec, rows, 1), want));
  const std::string path = exact_values_cache_path(cache.path(), spec, rows, oracle_version());
  ASSERT_TRUE(fs::exists(path));

  // The entry is read back: planted values under the current key are what comes out.
  const std::vector<double> planted(want.size(), 0.5);
  const std::string key = exact_values_cache_key(spec, rows, oracle_version());
  plant(path, key, planted);
  EXPECT_TRUE(same_bits(exact_values(spec, rows, 1), planted));

  // A stale entry (another oracle version) at the same path is recomputed and replaced.
  plant(path, exact_values_cache_key(spec, rows, std::string(64, '0')), planted);
  EXPECT_TRUE(same_bits(exact_values(spec, rows, 1), want));
  std::ifstream rewritten(path, std::ios::binary);
  std::string magic, header;
  std::getline(rewritten, magic);
  std::getline(rewritten, header);
  EXPECT_EQ(header, key) << "the stale entry was not replaced";

  // The plain table of the same grid never serves the recipe's (the old cache's hole).
  TableSpec plain = spec;
  plain.rope = RopeScaling{};
  plant(path, exact_values_cache_key(plain, rows, oracle_version()), planted);
  EXPECT_TRUE(same_bits(exact_values(spec, rows, 1), want));
  EXPECT_FALSE(same_bits(exact_values(plain, rows, 1), want));

  // A truncated entry is recomputed.
  std::vector<double> short_values(want.begin(), want.end() - 1);
  plant(path, key, short_values);
  EXPECT_TRUE(same_bits(exact_values(spec, rows, 1), want));
}

// The version is the hash of every oracle source but tests (and their tools), the Arb referee and
// benchmarks, and of the encoding sources that define the values (spec, recipes, formats).
TEST(OracleVersion, HashesEverySourceThatDecidesValues) {
  const std::string_view v = oracle_version();
  EXPECT_EQ(v.size(), 64u);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](char c) { return std::isxdigit(c); }));
  const auto& hashed = oracle_version_sources();
  const auto has = [&](const std::string& f) {
    return std::find(hashed.begin(), hashed.end(), f) != hashed.end();
  };
  int seen = 0;
  for (const auto& entry : fs::directory_iterator("oracle")) {
    const std::string name = entry.path().filename().string();
    const std::string ext = entry.path().extension().string();
    if (ext != ".cc" && ext != ".h") continue;
    const bool excluded =
        name.find("_test.cc") != std::string::npos || name.find("testutil") != std::string::npos ||
        name.find("_benchmark") != std::string::npos || name.rfind("arb_", 0) == 0 ||
        name == "test_rng.h" || name == "hard_cases_rows.cc";  // a tool that regenerates test data
    EXPECT_EQ(has("oracle/" + name), !excluded) << name;
    seen += !excluded;
  }
  EXPECT_GE(seen, 20);
  for (const char* f : {"encoding/spec.cc", "encoding/rope.cc", "encoding/format.h"})
    EXPECT_TRUE(has(f)) << f;
}

}  // namespace
}  // namespace pev::oracle
