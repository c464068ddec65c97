// What to write in one's own code for a registry entry (docs/features.md §14.1): the PyTorch
// function that computes, bit for bit, the table the entry computes, and the kernel-side
// equivalent. Only entries whose arithmetic PyTorch code reproduces have one: the framework
// entries (core/frameworks, the same operations on PyTorch's kernels) and the precise entries,
// whose PyTorch code is a call to peverify (no PyTorch arithmetic is faithful in float32 at
// long context: float64 angles miss by up to 0.09 ulp near zero, test_recommend_snippets.py).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pev::reports::study {

// Which code a snippet is, in the order a recommendation prefers them.
enum class SnippetKind {
  kFloat64,   // PyTorch arithmetic in float64, rounded to the output at the end
  kPeverify,  // a call to peverify.generate: only where no float64 code meets the target
  // Hugging Face's float32 angles: what recommendations replace, never recommended. Its error
  // grows with the position up to the angle's rounding (0.0101 at 131072 positions stored as
  // bfloat16, beyond 1e-2, where a sample of positions had measured 0.0077).
  kFramework,
};

struct Snippet {
  std::string entry;    // the registry entry whose table the code returns
  std::string pytorch;  // `def sinusoidal_table(n, d, base=10000.0)`: rows 0 .. n-1, interleaved
  std::string cuda;     // what a CUDA kernel does to the same effect
  SnippetKind kind = SnippetKind::kFloat64;
};

// The snippet for `entry`, or nullopt when no PyTorch code reproduces it.
std::optional<Snippet> snippet_of(const std::string& entry);

// The rotation entry's PyTorch code: `def apply_rope(x, positions, inv_freq64, attention=1.0)`,
// x [..., tokens, d] rotated by rotate_half's pairs; nullopt when no PyTorch code reproduces it.
std::optional<Snippet> rotation_snippet_of(const std::string& entry);

// The frameworks whose own code a recommendation can replace (`peverify recommend --framework`),
// each with the entries that reproduce it (core/frameworks, docs/architecture.md §10.1).
struct Framework {
  std::string name;   // hf, vllm, meta, tutorial
  std::string words;  // "Hugging Face's float32 code"
};
const std::vector<Framework>& frameworks();
const Framework* find_framework(const std::string& name);

// The entry that is `framework`'s code storing `dtype` (a report's type name), or "" where that
// code stores no such table (Meta's and the tutorial's are float32 only).
std::string framework_entry_for(const std::string& dtype, const std::string& framework = "hf");

}  // namespace pev::reports::study
