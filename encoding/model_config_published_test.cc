// The presets (models/*.json) are copies of published configs, nested as published: what the
// reader takes from each, and how it reads multimodal sections, layer types and M-RoPE the way
// transformers does (docs/mathematics.md §12.2, §12.5).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"

namespace pev {
namespace {

std::string preset_text(const char* name) {
  for (const ModelPreset& p : model_presets())
    if (p.name == name) return p.config_json;
  ADD_FAILURE() << "no preset " << name;
  return "{}";
}

ModelRope preset(const char* name, std::string_view layer_type = {}) {
  return model_rope_from_config(preset_text(name), layer_type);
}

std::string error_of(const std::string& text, std::string_view layer_type = {}) {
  try {
    model_rope_from_config(text, layer_type);
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  return "(accepted)";
}

TEST(PublishedConfig, GptOssSharesOneYarnRecipeAcrossLayerTypes) {
  const ModelRope m = preset("gpt-oss-20b");
  EXPECT_EQ(m.rotary_dim, 64);
  EXPECT_EQ(m.base, 150000.0);
  EXPECT_EQ(m.rope.type, RopeType::kYarn);
  EXPECT_EQ(m.rope.factor, 32.0);
  EXPECT_EQ(m.rope.original_max_position, 4096u);
  EXPECT_FALSE(m.rope.truncate);
  EXPECT_TRUE(m.layer_types.empty());  // sliding and full layers share it
  EXPECT_NEAR(rope_double::attention_factor(m.rope), 0.1 * std::log(32.0) + 1, 1e-15);
  EXPECT_EQ(preset("gpt-oss-20b", "sliding_attention").rope, m.rope);
  EXPECT_NE(error_of(preset_text("gpt-oss-20b"), "nope").find("nope"), std::string::npos);
}

TEST(PublishedConfig, Llama4ScoutReadsItsTextConfigOnly) {
  const ModelRope m = preset("llama-4-scout");
  EXPECT_EQ(m.section, "text_config");
  EXPECT_EQ(m.model_type, "llama4_text");
  EXPECT_EQ(m.rotary_dim, 128);
  EXPECT_EQ(m.base, 5e5);  // not vision_config's 10000
  EXPECT_EQ(m.max_position, 10485760u);
  EXPECT_EQ(m.rope.type, RopeType::kLlama3);
  EXPECT_EQ(m.rope.factor, 16.0);
  EXPECT_EQ(m.rope.low_freq_factor, 1.0);
  EXPECT_EQ(m.rope.high_freq_factor, 1.0);
  EXPECT_EQ(m.rope.original_max_position, 8192u);
  EXPECT_EQ(describe(m), "text_config of llama4");
  // Its full-attention layers are the NoPE ones: naming them is refused, the others accepted.
  EXPECT_EQ(preset("llama-4-scout", "chunked_attention").rope, m.rope);
  const std::string text = R"({"model_type": "llama4", "text_config": {"model_type":
      "llama4_text", "head_dim": 128, "max_position_embeddings": 8192}})";
  EXPECT_NE(error_of(text, "full_attention").find("NoPE"), std::string::npos);
}

TEST(PublishedConfig, Gemma3HasTwoLayerTypesAndTheClassDefaults) {
  const ModelRope global = preset("gemma-3-27b-it");
  EXPECT_EQ(global.section, "text_config");
  EXPECT_EQ(global.rotary_dim, 128);  // head_dim, not hidden_size / heads (168)
  EXPECT_EQ(global.base, 1e6);        // Gemma3TextConfig's rope_theta: the file gives none
  EXPECT_EQ(global.max_position, 131072u);
  EXPECT_EQ(global.layer_type, "full_attention");
  EXPECT_TRUE(global.layer_type_chosen);
  EXPECT_EQ(global.rope.type, RopeType::kLinear);
  EXPECT_EQ(global.rope.factor, 8.0);
  EXPECT_EQ(describe(global),
            "text_config of gemma3, layer type full_attention (not named: the global layers'; "
            "also sliding_attention)");
  const ModelRope local = preset("gemma-3-27b-it", "sliding_attention");
  EXPECT_EQ(local.base, 1e4);  // rope_local_base_freq's default
  EXPECT_EQ(local.rope.type, RopeType::kDefault);
  EXPECT_FALSE(local.layer_type_chosen);
  EXPECT_EQ(describe(local), "text_config of gemma3, layer type sliding_attention");
  const std::string gemma_error = error_of(preset_text("gemma-3-27b-it"), "global");
  EXPECT_NE(gemma_error.find("\"full_attention\", \"sliding_attention\""), std::string::npos)
      << gemma_error;
}

