#include "store/digest.hpp"

#include "input/json_input.hpp"
#include "store/digest_fields.hpp"
#include "store/digest_json.hpp"
#include "store/gzip_writer.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"

#include <nlohmann/json.hpp>

#include <new>

namespace neuron_gate {
namespace {

// The whole decompressed text of a digest, refused past k_max_digest_bytes before it is all held.
std::string read_digest_text(ByteSource& source) {
  std::string text;
  for (std::string_view chunk = source.next(); !chunk.empty(); chunk = source.next()) {
    if (text.size() + chunk.size() > k_max_digest_bytes) {
      throw InputError(source.path(), "a digest larger than " + byte_count_text(k_max_digest_bytes) +
                                          " decompressed: not one neuron-gate writes");
    }
    text.append(chunk);
  }
  return text;
}

// The envelope: format, version (refusing a newer one first, whatever else it holds), tool, by_shape.
DigestInfo read_envelope(const nlohmann::json& document, const std::string& path) {
  const DigestFields f(path);
  if (!document.is_object() || !document.contains("format") || document["format"] != k_digest_format) {
    f.fail("not a neuron-gate digest (no \"format\": \"neuron-gate digest\" at the top level)");
  }
  DigestInfo info;
  const std::int64_t version = f.integer(f.at(document, "version", "the top level"), "version");
  if (version > k_digest_version) {
    f.fail("digest format version " + std::to_string(version) + " was written by a newer neuron-gate; this one (" +
           NEURON_GATE_VERSION + ") reads version " + std::to_string(k_digest_version) + ": upgrade neuron-gate");
  }
  if (version < 1) {
    f.fail("\"version\" must be at least 1, not " + std::to_string(version));
  }
  info.version = static_cast<int>(version);
  f.keys(document, "the top level", {"format", "version", "tool_version", "by_shape", "side"});
  info.tool_version = f.str(document, "tool_version", "the top level");
  info.by_shape = f.boolean(document, "by_shape", "the top level");
  return info;
}

}  // namespace

std::string digest_bytes(const SideSamples& side, bool by_shape, const std::optional<SideRepository>& repository) {
  // Written as it goes, a step at a time, and compressed as written: neither the JSON document nor its
  // text is ever held whole (issue 21 item 4). Names are valid UTF-8 once read (invalid bytes become
  // U+FFFD); a stray byte elsewhere is replaced as nlohmann's dump with error_handler_t::replace does.
  GzipWriter gzip;
  JsonWriter out([&gzip](std::string_view text) { gzip.write(text); });
  out.begin_object();
  out.key("format");
  out.string(k_digest_format);
  out.key("version");
  out.integer(k_digest_version);
  out.key("tool_version");
  out.string(NEURON_GATE_VERSION);
  out.key("by_shape");
  out.boolean(by_shape);
  out.key("side");
  write_side_json(side, repository, out);
  out.end_object();
  out.flush();
  return gzip.finish();
}

void write_digest(const SideSamples& side, const std::string& path, bool by_shape,
                  const std::optional<SideRepository>& repository) {
  write_file_atomically(path, digest_bytes(side, by_shape, repository));
}

SideSamples read_digest(ByteSource& source, DigestInfo* info) {
  const std::string path = source.path();
  const std::string text = read_digest_text(source);
  try {
    const JsonDocument document = parse_json_input(text, path);
    DigestInfo envelope = read_envelope(document.value, path);
    envelope.sha256 = source.raw_sha256();
    SideSamples side = side_from_json(document.value["side"], path, &envelope.repository);
    if (info != nullptr) {
      *info = envelope;
    }
    return side;
  } catch (const std::bad_alloc&) {
    throw InputError(path, "out of memory while reading this digest of " + byte_count_text(text.size()));
  } catch (const nlohmann::json::exception& error) {
    throw InputError(path, "unexpected digest content: " + json_exception_reason(error));
  }
}

}  // namespace neuron_gate
