#include "report/provenance.hpp"

#include "report/escape.hpp"
#include "util/error.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <memory>

namespace neuron_gate {
namespace {

std::string to_hex(const unsigned char* bytes, unsigned length) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < length; ++i) {
    hex += digits[bytes[i] >> 4];
    hex += digits[bytes[i] & 0xF];
  }
  return hex;
}

class Sha256 {
 public:
  Sha256() : m_context(EVP_MD_CTX_new(), EVP_MD_CTX_free) { EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr); }
  void update(const void* data, std::size_t size) { EVP_DigestUpdate(m_context.get(), data, size); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned length = 0;
    EVP_DigestFinal_ex(m_context.get(), digest.data(), &length);
    return to_hex(digest.data(), length);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> m_context;
};

}  // namespace

std::string stored_baseline_text(const FoundBaseline& found) {
  const std::string where = found.distance == 0 ? "that commit itself"
                                                : std::to_string(found.distance) +
                                                      (found.distance == 1 ? " commit" : " commits") + " before it";
  return "base is the digest stored for commit `" + found.commit.substr(0, 12) + "` in " + prose_code(found.ref) +
         " (tip `" + found.tip.substr(0, 12) + "`): the stored baseline nearest " +
         (found.from_base_commit ? "the pull request's base commit `" : "head commit `") +
         found.head_commit.substr(0, 12) + "`, " + where + (found.from_base_commit ? " along first parents" : "") +
         " (" + std::to_string(found.walked) + (found.walked == 1 ? " commit" : " commits") + " looked at" +
         (found.from_base_commit ? "; its recorded commit checked" : "") + ")";
}

std::string noise_check_text(const NoiseCheck& check) {
  const bool runs = check.split_by == SplitBy::runs;
  const std::size_t groups = runs ? check.runs : check.traces;
  std::string text = "base's A/A noise: " + std::to_string(check.splits) +
                     (check.splits == 1 ? " random halving" : " random halvings") + " of its " +
                     std::to_string(groups) + (runs ? " runs (" : " traces (") + std::to_string(check.half_a) + " vs " +
                     std::to_string(check.half_b) + "), seed " + std::to_string(check.seed) + ": " +
                     std::to_string(check.comparisons) + " comparisons of " + std::to_string(check.sample_values) +
                     " sample values";
  if (!check.value_budget) {
    return text;
  }
  const std::string budget = std::to_string(*check.value_budget) + " values";
  if (check.splits < check.requested_splits) {
    return text + " (reduced from " + std::to_string(check.requested_splits) +
           " halvings: their values exceeded the budget of " + budget + "; never fewer than " +
           std::to_string(check.min_splits) + ")";
  }
  return text + " (budget " + budget + ", at least " + std::to_string(check.min_splits) + " halvings)";
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, "cannot open");
  }
  Sha256 hash;
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    hash.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return hash.hex();
}

std::string sha256_text(std::string_view text) {
  Sha256 hash;
  hash.update(text.data(), text.size());
  return hash.hex();
}

Provenance collect_provenance(const ProfileInventory& base, const ProfileInventory& head,
                              const std::string& rules_source, std::string_view rules_text) {
  Provenance provenance;
  provenance.tool_version = NEURON_GATE_VERSION;
  provenance.base_spec = base.spec;
  provenance.head_spec = head.spec;
  provenance.rules_source = rules_source;
  provenance.rules_sha256 = sha256_text(rules_text);
  for (const auto* inventory : {&base, &head}) {
    const std::string side = inventory == &base ? "base" : "head";
    for (const DiscoveredFile& file : inventory->files) {
      ProvenanceFile entry;
      entry.side = side;
      entry.relative_path = file.relative_path;
      entry.kind = file_kind_name(file.kind);
      entry.size_bytes = file.size_bytes;
      entry.ignored_reason = file.ignored_reason;
      // Files read_side() reads are hashed from the bytes it read (add_read_details); only the files it never
      // reads (Neuron binaries) are hashed here.
      if (!file.sha256.empty()) {
        entry.sha256 = file.sha256;
      } else if (file.kind == FileKind::neuron_artifact) {
        entry.sha256 = file.git_blob.oid.empty() ? sha256_file(file.path) : open_profile_file(file)->raw_sha256();
      }
      provenance.files.push_back(std::move(entry));
    }
  }
  return provenance;
}

InputsOverlap inputs_overlap(const Provenance& provenance) {
  std::vector<std::string> base, head;
  for (const ProvenanceFile& file : provenance.files) {
    if (!file.sha256.empty()) {
      (file.side == "base" ? base : head).push_back(file.sha256);
    }
  }
  std::sort(base.begin(), base.end());
  std::sort(head.begin(), head.end());
  InputsOverlap overlap;
  overlap.base_files = base.size();
  overlap.head_files = head.size();
  if (head.empty()) {
    return overlap;
  }
  if (base == head) {
    overlap.kind = InputsOverlapKind::identical;
  } else if (base.size() > head.size() && std::includes(base.begin(), base.end(), head.begin(), head.end())) {
    overlap.kind = InputsOverlapKind::head_inside_base;
  }
  return overlap;
}

std::string inputs_overlap_text(const InputsOverlap& overlap) {
  const auto files = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " file" : " files"); };
  switch (overlap.kind) {
  case InputsOverlapKind::identical:
    return "identical inputs: base and head are the same " + files(overlap.head_files) +
           " byte for byte (same SHA-256 on both sides), so this compares the data with itself and can show no "
           "change";
  case InputsOverlapKind::head_inside_base:
    return "head inside base: every one of head's " + files(overlap.head_files) + " is also one of base's " +
           std::to_string(overlap.base_files) +
           " (same SHA-256), so the sides share samples and a change shows diluted or not at all";
  case InputsOverlapKind::none:
    break;
  }
  return "";
}

const char* inputs_overlap_name(InputsOverlapKind kind) {
  switch (kind) {
  case InputsOverlapKind::identical:
    return "identical inputs";
  case InputsOverlapKind::head_inside_base:
    return "head inside base";
  case InputsOverlapKind::none:
    break;
  }
  return "";
}

void add_read_details(Provenance& provenance, const SideSamples& base, const SideSamples& head) {
  for (const SideSamples* side : {&base, &head}) {
    const std::string name = side == &base ? "base" : "head";
    std::map<std::string, std::string> hashes;  // relative path -> sha256 of the bytes read_side() read
    for (const DiscoveredFile& read : side->inventory.files) {
      if (!read.sha256.empty()) {
        hashes[read.relative_path] = read.sha256;
      }
    }
    for (ProvenanceFile& file : provenance.files) {
      if (file.side != name) {
        continue;
      }
      if (const auto it = side->file_details.find(file.relative_path); it != side->file_details.end()) {
        file.detail = it->second;
      }
      if (const auto it = hashes.find(file.relative_path); it != hashes.end()) {
        file.sha256 = it->second;
      }
    }
    for (const std::string& warning : side->read_warnings) {
      provenance.warnings.push_back(name + ": " + warning);
    }
  }
}

}  // namespace neuron_gate