// Gemma 4: proportional RoPE over global_head_dim on the full-attention layers (the table is the
// whole head wide; the recipe's partial_rotary_factor says how many pairs turn), the default
// recipe over head_dim on the sliding ones.
TEST(PublishedConfig, Gemma4FullLayersAreProportionalOverTheGlobalHeadDim) {
  const ModelRope global = preset("gemma-4-26b-a4b-it", "full_attention");
  EXPECT_EQ(global.head_dim, 512);
  EXPECT_EQ(global.rotary_dim, 512);  // not int(512 * 0.25): the tail is part of the cache
  EXPECT_EQ(global.rope.type, RopeType::kProportional);
  EXPECT_EQ(global.rope.partial_rotary_factor, 0.25);
  EXPECT_EQ(global.rope.factor, 1.0);
  EXPECT_EQ(rotated_pairs(global.rope, global.rotary_dim), 64);
  EXPECT_EQ(global.base, 1e6);
  const ModelRope local = preset("gemma-4-26b-a4b-it", "sliding_attention");
  EXPECT_EQ(local.rotary_dim, 256);
  EXPECT_EQ(local.rope.type, RopeType::kDefault);
  EXPECT_EQ(local.base, 1e4);
  // Without global_head_dim, Gemma4TextConfig's 512; another model's proportional layers read
  // head_dim (transformers' head_dim_key default).
  const ModelRope by_default = model_rope_from_config(R"({"model_type": "gemma4_text",
      "rope_parameters": {"full_attention": {"rope_type": "proportional", "rope_theta": 1e6,
                                             "partial_rotary_factor": 0.25, "factor": 8.0},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}})");
  EXPECT_EQ(by_default.rotary_dim, 512);
  EXPECT_EQ(by_default.rope.factor, 8.0);
  const ModelRope other = model_rope_from_config(R"({"head_dim": 128, "global_head_dim": 512,
      "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.5}})");
  EXPECT_EQ(other.rotary_dim, 128);
  EXPECT_EQ(rotated_pairs(other.rope, other.rotary_dim), 32);
  EXPECT_NE(error_of(R"({"head_dim": 128, "rope_parameters": {"rope_type": "proportional",
               "partial_rotary_factor": 1.5}})")
                .find("partial_rotary_factor must be in [0, 1], got 1.5"),
            std::string::npos);
}

TEST(PublishedConfig, Transformers5RopeParametersKeyedByLayerType) {
  const std::string text = R"({"model_type": "gemma3_text", "head_dim": 256,
      "layer_types": ["sliding_attention", "full_attention"],
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0,
                                             "rope_theta": 1000000.0},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})";
  const ModelRope global = model_rope_from_config(text);
  EXPECT_EQ(global.layer_type, "full_attention");
  EXPECT_EQ(global.base, 1e6);
  EXPECT_EQ(global.rope.factor, 8.0);
  const ModelRope local = model_rope_from_config(text, "sliding_attention");
  EXPECT_EQ(local.base, 1e4);
  EXPECT_EQ(local.rope.type, RopeType::kDefault);
  // A keyed recipe's field is named with its layer type.
  EXPECT_NE(error_of(R"({"head_dim": 64, "rope_parameters": {"full_attention": {"rope_type":
               "linear", "factor": -1}}})")
                .find("factor"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"head_dim": 64, "rope_parameters": {"a": {}, "b": {}}})").find("name one"),
            std::string::npos);
}

TEST(PublishedConfig, Qwen3AndPhi4Mini) {
  const ModelRope qwen = preset("qwen3-8b");
  EXPECT_EQ(qwen.rotary_dim, 128);
  EXPECT_EQ(qwen.base, 1e6);
  EXPECT_EQ(qwen.max_position, 40960u);
  EXPECT_EQ(qwen.rope.type, RopeType::kDefault);
  EXPECT_EQ(describe(qwen), "");
  const ModelRope phi = preset("phi-4-mini-instruct");
  EXPECT_EQ(phi.head_dim, 128);
  EXPECT_EQ(phi.rotary_dim, 96);  // int(128 * 0.75)
  EXPECT_EQ(phi.rope.type, RopeType::kLongRope);
  EXPECT_EQ(phi.rope.original_max_position, 4096u);  // from the top level
  ASSERT_EQ(phi.rope.long_factor.size(), 48u);
  EXPECT_EQ(phi.rope.long_factor[47], 47.77);
  EXPECT_EQ(phi.rope.short_factor, std::vector<double>(48, 1.0));
  EXPECT_NEAR(rope_double::attention_factor(phi.rope), 1.190238, 5e-7);
}

