// The published bugs that live in a cos/sin cache (bugs/README.md), each built as its report
// describes, declared as the user meant it: verify fails and the diagnosis names the cause; the
// same cache built with the fix passes. Caches in vLLM's cos_sin_cache layout (every cos, then
// every sin), so that the read-back has both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "corpus.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/verify/framework_cache_testutil.h"

namespace pev::bugs {
namespace {

constexpr Layout kLayout = Layout::kRopeCosSin;

TableSpec preset(const char* name, uint64_t rows, const char* layer_type = "") {
  return spec_of(*model_preset(name, layer_type), kLayout, 0, rows);
}

// The buggy cache fails with `cause`; the fixed one passes.
void expect_named(const VerifyResult& buggy, const VerifyResult& fixed, const std::string& cause) {
  EXPECT_TRUE(fixed.holds()) << to_text(fixed);
  ASSERT_FALSE(buggy.holds());
  ASSERT_TRUE(buggy.diagnosis) << to_text(buggy);
  EXPECT_EQ(buggy.diagnosis->cause, cause) << to_text(*buggy.diagnosis);
}

VerifyResult built_as(const Built& b, uint64_t rows, const TableSpec& declared,
                      const std::string& source = "") {
  return verify_cache(cache(b, rows, kLayout), declared, source);
}

// vllm#27722, sglang#14270: gpt-oss declares YaRN's truncate: false; the range was rounded.
TEST(TableBugs, Vllm27722YarnRangeRoundedDespiteTruncateFalse) {
  const TableSpec declared = preset("gpt-oss-20b", 8192);
  ASSERT_FALSE(declared.rope.truncate);
  Built bug{declared};
  bug.spec.rope.truncate = true;
  expect_named(built_as(bug, 8192, declared, "gpt-oss-20b"),
               built_as(Built{declared}, 8192, declared, "gpt-oss-20b"), "recipe-parameters");
}

// torchtitan#3787: beta_fast and beta_slow swapped.
TEST(TableBugs, Torchtitan3787BetasSwapped) {
  const TableSpec declared = preset("qwen2.5-7b-yarn", 8192);
  Built bug{declared};
  std::swap(bug.spec.rope.beta_fast, bug.spec.rope.beta_slow);
  expect_named(built_as(bug, 8192, declared), built_as(Built{declared}, 8192, declared),
               "recipe-parameters");
}

// tvm#18576: linear interpolation written 1/(s b)^(2j/d) for 1/(s b^(2j/d)).
TEST(TableBugs, Tvm18576InterpolationOverTheBase) {
  TableSpec declared = grid_spec(128, 1e4);
  declared.layout = kLayout;
  declared.rope.type = RopeType::kLinear;
  declared.rope.factor = 4;
  Built bug{grid_spec(128, 4e4)};
  expect_named(built_as(bug, 8192, declared), built_as(Built{declared}, 8192, declared),
               "recipe-formula");
}

// MarinFold#184, vllm#56066, DeepSpeed#8345: transformers 5's rope_parameters not read, the base
// and the recipe both defaults.
TEST(TableBugs, MarinFold184RopeParametersNotRead) {
  const TableSpec declared = preset("llama-3.1-8b", 8192);
  expect_named(built_as(Built{grid_spec(128, 1e4)}, 8192, declared, "llama-3.1-8b"),
               built_as(Built{declared}, 8192, declared, "llama-3.1-8b"),
               "rope-parameters-not-read");
}

// transformers#38224: s replaced by L / L0, 1 for configs with L = L0: YaRN did nothing.
TEST(TableBugs, Transformers38224YarnFactorOne) {
  const TableSpec declared = preset("qwen2.5-7b-yarn", 8192);
  TableSpec nothing = declared;
  nothing.rope = RopeScaling{};
  expect_named(built_as(Built{nothing}, 8192, declared), built_as(Built{declared}, 8192, declared),
               "recipe");
}

// exllamav3#259: with mscale = mscale_all_dim = 1 Hugging Face's attention factor is 1; an
// implementation that took 0.1 ln s + 1 scales every value.
TEST(TableBugs, Exllamav3_259AttentionFactorOfTheWrongFormula) {
  TableSpec declared = preset("deepseek-v3", 4096);
  declared.rope.mscale = declared.rope.mscale_all_dim = 1.0;
  ASSERT_EQ(attention_factor(declared), 1.0);
  Built bug{declared};
  bug.amplitude = 0.1 * std::log(declared.rope.factor) + 1;
  expect_named(built_as(bug, 4096, declared), built_as(Built{declared}, 4096, declared),
               "amplitude");
}

// transformers#32330: the llama3 recipe returned theta unchanged.
TEST(TableBugs, Transformers32330Llama3Unscaled) {
  const TableSpec declared = preset("llama-3.1-8b", 8192);
  TableSpec unscaled = declared;
  unscaled.rope = RopeScaling{};
  expect_named(built_as(Built{unscaled}, 8192, declared), built_as(Built{declared}, 8192, declared),
               "recipe");
}

// candle#3520: Qwen2's positions in bfloat16, collapsing past 256.
TEST(TableBugs, Candle3520BFloat16Positions) {
  const TableSpec declared = preset("qwen2.5-7b-yarn", 4096);
  Built bug{declared};
  bug.positions = rounded_positions(4096, 8);
  expect_named(built_as(bug, 4096, declared), built_as(Built{declared}, 4096, declared),
               "position-grid");
}

// The angles' matmul in TF32 (torch.backends.cuda.matmul.allow_tf32): positions and inv_freq
// both rounded to 11 significant bits before their product.
TEST(TableBugs, AnglesMatmulInTF32) {
  TableSpec declared = grid_spec(128, 5e5);
  declared.layout = kLayout;
  Built bug{declared};
  bug.product_bits = 11;
  expect_named(built_as(bug, 16384, declared), built_as(Built{declared}, 16384, declared),
               "position-grid");
}

// Whisper's encoder table (openai/whisper sinusoids: inv_timescales exp(-log(1e4) / (C/2 - 1) k),
// [sin | cos]) declared with the paper's schedule: named as the schedule, never as a bfloat16
// computation it is not.
TEST(TableBugs, WhisperTableDeclaredWithThePapersSchedule) {
  TableSpec whisper = grid_spec(384, 1e4);
  whisper.layout = Layout::kHalves;
  const int half = 192;
  std::vector<double> v(1500 * 384);
  for (uint64_t p = 0; p < 1500; ++p)
    for (int k = 0; k < half; ++k) {
      const float inv = std::exp(-static_cast<float>(std::log(1e4) / (half - 1)) * float(k));
      const float angle = static_cast<float>(p) * inv;
      v[p * 384 + k] = std::sin(angle);
      v[p * 384 + half + k] = std::cos(angle);
    }
  TableSpec t2t = whisper;
  t2t.schedule = Schedule::kT2T;
  const VerifyResult declared_paper = verify_cache(v, whisper);
  expect_named(declared_paper, verify_cache(v, t2t), "schedule");
  EXPECT_EQ(declared_paper.diagnosis->matches, std::vector<std::string>{"--schedule t2t"});
}

// transformers#29496: inv_freq rounded to bfloat16 before the angles.
TEST(TableBugs, Transformers29496InvFreqInBFloat16) {
  TableSpec declared = grid_spec(128, 1e4);
  declared.layout = kLayout;
  const std::vector<double> v = verify::testutil::framework_cache(
      declared, 8192, Dtype::kFloat32, verify::testutil::Bug::kBFloat16InvFreq);
  expect_named(verify_cache(v, declared), built_as(Built{declared}, 8192, declared),
               "frequency-dtype");
}

// cactus#688: the angles in float16 (wrong past ~6k): a float16 computation, named as one.
TEST(TableBugs, Cactus688AnglesInFloat16) {
  TableSpec declared = grid_spec(128, 1e4);
  declared.layout = kLayout;
  Built bug{declared};
  bug.angle_bits = 11;
  const VerifyResult r = built_as(bug, 8192, declared);
  expect_named(r, built_as(Built{declared}, 8192, declared), "compute");
  EXPECT_EQ(r.diagnosis->matches, std::vector<std::string>{"--compute float16"});
}

// A llama.cpp-style Llama 3.1 cache (ggml's recurrence over pairs, the rope_freqs factors) at
// 131072 positions passes float32's model, whose budget there is past 0.1: the verdict's first
// lines say where its error stands, several times float32 at its best on the recipe, where Hugging
// Face's float32 cache is near it.
TEST(TableBugs, LlamaCppCachePassesAndSaysItsErrorIsSeveralTimesFloat32AtItsBest) {
  const TableSpec declared = preset("llama-3.1-8b", 131072);
  const VerifyResult ggml = verify_cache(ggml_cache(declared, 131072, llama3_rope_freqs(declared)),
                                         declared, "llama-3.1-8b");
  ASSERT_TRUE(ggml.holds()) << to_text(ggml);
  const VerifyResult hf = built_as(Built{declared}, 131072, declared, "llama-3.1-8b");
  ASSERT_TRUE(hf.holds()) << to_text(hf);
  const auto figures = [](const VerifyResult& r) {
    const auto& g = *std::find_if(r.verdicts.begin(), r.verdicts.end(),
                                  [](const auto& v) { return v.property == "growth"; });
    return std::pair(g.figures.at("fitted_c"), g.figures.at("float32_best_c"));
  };
  const auto [ggml_c, best_c] = figures(ggml);
  const auto [hf_c, hf_best_c] = figures(hf);
  EXPECT_EQ(best_c, hf_best_c);  // one recipe, one best
  EXPECT_GT(ggml_c, 5 * best_c);
  EXPECT_LT(hf_c, 2 * best_c);
  const std::string text = to_text(ggml);
  const std::string second_line =
      text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1);
  EXPECT_NE(second_line.find("this table's error is"), std::string::npos) << text;
  EXPECT_EQ(to_text(hf).find("this table's error is"), std::string::npos) << to_text(hf);
}

// airllm#369: the MLX Llama path never copied rope_theta, so Llama 3.x ran at the default base
// 10000 with its llama3 recipe (the recipe read, the base not).
TEST(TableBugs, Airllm369LlamaAtTheDefaultBase) {
  const TableSpec declared = preset("llama-3.1-8b", 8192);
  Built bug{declared};
  bug.spec.base = 1e4;
  expect_named(built_as(bug, 8192, declared, "llama-3.1-8b"),
               built_as(Built{declared}, 8192, declared, "llama-3.1-8b"), "base");
}

// vllm#29111: a Gemma 3 regression gave the sliding-window layers the global layers' rotary
// (base 1e6, linear 8) where they take the local base 10000 and no scaling.
TEST(TableBugs, Vllm29111GemmaSlidingLayersWithTheGlobalRotary) {
  const TableSpec sliding = preset("gemma-3-27b-it", 8192, "sliding_attention");
  const TableSpec global = preset("gemma-3-27b-it", 8192, "full_attention");
  const std::vector<std::pair<std::string, TableSpec>> other = {{"full_attention", global}};
  const auto judged = [&](const TableSpec& built) {
    return verify_cache(cache(Built{built}, 8192, kLayout), sliding, "gemma-3-27b-it", {}, other);
  };
  expect_named(judged(global), judged(sliding), "layer-type");
}

// mlx-vlm#1709, mlxcel#1340: Gemma 3's global layers ignored rope_scaling {linear, factor 8}.
TEST(TableBugs, MlxVlm1709GemmaGlobalLayersUnscaled) {
  const TableSpec declared = preset("gemma-3-27b-it", 8192, "full_attention");
  TableSpec unscaled = declared;
  unscaled.rope = RopeScaling{};
  expect_named(built_as(Built{unscaled}, 8192, declared, "gemma-3-27b-it"),
               built_as(Built{declared}, 8192, declared, "gemma-3-27b-it"), "recipe");
}

// flashinfer#3819: Wan's sinusoidal table concatenated [cos | sin] before the flip, where
// [sin | cos] (tensor2tensor's halves) was meant.
TEST(TableBugs, Flashinfer3819CosBeforeSin) {
  TableSpec declared = grid_spec(256, 1e4);
  declared.layout = Layout::kHalves;
  TableSpec built = declared;
  built.layout = Layout::kRopeCosSin;  // every cos, then every sin
  Built bug{built}, fixed{declared};
  expect_named(verify_cache(cache(bug, 4096, Layout::kRopeCosSin), declared),
               verify_cache(cache(fixed, 4096, Layout::kHalves), declared), "layout");
}

// Not a published report, a declaration slip: a Llama 3.1 cache (the llama3 recipe applied)
// declared by its base alone, no config. The recipe's low pairs differ by up to its factor 8 and
// no base or linear factor fits them: the cause is the frequencies themselves, pair by pair.
TEST(TableBugs, Llama31CacheDeclaredByItsBaseAlone) {
  const TableSpec llama = preset("llama-3.1-8b", 8192);
  TableSpec declared = grid_spec(128, 5e5);
  declared.layout = kLayout;
  const VerifyResult r = built_as(Built{llama}, 8192, declared);
  expect_named(r, built_as(Built{declared}, 8192, declared), "frequencies");
  EXPECT_NE(r.diagnosis->detail.find("pair"), std::string::npos) << r.diagnosis->detail;
}

// Issue 34's corruption: +3e-3 on one element of an honest cache. No declaration is guessed for
// one element: isolated, with the element.
TEST(TableBugs, OneCorruptedElementIsIsolated) {
  const TableSpec declared = preset("llama-3.1-8b", 8192);
  std::vector<double> corrupted = cache(Built{declared}, 8192, kLayout);
  corrupted[3000 * 128 + 10] += 3e-3;
  const VerifyResult r = verify_cache(corrupted, declared, "llama-3.1-8b");
  expect_named(r, built_as(Built{declared}, 8192, declared, "llama-3.1-8b"), "isolated");
  EXPECT_NE(r.diagnosis->detail.find("pos 3000 dim 10"), std::string::npos) << r.diagnosis->detail;
}

// torchtitan#2849's positions modulo the sequence length, in Hugging Face's sin cache: alone, a sin
// cache gives the read-back no cos, so nothing of the positions reads back; beside its cos cache
// (`verify SIN` with the cos as its companion, as `verify COS --sin SIN` judges it) every row's
// position reads back and the cause is named.
TEST(TableBugs, ASinCacheReadsBackBesideItsCos) {
  TableSpec declared = grid_spec(128, 1e4);
  declared.layout = Layout::kRopeSinDup;
  Built bug{declared};
  for (uint64_t r = 0; r < 8192; ++r) bug.positions.push_back(r % 1024);
  const std::vector<double> sin = cache(bug, 8192, Layout::kRopeSinDup);
  const std::vector<double> cos = cache(bug, 8192, Layout::kRopeCosDup);
  const auto judged = [&](const std::vector<double>& values, const std::vector<double>* cos) {
    verify::VerifyOptions o;
    o.spec = declared;
    set_sequence_length(o.spec, consecutive_positions(o.spec, 8192));
    o.claim = Claim::model(Dtype::kFloat32);
    o.threads = 2;
    if (cos)
      o.companion = verify::CompanionTable{
          "cos.npy", Layout::kRopeCosDup,
          [cos](uint64_t row, double* out) { std::copy_n(cos->begin() + row * 128, 128, out); }};
    return verify::verify_table({"sin.npy", "built in the test", Dtype::kFloat32, 8192, {}, values},
                                o);
  };
  const VerifyResult alone = judged(sin, nullptr);
  ASSERT_TRUE(alone.diagnosis);
  EXPECT_NE(alone.diagnosis->cause, "positions-modulo");
  const std::vector<double> fixed_sin = cache(Built{declared}, 8192, Layout::kRopeSinDup);
  const std::vector<double> fixed_cos = cache(Built{declared}, 8192, Layout::kRopeCosDup);
  expect_named(judged(sin, &cos), judged(fixed_sin, &fixed_cos), "positions-modulo");
}

}  // namespace
}  // namespace pev::bugs
