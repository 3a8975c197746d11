// Digests (store/digest.hpp, docs/user-guide.md "Digests"): the round trip of every bundled profile, the format's
// checks on hostile digests, and combining digests of ranks.
#include "formats/discover.hpp"
#include "profile/op_keys.hpp"
#include "profile/ranks.hpp"
#include "profile/read_side.hpp"
#include "store/digest.hpp"
#include "store/digest_side.hpp"
#include "test_files.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::gunzip_text;

using neuron_gate::testing::k_test_data;

using neuron_gate::testing::k_source_dir;

namespace {

// Every profile bundled with the repository that read_side reads without an input error: the examples,
// the test profiles (each operating point's folder on its own), the corpus traces and the benchmark,
// Neuron summary and key_averages files.
std::vector<std::string> bundled_profiles() {
  std::vector<std::string> specs;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_source_dir + "/examples/rmsnorm-4x512")) {
    specs.push_back(entry.path().string());
  }
  for (const char* folder :
       {"/profiles/new-call-site", "/profiles/traces-only", "/profiles/two-ranks", "/corpus", "/formats",
        "/key_averages", "/unattributed", "/profiles/operating-points/base", "/profiles/operating-points/head"}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(k_test_data + folder)) {
      specs.push_back(entry.path().string());
    }
  }
  specs.push_back(k_test_data + "/profiles/bimodal");
  std::sort(specs.begin(), specs.end());
  return specs;
}

SideSamples round_trip(const SideSamples& side, bool by_shape = false) {
  ByteSource source("side.ngdigest", digest_bytes(side, by_shape));
  DigestInfo info;
  SideSamples back = read_digest(source, &info);
  CHECK(info.by_shape == by_shape);
  // Read from a digest: its git state comes beside the side (here none).
  CHECK(!info.repository.has_value());
  CHECK(info.version == k_digest_version);
  back.label = side.label;
  return back;
}

