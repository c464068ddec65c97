#include "peverify/encoding/model_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pev {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ModelConfig, ReadsTheRepositorysModelConfigs) {
  const ModelRope llama = model_rope_from_config(slurp("models/llama-3.1-8b.json"));
  EXPECT_EQ(llama.rotary_dim, 128);
  EXPECT_EQ(llama.base, 5e5);
  EXPECT_EQ(llama.rope.type, RopeType::kLlama3);
  EXPECT_EQ(llama.rope.original_max_position, 8192u);
  const ModelRope qwen = model_rope_from_config(slurp("models/qwen2.5-7b-yarn.json"));
  EXPECT_EQ(qwen.rotary_dim, 128);  // 3584 / 28
  EXPECT_EQ(qwen.rope.type, RopeType::kYarn);
  EXPECT_EQ(qwen.rope.factor, 4);
  const ModelRope deepseek = model_rope_from_config(slurp("models/deepseek-v3.json"));
  EXPECT_EQ(deepseek.rotary_dim, 64);
  EXPECT_EQ(deepseek.rope.mscale, 1.0);
  const ModelRope neox = model_rope_from_config(slurp("models/gpt-neox-20b.json"));
  EXPECT_EQ(neox.head_dim, 96);
  EXPECT_EQ(neox.rotary_dim, 24);
  EXPECT_EQ(neox.rope.type, RopeType::kDefault);
}

TEST(ModelConfig, DefaultsAsHuggingFaceDoes) {
  const ModelRope m = model_rope_from_config(R"({"hidden_size": 2560, "num_attention_heads": 32,
                                                 "partial_rotary_factor": 0.4})");
  EXPECT_EQ(m.base, 10000.0);   // no rope_theta
  EXPECT_EQ(m.rotary_dim, 32);  // int(80 * 0.4): 32.000000000000004 in double, truncated
  EXPECT_EQ(m.rope.type, RopeType::kDefault);
}

TEST(ModelConfig, ReadsTransformers5RopeParametersAndTopLevelOriginalLength) {
  const ModelRope m = model_rope_from_config(R"({"head_dim": 64, "max_position_embeddings": 8192,
      "rope_parameters": {"rope_type": "yarn", "rope_theta": 50000.0, "factor": 2.0}})");
  EXPECT_EQ(m.base, 5e4);
  EXPECT_EQ(m.rope.type, RopeType::kYarn);
  EXPECT_EQ(m.rope.original_max_position, 8192u);  // defaults to max_position_embeddings
  std::string ones = "1";
  for (int i = 1; i < 48; ++i) ones += ", 1";
  const ModelRope phi = model_rope_from_config(
      R"({"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
          "original_max_position_embeddings": 4096, "rope_scaling": {"type": "su",
          "short_factor": [)" +
      ones + R"(], "long_factor": [)" + ones + "]}}");
  EXPECT_EQ(phi.rope.type, RopeType::kLongRope);
  EXPECT_EQ(phi.rope.original_max_position, 4096u);  // from the config's top level
  EXPECT_NEAR(rope_double::attention_factor(phi.rope), 1.190238, 5e-7);
}

// Every way a config can be wrong is one line naming the field.
TEST(ModelConfig, BadConfigsNameTheField) {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      model_rope_from_config(text);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::string head = R"("head_dim": 128, "max_position_embeddings": 4096)";
  EXPECT_NE(error_of("{" + head + R"(, "rope_scaling": {"rope_type": "linear", "factor": 0}})")
                .find("factor"),
            std::string::npos);
  EXPECT_NE(error_of("{" + head + R"(, "rope_scaling": {"rope_type": "linear", "factor": -2}})")
                .find("factor"),
            std::string::npos);
  EXPECT_NE(error_of("{" + head + R"(, "rope_scaling": {"rope_type": "mrope"}})").find("mrope"),
            std::string::npos);
  EXPECT_NE(error_of("{" + head +
                     R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4, "beta_fast": 1,
                        "beta_slow": 32}})")
                .find("beta_fast"),
            std::string::npos);
  EXPECT_NE(error_of("{" + head +
                     R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1],
                        "long_factor": [1, 1, 1], "original_max_position_embeddings": 1024}})")
                .find("short_factor"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"head_dim": 127})").find("even"), std::string::npos);
  EXPECT_NE(error_of(R"({"num_attention_heads": 8})").find("head_dim"), std::string::npos);
  EXPECT_NE(error_of(R"({"head_dim": 64, "rope_theta": "big"})").find("rope_theta"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "llama3", "factor": 8,
                        "low_freq_factor": 1, "high_freq_factor": 4}})")
                .find("original_max_position_embeddings"),
            std::string::npos);
  EXPECT_NE(error_of("not json").find("JSON"), std::string::npos);
  for (const std::string& e : {error_of("{" + head + R"(, "rope_scaling": {"rope_type": "x"}})"),
                               error_of(R"({"head_dim": 3})")})
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(ModelConfig, AKeyOneEditFromARotaryKeyIsReadAsTransformersReadsItWithAWarning) {
  // rope_thetaa: ignored, so the default base; the warning names the key it likely meant.
  const ModelRope m = model_rope_from_config(R"({"hidden_size": 4096, "num_attention_heads": 32,
      "rope_thetaa": 500000, "vocab_size": 128256, "rope_scaling": {"rope_type": "linear",
      "factor": 2, "facotr": 4}})");
  EXPECT_EQ(m.base, 10000.0);
  EXPECT_EQ(m.rope.factor, 2);
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("\"rope_thetaa\""), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[0].find("did you mean rope_theta?"), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[1].find("rope_scaling.\"facotr\""), std::string::npos) << m.warnings[1];
  EXPECT_NE(m.warnings[1].find("did you mean factor?"), std::string::npos) << m.warnings[1];
  // The repository's real configs have none.
  for (const char* model : {"llama-3.1-8b", "qwen2.5-7b-yarn", "deepseek-v3", "gpt-neox-20b"})
    EXPECT_TRUE(
        model_rope_from_config(slurp(std::string("models/") + model + ".json")).warnings.empty())
        << model;
}

}  // namespace
}  // namespace pev