TEST(PublishedConfig, MRopeSectionedAndInterleaved) {
  const ModelRope vl = preset("qwen2.5-vl-7b-instruct");
  EXPECT_EQ(vl.rotary_dim, 128);
  EXPECT_EQ(vl.rope.type, RopeType::kDefault);  // type mrope is the default recipe
  EXPECT_EQ(vl.rope.mrope_section, (std::vector<int>{16, 24, 24}));
  EXPECT_FALSE(vl.rope.mrope_interleaved);
  // Qwen3-VL, as published: text_config, rope_type default with the interleaved flag.
  const ModelRope q3 = model_rope_from_config(R"({"model_type": "qwen3_vl", "text_config": {
      "model_type": "qwen3_vl_text", "head_dim": 128, "max_position_embeddings": 262144,
      "rope_theta": 5000000, "rope_scaling": {"mrope_interleaved": true,
      "mrope_section": [24, 20, 20], "rope_type": "default"}}})");
  EXPECT_EQ(q3.base, 5e6);
  EXPECT_TRUE(q3.rope.mrope_interleaved);
  EXPECT_EQ(q3.rope.mrope_section, (std::vector<int>{24, 20, 20}));
  // Qwen3-VL's model interleaves whatever the flag says; a recipe other than default may carry
  // sections.
  EXPECT_TRUE(model_rope_from_config(R"({"model_type": "qwen3_vl_text", "head_dim": 128,
      "rope_scaling": {"mrope_section": [24, 20, 20]}})")
                  .rope.mrope_interleaved);
  EXPECT_EQ(model_rope_from_config(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear",
      "factor": 2, "mrope_section": [16, 24, 24]}})")
                .rope.type,
            RopeType::kLinear);
  for (const char* bad : {R"({"type": "mrope"})", R"({"type": "mrope", "mrope_section": [16, 24]})",
                          R"({"type": "mrope", "mrope_section": [16, 24, 23]})",
                          R"({"type": "mrope", "mrope_section": [16, 24, -1]})",
                          R"({"type": "mrope", "mrope_section": [16, 24, 2.5]})",
                          R"({"type": "mrope", "mrope_section": [16, 24, 24],
                              "mrope_interleaved": 1})"}) {
    const std::string e =
        error_of(std::string(R"({"head_dim": 128, "rope_scaling": )") + bad + "}");
    EXPECT_NE(e.find("mrope_"), std::string::npos) << bad << ": " << e;
  }
}

TEST(PublishedConfig, TextSectionsAsGetTextConfigFindsThem) {
  // Top-level fields do not leak into the text model's.
  const ModelRope m = model_rope_from_config(R"({"rope_theta": 77777, "head_dim": 64,
      "text_config": {"head_dim": 128}})");
  EXPECT_EQ(m.base, 1e4);
  EXPECT_EQ(m.rotary_dim, 128);
  const ModelRope omni = model_rope_from_config(R"({"model_type": "qwen2_5_omni",
      "thinker_config": {"text_config": {"head_dim": 128, "rope_theta": 1e6}}})");
  EXPECT_EQ(omni.section, "thinker_config.text_config");
  EXPECT_EQ(omni.base, 1e6);
  EXPECT_NE(error_of(R"({"decoder": {"head_dim": 64}, "text_config": {"head_dim": 64}})")
                .find("several text sections"),
            std::string::npos);
  // A nested field's error names its path.
  EXPECT_NE(error_of(R"({"text_config": {"head_dim": 64, "rope_theta": "x"}})")
                .find("text_config.rope_theta"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"text_config": {"head_dim": 64, "rope_scaling": {"rope_type": "linear",
               "factor": 0}}})")
                .find("text_config: rope_scaling.factor"),
            std::string::npos);
  // A named layer type where every layer shares the recipe must be one the config declares.
  EXPECT_NE(error_of(R"({"head_dim": 64})", "full_attention").find("declares no layer_types"),
            std::string::npos);
}

TEST(PublishedConfig, Llama3WithEqualFactorsAndTransformers5Defaults) {
  const ModelRope m = model_rope_from_config(R"({"head_dim": 128, "max_position_embeddings":
      131072, "rope_scaling": {"rope_type": "llama3", "factor": 16, "low_freq_factor": 1,
      "high_freq_factor": 1}})");
  EXPECT_EQ(m.rope.original_max_position, 131072u);  // standardize_rope_params' default
  EXPECT_EQ(model_rope_from_config(R"({"head_dim": 64, "rope_scaling": {"factor": 4}})").rope.type,
            RopeType::kDefault);  // no rope_type: transformers 5 reads the default recipe
  EXPECT_NE(error_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "llama3", "factor": 8,
               "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings":
               8192}})")
                .find("low_freq_factor"),
            std::string::npos);
}

}  // namespace
}  // namespace pev