std::string gzip_text(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// The message of the InputError reading `text` (plain JSON or gzip) as a digest named "bad.ngdigest".
std::string digest_error(const std::string& text) {
  ByteSource source("bad.ngdigest", text);
  try {
    read_digest(source);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

// A real digest's JSON (example A: traces, tables and e2e.json) with `change` applied.
std::string changed_digest(const std::function<void(nlohmann::json&)>& change) {
  static const std::string text = [] {
    const ProfileInventory inventory = discover_profile(k_source_dir + "/examples/rmsnorm-4x512/A");
    return gunzip_text(digest_bytes(read_side("base", inventory, {})));
  }();
  nlohmann::json document = nlohmann::json::parse(text);
  change(document);
  return document.dump();
}

}  // namespace

TEST_CASE("digest: every bundled profile survives the round trip exactly") {
  std::size_t round_tripped = 0, traces = 0, metrics = 0, tables = 0, problems = 0;
  for (const std::string& spec : bundled_profiles()) {
    CAPTURE(spec);
    SideSamples side;
    try {
      side = read_side("base", discover_profile(spec), {});
    } catch (const InputError&) {
      continue;  // the malformed inputs among the format samples
    }
    const SideSamples back = round_trip(side);
    CHECK(back == side);
    // Deterministic: the digest of the digest's side is the same bytes.
    CHECK(digest_bytes(back) == digest_bytes(side));
    ++round_tripped;
    traces += side.samples_from_tables ? 0 : side.traces.size();
    tables += side.samples_from_tables ? side.traces.size() : 0;
    metrics += side.end_to_end.size();
    problems += side.data_problems.size();
  }
  // Traces, key_averages tables, e2e.json, benchmark-tool files, Neuron summaries and data problems all came
  // through (counts of the bundled data as of 2026-12-02).
  CHECK(round_tripped >= 40);
  CHECK(traces >= 300);
  CHECK(tables >= 5);
  CHECK(metrics >= 15);
  CHECK(problems >= 1);
}

TEST_CASE("digest: a run manifest's fields and commit round-trip") {
  const fs::path point = *fs::directory_iterator(k_test_data + "/profiles/operating-points/base");
  SideSamples side = read_side("base", discover_profile(point.string()), {});
  REQUIRE(side.manifest.has_value());
  CHECK(!side.manifest->fields.empty());
  side.manifest->commit = "0123456789abcdef0123456789abcdef01234567";
  CHECK(round_trip(side) == side);
  side.manifest->commit = "not-hex";
  ByteSource source("bad.ngdigest", digest_bytes(side));
  CHECK_THROWS_WITH_AS(read_digest(source), doctest::Contains("\"side.manifest.commit\" must be a git commit id"),
                       InputError);
}

TEST_CASE("digest: a side read by shape round-trips and says so") {
  TraceReadOptions options;
  options.by_shape = true;
  const SideSamples side =
      read_side("head", discover_profile(k_test_data + "/corpus/H01-cpu-only.pt.trace.json.gz"), options);
  CHECK(round_trip(side, true) == side);
}

TEST_CASE("digest: recognised by content and read by load_side, alone or beside an ignored file") {
  const fs::path dir = fs::temp_directory_path() / "neuron-gate-digest-test-discover";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const SideSamples side = read_side("base", discover_profile(k_source_dir + "/examples/rmsnorm-4x512/A2"), {});
  write_digest(side, (dir / "a2.ngdigest").string());
  const ProfileInventory single = discover_profile((dir / "a2.ngdigest").string());
  REQUIRE(single.files.size() == 1);
  CHECK(single.files[0].kind == FileKind::digest);
  CHECK(is_digest_side(single));
  const auto origin_recorded = [](const ProfileInventory& inventory) {
    std::optional<RecordedRepository> recorded;
    SideSamples loaded = load_side("base", inventory, {}, &recorded);
    CHECK(recorded.has_value());
    return loaded;
  };
  CHECK(origin_recorded(single) == side);
  { std::ofstream((dir / "notes.txt").string()) << "notes"; }
  CHECK(origin_recorded(discover_profile(dir.string())) == side);
  // A folder holding a digest and a profile file is refused, naming both.
  fs::copy_file(k_source_dir + "/examples/rmsnorm-4x512/A2/e2e.json", dir / "e2e.json");
  try {
    load_side("base", discover_profile(dir.string()), {});
    FAIL("mixed folder accepted");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("a2.ngdigest") != std::string::npos);
    CHECK(std::string(error.what()).find("e2e.json") != std::string::npos);
  }
  // A digest made without --by-shape is refused for a by-shape read.
  TraceReadOptions by_shape;
  by_shape.by_shape = true;
  CHECK_THROWS_WITH_AS(load_side("base", single, by_shape), doctest::Contains("without --by-shape"), InputError);
  fs::remove_all(dir);
}

TEST_CASE("digest: corrupt, truncated, newer and ill-typed digests are input errors naming the file") {
  const SideSamples side = read_side("base", discover_profile(k_source_dir + "/examples/rmsnorm-4x512/A/run-01"), {});
  const std::string bytes = digest_bytes(side);
  // Truncated gzip: the compressed offset where it ended.
  CHECK(digest_error(bytes.substr(0, bytes.size() / 2)).find("bad.ngdigest:byte") == 0);
  // Corrupt deflate data.
  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x5a);
  CHECK(digest_error(corrupt).find("bad.ngdigest") == 0);
  // JSON cut short: the byte offset in the decompressed text.
  const std::string text = gunzip_text(bytes);
  CHECK(digest_error(gzip_text(text.substr(0, 100))).find("bad.ngdigest:byte 100: not valid JSON") == 0);
  CHECK(digest_error(gzip_text(text.substr(0, 100))).find("not valid JSON") != std::string::npos);
  CHECK(digest_error("{\"format\": \"something else\"}").find("not a neuron-gate digest") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["version"] = 2;
        })).find("bad.ngdigest: digest format version 2 was written by a newer neuron-gate") == 0);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["version"] = "1";
        })).find("\"version\" must be an integer") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) { d["side"]["traces"][0]["steps"] = 5; })) ==
        "bad.ngdigest: \"side.traces[0].steps\" must be an array, not 5");
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][0] = 100000;
        })).find("\"side.traces[0].steps[0].ops[0][0]\" is 100000, not an index into the trace's") !=
        std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][1] = std::int64_t{1} << 62;
          d["side"]["traces"][0]["steps"][0]["ops"][1][1] = std::int64_t{1} << 62;
        })).find("the side's times sum to more than 2^62 ns") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][3] = -1;
        })).find("\"side.traces[0].steps[0].ops[0][3]\" must not be negative") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          auto& ops = d["side"]["traces"][0]["steps"][0]["ops"];
          ops[1][0] = ops[0][0];
        })).find("in one step") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["end_to_end"][0]["samples"][0] = -3.0;
        })).find("\"side.end_to_end[0].samples[0]\" must be positive") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["end_to_end"][0]["run_sizes"][0] = 1e6;
        })).find("run_sizes[0]\" must be an integer") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["inventory"]["files"][0]["sha256"] = "/etc/passwd";
        })).find("must be a SHA-256") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["inventory"]["files"][0]["kind"] = "digest";
        })).find("is not a kind of profile file") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["data_problems"] = {{{"kind", "nonsense"}}};
        })).find("bad.ngdigest: ") == 0);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) { d["side"]["extra"] = 1; })) ==
        "bad.ngdigest: unknown key \"side.extra\"");
  CHECK(digest_error(changed_digest([](nlohmann::json& d) { d["side"].erase("traces"); })) ==
        "bad.ngdigest: \"side\" has no \"traces\"");
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["format"] = "perfetto";
        })).find("\"side.traces[0].format\" must be") != std::string::npos);
  // What no trace gives: a negative duration or device time (a negated step would read as a speed-up).
  CHECK(digest_error(
            changed_digest([](nlohmann::json& d) { d["side"]["traces"][0]["steps"][0]["duration_ns"] = -78000; })) ==
        "bad.ngdigest: \"side.traces[0].steps[0].duration_ns\" must not be negative, not -78000 ns (a duration)");
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][2] = -1;
        })).find("\"side.traces[0].steps[0].ops[0][2]\" must not be negative") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["unattributed_device_ns"] = -5;
        })).find("unattributed_device_ns\" must not be negative") != std::string::npos);
  // Negative self CPU time only where the trace's problems list the op (as the trace reader writes it).
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][1] = -7000;
        })).find("\"side.traces[0]\": op ") != std::string::npos);
  CHECK(digest_error(changed_digest([](nlohmann::json& d) {
          d["side"]["traces"][0]["steps"][0]["ops"][0][1] = -7000;
        })).find("but is not in problems.negative_self_time") != std::string::npos);
  const std::string listed = changed_digest([](nlohmann::json& d) {
    nlohmann::json& trace = d["side"]["traces"][0];
    trace["steps"][0]["ops"][0][1] = -7000;
    trace["problems"]["negative_self_time"]
         [trace["names"][trace["steps"][0]["ops"][0][0].get<std::size_t>()].get<std::string>()] = -7000;
  });
  ByteSource listed_source("listed.ngdigest", listed);
  CHECK(read_digest(listed_source).traces[0].steps[0].ops[0].values.self_cpu_ns == -7000);
  // Structure nlohmann would take silently: a repeated key (the last would win) and deep nesting (gigabytes).
  const std::string dup_at = "{\"format\":\"neuron-gate digest\",\"version\":1,";
  CHECK(digest_error(gzip_text(dup_at + "\"version\":1}")) ==
        "bad.ngdigest:byte " + std::to_string(dup_at.size()) +
            ": not valid JSON for neuron-gate: duplicate key \"version\" in one object (which of its values counts "
            "would be a guess)");
  const std::string deep = dup_at + "\"side\":" + std::string(1 << 20, '[');
  CHECK(digest_error(gzip_text(deep)) ==
        "bad.ngdigest:byte " + std::to_string(dup_at.size() + 7 + 199) +
            ": not valid JSON for neuron-gate: nesting deeper than 200 arrays and objects");
  // Hostile text survives as text (the renderers escape it): a name with markup and controls is kept.
  const std::string hostile = changed_digest(
      [](nlohmann::json& d) { d["side"]["traces"][0]["names"][0] = "<img src=x onerror=alert(1)>\u001b[31m|`x"; });
  ByteSource source("hostile.ngdigest", hostile);
  const SideSamples read = read_digest(source);
  CHECK(ops_by_key(read.traces[0], read.traces[0].steps[0]).count("<img src=x onerror=alert(1)>\u001b[31m|`x") == 1);
}

