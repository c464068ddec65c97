// The published bugs that live in a RoPE kernel's API (bugs/README.md), each built as its report
// describes (q before and after the kernel, [batch, seq, heads, head_dim], float32), declared as
// the user meant it: verify-rotary fails and the diagnosis names the cause from what the output
// reads back as; the kernel with the fix passes.
#include <gtest/gtest.h>

#include "corpus.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"

namespace pev::bugs {
namespace {

void expect_named(const VerifyRotaryResult& buggy, const VerifyRotaryResult& fixed,
                  const std::string& cause) {
  EXPECT_TRUE(fixed.holds()) << to_text(fixed);
  ASSERT_FALSE(buggy.holds());
  ASSERT_TRUE(buggy.diagnosis) << to_text(buggy);
  EXPECT_EQ(buggy.diagnosis->cause, cause) << to_text(*buggy.diagnosis);
}

TableSpec plain(int d = 64, double base = 1e4) { return grid_spec(d, base); }

// Each batch row from its own offset: row b at 1000 b + its sequence index.
std::vector<uint64_t> prefill_positions(uint64_t batch, uint64_t seq) {
  std::vector<uint64_t> p;
  for (uint64_t b = 0; b < batch; ++b)
    for (uint64_t s = 0; s < seq; ++s) p.push_back(1000 * b + s);
  return p;
}

// Liger#464: every sample rotated with batch row 0's cos/sin.
TEST(RotationBugs, Liger464EveryRowWithBatchRowZerosPositions) {
  const std::vector<uint64_t> declared = prefill_positions(4, 64);
  Built bug{plain()}, fixed{plain()};
  fixed.positions = declared;
  for (uint64_t t = 0; t < declared.size(); ++t) bug.positions.push_back(declared[t % 64]);
  expect_named(verify_rotation(rotate(bug, 4, 64, 2, 64), plain(), declared),
               verify_rotation(rotate(fixed, 4, 64, 2, 64), plain(), declared), "batch-row-0");
}

// mlx-vlm#1983: every decoded token at position 0.
TEST(RotationBugs, MlxVlm1983DecodeAtPositionZero) {
  const std::vector<uint64_t> declared = {5, 17, 100, 731, 2048, 4095, 9000, 12345};
  Built bug{plain()}, fixed{plain()};
  bug.positions.assign(declared.size(), 0);
  fixed.positions = declared;
  expect_named(verify_rotation(rotate(bug, 8, 1, 4, 64), plain(), declared),
               verify_rotation(rotate(fixed, 8, 1, 4, 64), plain(), declared), "one-position");
}

// OLMo-core#591, torchtitan#2559: packed documents rotated at their global positions where each
// restarts.
TEST(RotationBugs, OlmoCore591PackedDocumentsAtGlobalPositions) {
  std::vector<uint64_t> declared;  // documents of 300, 700 and 1048 tokens in one row
  for (const uint64_t n : {300, 700, 1048})
    for (uint64_t i = 0; i < n; ++i) declared.push_back(i);
  Built bug{plain()}, fixed{plain()};
  fixed.positions = declared;
  expect_named(verify_rotation(rotate(bug, 1, 2048, 2, 64), plain(), declared),
               verify_rotation(rotate(fixed, 1, 2048, 2, 64), plain(), declared),
               "global-positions");
}

// The same packing the other way round: declared running on, the data restarting per document.
TEST(RotationBugs, PackedDocumentsRestartingWhereGlobalWasDeclared) {
  Built bug{plain()}, fixed{plain()};
  for (const uint64_t n : {300, 700, 1048})
    for (uint64_t i = 0; i < n; ++i) bug.positions.push_back(i);
  expect_named(verify_rotation(rotate(bug, 1, 2048, 2, 64), plain()),
               verify_rotation(rotate(fixed, 1, 2048, 2, 64), plain()), "restarted-positions");
}

// torchtitan#2849: positions taken % seq_len in the middle of a document.
TEST(RotationBugs, Torchtitan2849PositionsModuloTheSequenceLength) {
  Built bug{plain()}, fixed{plain()};
  for (uint64_t t = 0; t < 4096; ++t) bug.positions.push_back(t % 1024);
  expect_named(verify_rotation(rotate(bug, 1, 4096, 1, 64), plain()),
               verify_rotation(rotate(fixed, 1, 4096, 1, 64), plain()), "positions-modulo");
}

// flash-attention's Triton rotary: rows beyond the cos/sin cache (seqlen_ro 2048) unrotated.
TEST(RotationBugs, FlashAttentionRowsBeyondTheCacheUnrotated) {
  Built bug{plain()}, fixed{plain()};
  for (uint64_t t = 0; t < 4096; ++t) bug.positions.push_back(t < 2048 ? t : 0);
  const VerifyRotaryResult r = verify_rotation(rotate(bug, 1, 4096, 2, 64), plain());
  expect_named(r, verify_rotation(rotate(fixed, 1, 4096, 2, 64), plain()), "unrotated");
  EXPECT_NE(r.diagnosis->detail.find("from position 2048 on"), std::string::npos)
      << r.diagnosis->detail;
}

// mlx#3949: the rows after the first never written.
TEST(RotationBugs, Mlx3949RowsAfterTheFirstNeverWritten) {
  Built bug{plain()}, fixed{plain()};
  bug.unwritten = [](uint64_t t) { return t % 64 != 0; };
  expect_named(verify_rotation(rotate(bug, 2, 64, 2, 64), plain()),
               verify_rotation(rotate(fixed, 2, 64, 2, 64), plain()), "unwritten");
}

// TensorRT-LLM#16378: RoPE applied twice on gpt-oss's unfused YaRN path: angle 2 theta,
// amplitude mscale^2.
TEST(RotationBugs, TensorRtLlm16378AppliedTwice) {
  TableSpec gpt_oss = spec_of(*model_preset("gpt-oss-20b", ""), Layout::kRopeCosSin, 0, 4096);
  Built bug{gpt_oss}, fixed{gpt_oss};
  bug.angle_times = 2;
  bug.amplitude = attention_factor(gpt_oss) * attention_factor(gpt_oss);
  expect_named(verify_rotation(rotate(bug, 1, 4096, 2, 64), gpt_oss, {}, "gpt-oss-20b"),
               verify_rotation(rotate(fixed, 1, 4096, 2, 64), gpt_oss, {}, "gpt-oss-20b"),
               "rotated-twice");
}

// A position off by one (a cache indexed from 1): named with the --start that matches.
TEST(RotationBugs, PositionsOffByOne) {
  Built bug{plain()}, fixed{plain()};
  bug.spec.start = 1;
  const VerifyRotaryResult r = verify_rotation(rotate(bug, 1, 2048, 2, 64), plain());
  expect_named(r, verify_rotation(rotate(fixed, 1, 2048, 2, 64), plain()), "positions");
  EXPECT_EQ(r.diagnosis->matches, std::vector<std::string>{"--start 1"});
}

// llama.cpp's own float32 arithmetic (ggml-cpu's rope, the angle by a recurrence over pairs) is
// honest: it passes under its claim (--compute ggml), and where the float32 claim, which models a
// direct angle, does not hold it, the cause named is that recurrence, never a bfloat16
// computation. NORMAL and NEOX pairs, heads of 64 to 256, base 1e4.
TEST(RotationBugs, GgmlsRecurrenceIsHonestArithmetic) {
  int named = 0;  // the float32 claims that fail, each named the recurrence
  for (const bool neox : {false, true})
    for (const int d : {64, 128, 256}) {
      const TableSpec declared = grid_spec(d, 1e4);
      const Rotation r = ggml_rotate(declared, 4096, 2, neox);
      const PairConvention pairs = neox ? PairConvention::kHalves : PairConvention::kInterleaved;
      const VerifyRotaryResult ggml = verify_rotation(r, declared, {}, "", pairs, "ggml");
      EXPECT_TRUE(ggml.holds()) << to_text(ggml);
      const VerifyRotaryResult f32 = verify_rotation(r, declared, {}, "", pairs, "float32");
      if (f32.holds()) continue;
      ASSERT_TRUE(f32.diagnosis) << to_text(f32);
      EXPECT_EQ(f32.diagnosis->cause, "recurrence") << "d " << d << " neox " << neox << "\n"
                                                    << to_text(*f32.diagnosis);
      named += f32.diagnosis->cause == "recurrence";
    }
  // The case is there: float32's claim, which models a direct angle, fails some of them (the
  // issue's NORMAL d 128 on 20 elements), so the cause is exercised, not only the pass.
  EXPECT_GT(named, 0);
}

// The same with Llama 3.1's rope_freqs (base 5e5, the llama3 factors divided into the angle) to
// position 131071.
TEST(RotationBugs, GgmlsRecurrenceWithLlama31RopeFreqsTo131072) {
  const TableSpec declared =
      spec_of(*model_preset("llama-3.1-8b", ""), Layout::kRopeCosSin, 0, 131072);
  const Rotation r = ggml_rotate(declared, 131072, 1, true, llama3_rope_freqs(declared));
  const VerifyRotaryResult ggml =
      verify_rotation(r, declared, {}, "llama-3.1-8b", PairConvention::kHalves, "ggml");
  EXPECT_TRUE(ggml.holds()) << to_text(ggml);
  const VerifyRotaryResult f32 = verify_rotation(r, declared, {}, "llama-3.1-8b");
  if (!f32.holds()) {
    ASSERT_TRUE(f32.diagnosis) << to_text(f32);
    EXPECT_EQ(f32.diagnosis->cause, "recurrence") << to_text(*f32.diagnosis);
  }
}

// mlx#3494: mx.fast.rope on [2, 4, 1, 128] (one token, batch 2, offset 5) left batch row 1 at
// zero: the single-token kernel's grid left out the batch.
TEST(RotationBugs, Mlx3494OneTokenBatchRowsAfterTheFirstLeftAtZero) {
  Built bug{plain(128)}, fixed{plain(128)};
  bug.spec.start = fixed.spec.start = 5;
  bug.unwritten = [](uint64_t t) { return t > 0; };
  TableSpec declared = plain(128);
  declared.start = 5;
  expect_named(verify_rotation(rotate(bug, 8, 1, 4, 128), declared),
               verify_rotation(rotate(fixed, 8, 1, 4, 128), declared), "unwritten");
}

// llama.cpp#13260, #13261: PLaMo and Orion given rope type NORM (pairs 2j, 2j + 1) where their
// weights need NEOX (j, j + d/2); ik_llama.cpp#2290 the same for 39 architectures. ggml's own
// arithmetic, declared so (--compute ggml).
TEST(RotationBugs, LlamaCpp13260NormalPairsWhereNeoxWasNeeded) {
  const TableSpec declared = plain(128);
  expect_named(verify_rotation(ggml_rotate(declared, 2048, 2, false), declared, {}, "",
                               PairConvention::kHalves, "ggml"),
               verify_rotation(ggml_rotate(declared, 2048, 2, true), declared, {}, "",
                               PairConvention::kHalves, "ggml"),
               "pairing");
}

// vllm#43770: bailing_moe computed a partial rotary factor of 1 where the config says 0.5: the
// whole head of 128 rotated (its own frequencies over 128) where 64 dims should.
TEST(RotationBugs, Vllm43770WholeHeadRotatedWherePartialFactorHalf) {
  Built bug{plain(128)}, fixed{plain(64)};
  expect_named(verify_rotation(rotate(bug, 1, 2048, 2, 128), plain(64)),
               verify_rotation(rotate(fixed, 1, 2048, 2, 128), plain(64)), "rotary-dim");
}

// lalamo#268 (a change planted to break the rotation, which its own CI caught): the rotation's
// sin negated, the inverse rotation.
TEST(RotationBugs, Lalamo268InverseRotation) {
  Built bug{plain()}, fixed{plain()};
  bug.angle_times = -1;
  expect_named(verify_rotation(rotate(bug, 1, 2048, 2, 64), plain()),
               verify_rotation(rotate(fixed, 1, 2048, 2, 64), plain()), "sign");
}

}  // namespace
}  // namespace pev::bugs
