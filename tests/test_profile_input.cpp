// Tests for the one input kit (input/byte_source, input/json_input, util/input_limits): every JSON
// reader shares one wording with file and byte offset, gzip by magic bytes, BOM, type errors by key path,
// regular files only, no allocation sized by a gzip trailer. Fixtures: tests/data/bad/ (README there).
#include "formats/benchmark_formats.hpp"
#include "formats/discover.hpp"
#include "formats/e2e_json.hpp"
#include "formats/manifest.hpp"
#include "formats/neuron_summary.hpp"
#include "input/byte_source.hpp"
#include "input/json_input.hpp"
#include "profile/read_side.hpp"
#include "profile/trace_samples.hpp"

#include "test_files.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/sha256.hpp"

#include <doctest/doctest.h>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

using neuron_gate::testing::scratch;

using neuron_gate::testing::input_error_of;

using neuron_gate::testing::k_bad_data;

namespace {}  // namespace

TEST_SUITE_BEGIN("input kit");

TEST_CASE("a value of the wrong type in e2e.json names the file and the key path, not type_error.302") {
  const std::string path = k_bad_data + "e2e-better-number.json";
  const auto error = input_error_of([&] { ng::read_e2e_json(path); });
  REQUIRE(error);
  CHECK(std::string(error->what()) == path + ": \"metrics[0].better\" must be a string, not 5");
}

TEST_CASE("e2e.json.gz is read like e2e.json (gzip by magic bytes), discovered and hashed from the raw bytes") {
  const std::string dir = k_bad_data + "e2e-gzip";
  const ng::ProfileInventory inventory = ng::discover_profile(dir);
  REQUIRE(inventory.files.size() == 1);
  CHECK(inventory.files[0].kind == ng::FileKind::end_to_end);
  const ng::SideSamples side = ng::read_side("head", inventory, {});
  REQUIRE(side.end_to_end.size() == 1);
  CHECK(side.end_to_end[0].name == "latency");
  CHECK(side.end_to_end[0].samples == std::vector<double>{1.0, 1.1, 1.2, 0.9, 1.0});
  const ng::InputText input = ng::read_input_text(dir + "/e2e.json.gz");
  CHECK(input.gzip);
  CHECK(input.text.rfind("{\"schema\": \"neuron-gate.e2e/1\"", 0) == 0);
  // sha256sum tests/data/bad/e2e-gzip/e2e.json.gz
  CHECK(input.sha256 == "7465d658314e801c107f6598280ffccdfb925fa4a3db9e6809ac0a9d9b4b7733");
}

