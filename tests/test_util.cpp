// Tests for src/util/: glob patterns, spelling suggestions, atomic report writing.
#include "util/atomic_file.hpp"
#include "util/date.hpp"
#include "util/error.hpp"
#include "util/glob.hpp"
#include "util/heap_optional.hpp"
#include "util/parallel.hpp"
#include "util/spellcheck.hpp"
#include "util/text.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ng = neuron_gate;

TEST_SUITE_BEGIN("util");

TEST_CASE("ISO dates: days since 1970-01-01 (checked against Python's datetime.date), real dates only") {
  CHECK(ng::parse_iso_date("1970-01-01") == 0);
  CHECK(ng::parse_iso_date("1969-12-31") == -1);
  CHECK(ng::parse_iso_date("2000-03-01") == 11017);
  CHECK(ng::parse_iso_date("2024-02-29") == 19782);
  for (const char* bad :
       {"2023-02-29", "2026-13-01", "2026-00-10", "2026-1-01", " 2026-01-01", "2026-01-01x", "2026/01/01", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(ng::parse_iso_date(bad));
  }
  CHECK(ng::iso_date_from_unix_seconds(0) == "1970-01-01");
  CHECK(ng::iso_date_from_unix_seconds(1767225600) == "2026-01-01");
  CHECK(ng::iso_date_from_unix_seconds(1767225599) == "2025-12-31");
}

TEST_CASE("glob_match handles star, question mark and literal text") {
  CHECK(ng::glob_match("ProfilerStep*", "ProfilerStep#12"));
  CHECK(ng::glob_match("ProfilerStep*", "ProfilerStep*"));
  CHECK_FALSE(ng::glob_match("ProfilerStep*", "aten::ProfilerStep"));
  CHECK(ng::glob_match("aten::*conv*", "aten::cudnn_convolution"));
  CHECK(ng::glob_match("aten::mu?", "aten::mul"));
  CHECK_FALSE(ng::glob_match("aten::mu?", "aten::mul_"));
  CHECK(ng::glob_match("*", ""));
  CHECK_FALSE(ng::glob_match("a", ""));
}

TEST_CASE("closest_word suggests a near key and nothing for a far one") {
  const std::vector<std::string> keys{"alpha", "correction", "threshold", "floor_us"};
  CHECK(ng::closest_word("treshold", keys) == std::optional<std::string>("threshold"));
  CHECK(ng::closest_word("alpah", keys) == std::optional<std::string>("alpha"));
  CHECK_FALSE(ng::closest_word("zzzzzzzz", keys).has_value());
}

TEST_CASE("write_file_atomically replaces the file whole and leaves no temp file") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "neuron-gate-test-atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "report.md").string();
  ng::write_file_atomically(path, "first");
  ng::write_file_atomically(path, "second version");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "second version");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  CHECK_THROWS_AS(ng::write_file_atomically((dir / "missing" / "x.md").string(), "x"), ng::InputError);
  CHECK(ng::same_file(path, (dir / "." / "report.md").string()));
  CHECK_FALSE(ng::same_file(path, (dir / "other.md").string()));
  fs::remove_all(dir);
}

TEST_CASE("AtomicFileWriter streams pieces into a temporary file: the target changes only on commit") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "neuron-gate-test-atomic-writer";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "report.json").string();
  ng::write_file_atomically(path, "old");
  const auto read = [&path] {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  {
    ng::AtomicFileWriter out(path);
    out.write("new ");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);  // target + temporary
    CHECK(read() == "old");
  }  // destroyed uncommitted (a rendering error): the temporary file goes, the target is untouched
  CHECK(read() == "old");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  {
    ng::AtomicFileWriter out(path);
    out.write("new ");
    out.write(std::string(100000, 'x'));
    out.commit();
  }
  CHECK(read() == "new " + std::string(100000, 'x'));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  CHECK_THROWS_AS(ng::AtomicFileWriter((dir / "missing" / "x.json").string()), ng::InputError);
  fs::remove_all(dir);
}

TEST_CASE("InputError names the file and the byte offset") {
  const ng::InputError error("trace.json", "unexpected end of input", 128);
  CHECK(std::string(error.what()) == "trace.json:byte 128: unexpected end of input");
  CHECK(std::string(ng::InputError("rules.json", "unknown key \"x\"").what()) == "rules.json: unknown key \"x\"");
}

TEST_CASE("shorten_middle cuts long text in the middle by code points, marking the cut with an ellipsis") {
  CHECK(ng::shorten_middle("aten::some_fairly_long_operator_name", 16) == "aten::so…or_name");
  CHECK(ng::shorten_middle("aten::mm", 16) == "aten::mm");
  CHECK(ng::shorten_middle("0123456789abcdef", 16) == "0123456789abcdef");   // exactly the limit: unchanged
  CHECK(ng::shorten_middle("0123456789abcdefg", 16) == "01234567…abcdefg");  // 8 + … + 7
  CHECK(ng::shorten_middle("µµµµµµµµµµ", 5) == "µµ…µµ");                     // code points, not bytes
  CHECK(ng::shorten_middle("abcdef", 1) == "a…f");                           // at least 3
}

TEST_CASE("parallel_for runs every item once, returns each item's exception at its index, never nests") {
  for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
    CAPTURE(threads);
    ng::set_worker_threads(threads);
    CHECK(ng::worker_threads() == threads);
    std::vector<std::atomic<int>> runs(100);
    std::atomic<int> nested_threads_seen{0};
    const std::vector<std::exception_ptr> errors = ng::parallel_for(runs.size(), [&](std::size_t i) {
      ++runs[i];
      if (i == 10) {
        // Inside a task the inner loop stays on this thread.
        const std::thread::id here = std::this_thread::get_id();
        ng::parallel_for(5, [&](std::size_t) { nested_threads_seen += std::this_thread::get_id() == here ? 0 : 1; });
      }
      if (i % 30 == 7) {
        throw std::runtime_error("item " + std::to_string(i));
      }
    });
    REQUIRE(errors.size() == runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      CHECK(runs[i] == 1);
      CHECK(static_cast<bool>(errors[i]) == (i % 30 == 7));
    }
    CHECK_THROWS_WITH(std::rethrow_exception(errors[37]), "item 37");
    CHECK(nested_threads_seen == 0);
  }
  CHECK(ng::parallel_for(0, [](std::size_t) {}).empty());
  ng::set_worker_threads(100000);
  CHECK(ng::worker_threads() == ng::k_max_worker_threads);
  ng::set_worker_threads(0);  // back to the default
  CHECK(ng::worker_threads() >= 1);
}

TEST_CASE("a heap optional reads as a default value when empty, copies deep and compares by value") {
  ng::HeapOptional<std::vector<std::string>> empty;
  CHECK_FALSE(empty.has_value());
  CHECK(empty->empty());  // reading an empty one is a default value, not undefined
  ng::HeapOptional<std::vector<std::string>> names = std::vector<std::string>{"aten::mm"};
  REQUIRE(names.has_value());
  ng::HeapOptional<std::vector<std::string>> copy = names;
  CHECK(copy == names);
  copy = std::vector<std::string>{"aten::add"};
  CHECK(*names == std::vector<std::string>{"aten::mm"});  // the copy did not share the value
  CHECK_FALSE(copy == names);
  CHECK_FALSE(empty == names);
  ng::HeapOptional<std::string> until;
  CHECK(until.value_or("?") == "?");
  until = "2030-01-01";
  CHECK(until.value_or("?") == "2030-01-01");
  ng::HeapOptional<std::string> moved = std::move(until);
  CHECK(*moved == "2030-01-01");
}

TEST_SUITE_END();