TEST_CASE("digest: four ranks digested one by one combine into the side the whole profile reads") {
  for (const char* side_name : {"base", "head"}) {
    CAPTURE(side_name);
    const std::string whole_spec = k_test_data + "/profiles/four-ranks/" + side_name;
    const SideSamples whole = read_side("base", discover_profile(whole_spec), {});
    std::vector<SideSamples> ranks;
    std::vector<DigestInfo> infos;
    std::vector<std::string> sources;
    for (const int rank : {2, 0, 3, 1}) {  // any order: combined in path order
      const SideSamples one = read_side("base", discover_profile(whole_spec + "/rank-" + std::to_string(rank)), {});
      REQUIRE(one.traces.size() == 9);
      ByteSource source("rank-" + std::to_string(rank) + ".ngdigest", digest_bytes(one));
      DigestInfo info;
      ranks.push_back(read_digest(source, &info));
      infos.push_back(info);
      sources.push_back(source.path());
    }
    SideSamples combined = combine_digest_sides(ranks, infos, sources, "digests");
    combined.label = whole.label;
    CHECK(combined.inventory == whole.inventory);
    CHECK(combined.traces == whole.traces);
    CHECK(combined.end_to_end == whole.end_to_end);
    CHECK(combined == whole);
    REQUIRE(whole.end_to_end.size() == 1);
    CHECK(whole.end_to_end[0].runs == 12);  // 4 ranks x 3 runs
    CHECK(distinct_ranks(whole.traces).size() == 4);
    // The same rank twice is refused, naming both digests.
    ranks.push_back(ranks.front());
    infos.push_back(DigestInfo{});
    sources.push_back("again.ngdigest");
    CHECK_THROWS_WITH_AS(combine_digest_sides(ranks, infos, sources, "digests"), doctest::Contains("again.ngdigest"),
                         InputError);
  }
}