TEST_CASE("every JSON reader gives one wording: PATH:byte N: not valid JSON: reason, BOM counted") {
  const std::string text = "{\"schema\": ,}";
  const std::size_t comma = text.find(',');
  const std::vector<std::pair<std::string, std::function<void()>>> readers = {
      {"e2e", [&] { ng::parse_e2e_json(text, "f.json"); }},
      {"manifest", [&] { ng::parse_manifest(text, "f.json"); }},
      {"hyperfine", [&] { ng::parse_hyperfine_json(text, "f.json"); }},
      {"google benchmark", [&] { ng::parse_google_benchmark_json(text, "f.json"); }},
      {"neuron summary", [&] { ng::parse_neuron_summary_json(text, "f.json"); }},
      {"kit", [&] { ng::parse_json_input(text, "f.json"); }},
  };
  for (const auto& entry : readers) {
    const auto& name = entry.first;  // a variable, not a binding: clang 14 cannot capture bindings (CAPTURE)
    const auto& reader = entry.second;
    CAPTURE(name);
    const auto error = input_error_of(reader);
    REQUIRE(error);
    CHECK(std::string(error->what())
              .rfind("f.json:byte " + std::to_string(comma) + ": not valid JSON: syntax error", 0) == 0);
    CHECK(std::string(error->what()).find("json.exception") == std::string::npos);
  }
  const std::string path = k_bad_data + "manifest-bom-syntax.json";
  const auto error = input_error_of([&] { ng::read_manifest(path); });
  REQUIRE(error);
  REQUIRE(error->byte_offset());
  std::ifstream in(path, std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(*error->byte_offset() == raw.find('}'));
  CHECK(error->problem().rfind("not valid JSON: syntax error while parsing value", 0) == 0);
  CHECK(std::string(error->what()).find("json.exception") == std::string::npos);
}

TEST_CASE("JSON inputs: a key repeated in one object and nesting past 200 are input errors at their offsets") {
  // Escapes are compared decoded; a key may repeat in different objects; strings and comments hide brackets.
  const std::string dup = "{\"a\": {\"b\": 1}, \"b\": [\"[{\"], \"\\u0061\": 2}";
  const auto dup_error = input_error_of([&] { ng::parse_json_input(dup, "f.json"); });
  REQUIRE(dup_error);
  CHECK(std::string(dup_error->what()) ==
        "f.json:byte " + std::to_string(dup.rfind("\"\\u0061")) +
            ": not valid JSON for neuron-gate: duplicate key \"a\" in one object (which "
            "of its values counts would be a guess)");
  CHECK_FALSE(
      input_error_of([&] { ng::parse_json_input("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}", "f.json"); }));
  // nlohmann's lexer ends the input at a NUL byte and ignores the rest: a NUL is a syntax error at its byte.
  const std::string after_nul = std::string("{\"a\": 1}") + '\0' + "{\"\\x\": 1, \"\\x\": 2}";
  const auto nul_error = input_error_of([&] { ng::parse_json_input(after_nul, "f.json"); });
  REQUIRE(nul_error);
  CHECK(std::string(nul_error->what()) == "f.json:byte 8: not valid JSON: a NUL byte, which JSON text never holds");
  const std::string deep = "\xEF\xBB\xBF" + std::string(200, '[') + std::string(200, ']');
  CHECK_FALSE(input_error_of([&] { ng::parse_json_input(deep, "f.json"); }));
  const std::string deeper = "/* [[[ */ {\"x\": \"[[[\", \"y\": " + std::string(300, '[');
  ng::JsonReadOptions comments;
  comments.comments = true;
  const auto deep_error = input_error_of([&] { ng::parse_json_input(deeper, "rules.json", comments); });
  REQUIRE(deep_error);
  CHECK(std::string(deep_error->what()) ==
        "rules.json:byte " + std::to_string(deeper.find(": [") + 2 + 199) +
            ": not valid JSON for neuron-gate: nesting deeper than 200 arrays and objects");
}

TEST_CASE("invalid UTF-8 inside a JSON input is an input error at its byte offset") {
  const std::string path = k_bad_data + "e2e-invalid-utf8.json";
  const auto error = input_error_of([&] { ng::read_e2e_json(path); });
  REQUIRE(error);
  REQUIRE(error->byte_offset());
  CHECK(error->problem().find("ill-formed UTF-8") != std::string::npos);
  CHECK(*error->byte_offset() ==
        std::string("{\"schema\": \"neuron-gate.e2e/1\", \"metrics\": [{\"name\": \"x").size());
}

TEST_CASE("inputs must be regular files: a FIFO, a device and a folder are refused before any read") {
  const fs::path dir = scratch("fifo");
  const std::string fifo = (dir / "rules.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer ever opens the FIFO: a blocking open or read would hang here.
  auto error = input_error_of([&] { ng::read_e2e_json(fifo); });
  REQUIRE(error);
  CHECK(std::string(error->what()) == fifo + ": not a regular file: a FIFO (named pipe); inputs must be regular files");
  error = input_error_of([&] { ng::read_trace_samples(fifo); });
  REQUIRE(error);
  CHECK(error->problem().find("a FIFO") != std::string::npos);
  error = input_error_of([&] { ng::read_input_text("/dev/zero"); });
  REQUIRE(error);
  CHECK(error->problem() == "not a regular file: a character device; inputs must be regular files");
  error = input_error_of([&] { ng::read_manifest(dir.string()); });
  REQUIRE(error);
  CHECK(error->problem() == "is a directory");
  fs::remove_all(dir);
}

TEST_CASE("a gzip ISIZE trailer that lies sizes nothing and is a corrupt-gzip input error") {
  const std::string path = k_bad_data + "isize-lies.pt.trace.json.gz";
  ng::ByteSource source(path);
  // The trailer claims 4 GiB - 1; the hint is from the file size only (4x), never from the trailer.
  CHECK(source.size_hint() <= 4 * fs::file_size(path));
  const auto error = input_error_of([&] { ng::read_trace_samples(path); });
  REQUIRE(error);
  CHECK(error->problem().rfind("corrupt gzip data", 0) == 0);
}

TEST_CASE("discovery sniffs files on the worker threads: one inventory and the first error in walk order for any "
          "thread count") {
  const fs::path dir = scratch("sniff-threads");
  const auto write = [&dir](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  };
  // A trace of 1.5 MiB ("traceEvents" in its first chunk, sniffed where it lies) and one of a few bytes.
  write("a.pt.trace.json", "{\"traceEvents\": [], \"pad\": \"" + std::string(3 << 19, 'x') + "\"}");
  write("b.pt.trace.json", "{\"traceEvents\": []}");
  write("c.txt", "neither JSON nor a table");
  write("d.json", "{\"unknown\": 1}");
  const auto kinds = [&dir] {
    const ng::ProfileInventory inventory = ng::discover_profile(dir.string());
    std::vector<std::string> seen;
    for (const ng::DiscoveredFile& file : inventory.files) {
      seen.push_back(file.relative_path + " " + ng::file_kind_name(file.kind) + " " + file.ignored_reason);
    }
    return seen;
  };
  const std::vector<std::string> expected{
      "a.pt.trace.json trace ", "b.pt.trace.json trace ",
      "c.txt ignored text that is neither JSON, a key_averages table nor a Neuron summary-text",
      "d.json ignored JSON that neuron-gate does not read: top-level keys \"unknown\" (not a trace, e2e.json, "
      "manifest, benchmark-tool or Neuron summary JSON)"};
  // Two gzip files that end early: the error names the first in walk order, sniffed by any thread.
  const std::string gzip_cut("\x1f\x8b\x08\x00", 4);
  for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
    CAPTURE(threads);
    ng::set_worker_threads(threads);
    CHECK(kinds() == expected);
    write("e.json.gz", gzip_cut);
    write("f.json.gz", gzip_cut);
    const auto error = input_error_of([&] { ng::discover_profile(dir.string()); });
    REQUIRE(error);
    CHECK(error->path() == (dir / "e.json.gz").string());
    fs::remove(dir / "e.json.gz");
    fs::remove(dir / "f.json.gz");
  }
  ng::set_worker_threads(0);
  fs::remove_all(dir);
}

TEST_CASE("a ByteSource opened with RawHash::skipped hands out the same bytes and keeps no hash") {
  const std::string path = k_bad_data + "e2e-gzip/e2e.json.gz";
  ng::ByteSource kept(path);
  ng::ByteSource skipped(path, ng::RawHash::skipped);
  std::string a, b;
  for (std::string_view chunk = kept.next(); !chunk.empty(); chunk = kept.next()) {
    a.append(chunk);
  }
  for (std::string_view chunk = skipped.next(); !chunk.empty(); chunk = skipped.next()) {
    b.append(chunk);
  }
  CHECK(a == b);
  CHECK(a.rfind("{\"schema\": \"neuron-gate.e2e/1\"", 0) == 0);
  CHECK(kept.raw_sha256() == "7465d658314e801c107f6598280ffccdfb925fa4a3db9e6809ac0a9d9b4b7733");
  CHECK(skipped.raw_sha256().empty());
}

TEST_CASE("a file of many chunks hashed beside the reader has the SHA-256 of one thread: whole, in part, restarted") {
  // H03: a real MTIA trace, 2.97 MB of gzip (3 raw chunks) inflating to 87 MB; its first 3.5 MB plain.
  const std::string gz_path = std::string(NEURON_GATE_TEST_DATA) + "/corpus/H03-mtia-rank0.json.gz";
  const std::string gz_sha = "74786104b3c45f02b805a5c346a8202c3ecc318a566a65e0b47c56d706374f80";
  std::string plain;
  {
    ng::ByteSource source(gz_path, ng::RawHash::skipped);
    while (plain.size() < (std::size_t{7} << 19)) {
      const std::string_view chunk = source.next();
      REQUIRE(!chunk.empty());
      plain.append(chunk);
    }
  }
  const std::string plain_sha = ng::sha256_hex(plain);
  const auto drain = [](ng::ByteSource& source, std::size_t chunks) {
    for (std::size_t i = 0; i < chunks && !source.next().empty(); ++i) {
    }
  };
  for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    CAPTURE(threads);
    ng::set_worker_threads(threads);
    for (const std::size_t read_first : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
      CAPTURE(read_first);
      {
        ng::ByteSource gz(gz_path);
        drain(gz, read_first);
        CHECK(gz.raw_sha256() == gz_sha);
      }
      ng::ByteSource memory("plain.json", plain);
      drain(memory, read_first);
      if (read_first == 2) {  // the first chunk is hashed while the source sizes itself; from the second on, beside
        CHECK(memory.hashing_beside() == (threads > 1));
        ng::ByteSource second("second.json", plain);
        drain(second, 2);
        CHECK(second.hashing_beside() == (threads > 2));  // with 2 threads, the two readers fill them
        drain(memory, 1);
        CHECK(memory.hashing_beside() == (threads > 2));  // and the first stops hashing beside at its next chunk
        CHECK(second.raw_sha256() == plain_sha);
      }
      CHECK(memory.raw_sha256() == plain_sha);
      CHECK_FALSE(memory.hashing_beside());  // ended with the last raw chunk
    }
    ng::ByteSource restarted(gz_path);
    drain(restarted, 2);
    restarted.restart();
    drain(restarted, 1000);
    CHECK(restarted.raw_sha256() == gz_sha);
    {
      ng::ByteSource abandoned("abandoned.json", plain);  // destroyed mid-file, a chunk in flight
      drain(abandoned, 2);
    }
    ng::ByteSource small(k_bad_data + "e2e-gzip/e2e.json.gz");
    drain(small, 2);
    CHECK_FALSE(small.hashing_beside());  // one chunk: nothing to overlap
  }
  ng::set_worker_threads(0);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NEURON_GATE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define NEURON_GATE_TEST_SANITIZED 1
#endif
#endif

// In a forked child: the source's hashing thread is refused (its stack does not fit under RLIMIT_AS), so
// it must hash on its own thread, give the slot back, and a later source must get one. The exit code says
// which step failed.
int hash_with_threads_refused(const std::string& plain, const std::string& plain_sha) {
  try {
    ng::set_worker_threads(2);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t address_space = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{1} << 30);  // a new 1 GiB stack: never a cached one
    pthread_setattr_default_np(&attr);
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    const rlimit lowered{address_space + (rlim_t{48} << 20), limit.rlim_max};
    if (::setrlimit(RLIMIT_AS, &lowered) != 0) {
      return 10;
    }
    {
      ng::ByteSource refused("refused.json", plain);
      for (int i = 0; i < 2; ++i) {
        refused.next();
      }
      if (refused.hashing_beside()) {
        return 11;  // the limit did not refuse the thread: the test proves nothing
      }
      while (!refused.next().empty()) {
      }
      if (refused.raw_sha256() != plain_sha) {
        return 12;
      }
    }
    ::setrlimit(RLIMIT_AS, &limit);
    pthread_attr_setstacksize(&attr, std::size_t{8} << 20);
    pthread_setattr_default_np(&attr);
    ng::ByteSource later("later.json", plain);
    for (int i = 0; i < 2; ++i) {
      later.next();
    }
    if (!later.hashing_beside()) {
      return 13;  // the refused slot was never given back
    }
    return later.raw_sha256() == plain_sha ? 0 : 14;
  } catch (...) {
    return 15;  // the refusal escaped the reader
  }
}

TEST_CASE("a source the system refuses a hashing thread hashes on its own thread and gives the slot back") {
#ifdef NEURON_GATE_TEST_SANITIZED
  MESSAGE("skipped under sanitizers: they reserve address space that RLIMIT_AS cannot bound");
#else
  std::string plain(std::size_t{7} << 19, ' ');
  for (std::size_t i = 0; i < plain.size(); i += 97) {
    plain[i] = static_cast<char>('a' + i % 26);
  }
  const std::string plain_sha = ng::sha256_hex(plain);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::_exit(hash_with_threads_refused(plain, plain_sha));
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#endif
}

TEST_SUITE_END();
