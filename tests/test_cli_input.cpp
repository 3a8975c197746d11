// Command-line tests for the input kit: files given directly that are not regular files, one JSON error
// wording for rules files (issue 15 items 3, 4; issue 11 item 3).
#include "cli_helpers.hpp"
#include "formats/discover.hpp"
#include "profile/read_side.hpp"
#include "store/digest.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace neuron_gate::testing;

TEST_CASE("--rules on a FIFO is an input error naming it, not a hang") {
  const fs::path dir = scratch("rules-fifo");
  const std::string fifo = (dir / "rules.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliResult result = run({"compare", example("A"), example("A2"), "--rules", fifo, "--quiet", "--no-git"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(fifo + ": not a regular file: a FIFO") != std::string::npos);
  CHECK(result.err.find("internal error") == std::string::npos);
}

TEST_CASE("a rules file with a syntax error gives the one JSON wording, no json.exception text") {
  const fs::path dir = scratch("rules-syntax");
  std::ofstream(dir / "rules.json") << "{\"alpha\": 0.05,,}";
  const CliResult result =
      run({"compare", example("A"), example("A2"), "--rules", (dir / "rules.json").string(), "--quiet", "--no-git"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find((dir / "rules.json").string() + ":byte 15: not valid JSON: syntax error") != std::string::npos);
  CHECK(result.err.find("json.exception") == std::string::npos);
}

TEST_CASE("a profile whose rank folder is a symlink compares with a copy of itself (was NOT COMPARABLE)") {
  const fs::path dir = scratch("rank-symlink");
  fs::create_directories(dir / "base" / "i-0abc_pid_42");
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "head");
  for (const std::string run : {"run-01", "run-02", "run-03", "run-04", "run-05"}) {
    fs::copy(example("A") + "/" + run, dir / "base" / "i-0abc_pid_42" / run, fs::copy_options::recursive);
    fs::copy(example("A") + "/" + run, dir / "elsewhere" / run, fs::copy_options::recursive);
  }
  fs::create_directory_symlink(dir / "elsewhere", dir / "head" / "i-0abc_pid_42");
  const CliResult result = run({"compare", (dir / "base").string(), (dir / "head").string(), "--no-git", "--quiet",
                                "--json", (dir / "report.json").string()});
  CHECK(result.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "report.json").string()));
  // Compared as the copy it is; identical steps still cannot exclude +9.3% of `all ops` (90% CI
  // -8.9…+9.3%), so NO DECISION rather than a pass (docs/decision-rule.md).
  CHECK(report["outcome"] == "NO DECISION");
  CHECK(report["verdict_line"].get<std::string>().find("`all ops` (self CPU) +0.0% (90% CI -8.9…+9.3%): the 90% CI "
                                                       "reaches beyond the 5% threshold") != std::string::npos);
  const CliResult inspect = run({"inspect", (dir / "head").string()});
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("reached through a link leading outside the profile: `i-0abc_pid_42 -> " +
                         fs::canonical(dir / "elsewhere").string() + "`") != std::string::npos);
}

TEST_CASE("head/r -> / neither walks / nor hangs") {
  const fs::path dir = scratch("slash-link");
  fs::copy(example("A"), dir / "head", fs::copy_options::recursive);
  fs::create_directory_symlink("/", dir / "head" / "r");
  const CliResult result = run({"compare", example("A"), (dir / "head").string(), "--no-git", "--quiet"});
  CHECK(result.exit_code == 0);
  CHECK(result.err.find("internal error") == std::string::npos);
}

// Issue 38 item 5 with issue 36 item 6's outcome: events without a usable time are screened as their op's
// data problem, by count (they carry no time to measure); on head alone that is NOT COMPARABLE, "re-profile
// head"; on base alone NO DECISION. Never a green pass on a vanished op, never an error for the whole run.
TEST_CASE("nulling an op's durations: head alone is NOT COMPARABLE (re-profile head), base alone NO DECISION") {
  const fs::path dir = scratch("nulled-op");
  const std::string base = data("bad/nulled-op/base"), head = data("bad/nulled-op/head");
  const CliResult nulled_head =
      run({"compare", base, head, "--no-git", "--quiet", "--json", (dir / "head.json").string()});
  CHECK(nulled_head.exit_code == 3);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "head.json").string()));
  CHECK(report["verdict_line"].get<std::string>().find("re-profile head") != std::string::npos);
  for (const char* name : {"aten::mul", "all ops", "replaced ops"}) {
    CAPTURE(name);
    const nlohmann::json m = find_metric(report, "self_cpu", name);
    REQUIRE(m.is_object());
    CHECK(m["verdict"] == "INCONCLUSIVE");
    CHECK(m["reason"].get<std::string>().find("excluded as data problems on head") != std::string::npos);
  }
  CHECK(find_metric(report, "self_cpu", "aten::add")["reason"].get<std::string>().find("data problems") ==
        std::string::npos);  // only the metrics the screened events touch
  const CliResult nulled_base =
      run({"compare", head, base, "--no-git", "--quiet", "--json", (dir / "base.json").string()});
  CHECK(nulled_base.exit_code == 0);
  CHECK(nlohmann::json::parse(read_text((dir / "base.json").string()))["verdict"] == "no-decision");
}

// One "ts": "NaN" among a real profile's events (the bundled A2, one aten::mul of one trace): counted and
// shown, its op judged as usual (1 of 160 of its calls on head), exit 0 as for A2 itself.
TEST_CASE("one NaN ts in a real profile is a listed data problem, not an error for the whole comparison") {
  const fs::path dir = scratch("one-nan");
  fs::copy(example("A2"), dir / "A2", fs::copy_options::recursive);
  const fs::path trace = dir / "A2/run-02/vm_3637.1796188416212.pt.trace.json";
  std::string text = read_text(trace.string());
  const std::size_t at = text.find("{\"name\": \"aten::mul\", \"ph\": \"X\", \"ts\": ");
  REQUIRE(at != std::string::npos);
  const std::size_t ts = text.find("\"ts\": ", at) + 6;
  text.replace(ts, text.find(',', ts) - ts, "\"NaN\"");
  std::ofstream(trace, std::ios::binary) << text;
  const CliResult r =
      run({"compare", example("A"), (dir / "A2").string(), "--no-git", "--quiet", "--json", (dir / "r.json").string()});
  CHECK(r.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  const nlohmann::json& problem = report["sides"]["head"]["data_problems"][0];
  CHECK(problem["kind"] == "bad_timestamp");
  CHECK(problem["count"] == 1);
  CHECK(problem["example"] == "aten::mul \"ts\": \"NaN\"");
  const nlohmann::json mul = find_metric(report, "self_cpu", "aten::mul");
  CHECK(mul["reason"].get<std::string>().find("data problems") == std::string::npos);
}

TEST_CASE("inspect and the JSON report show a string dur as a data problem (inspect said None found)") {
  const std::string trace = data("bad/string-dur-one-in-201.pt.trace.json");
  const CliResult inspect = run({"inspect", trace});
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("1 events whose dur is not a number (missing, null, a string, NaN): excluded; first: "
                         "aten::add \"dur\": \"n/a\" near byte ") != std::string::npos);
  const fs::path dir = scratch("data-problems-json");
  const CliResult compare = run({"compare", trace, trace, "--no-git", "--quiet", "--json", (dir / "r.json").string(),
                                 "--markdown", (dir / "r.md").string()});
  CHECK(compare.exit_code != 2);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  const nlohmann::json& problem = report["sides"]["head"]["data_problems"][0];
  CHECK(problem["kind"] == "bad_duration");
  CHECK(problem["count"] == 1);
  CHECK(problem["example"] == "aten::add \"dur\": \"n/a\"");
  CHECK(problem["byte"].is_number_unsigned());
  CHECK(read_text((dir / "r.md").string()).find("1 events whose dur is not a number") != std::string::npos);
}

// Issue 39 item 4: a digest's fields are the profile's strings, as hostile as the files they came from.
// inspect printed ignored_reason and rank_source as trusted prose: a crafted .ngdigest gave a live image,
// link, mention, emoji shortcode, issue link and an HTML comment.
TEST_CASE("inspect of a crafted digest renders its fields as text: no image, link, mention or comment") {
  const std::string hostile =
      "![x](https://evil.example/x.png) [click](https://evil.example) @octocat <!-- neuron-gate --> "
      ":white_check_mark: GH-3 #12";
  neuron_gate::SideSamples side = neuron_gate::read_side("base", neuron_gate::discover_profile(example("A")), {});
  REQUIRE(!side.inventory.files.empty());
  REQUIRE(!side.traces.empty());
  side.inventory.files[0].ignored_reason = hostile;
  side.traces[0].rank = 0;
  side.traces[0].rank_source = hostile;
  const fs::path digest = scratch("hostile-digest") / "side.ngdigest";
  neuron_gate::write_digest(side, digest.string());
  const CliResult inspect = run({"inspect", digest.string()});
  INFO(inspect.err);
  REQUIRE(inspect.exit_code == 0);
  CHECK(inspect.out.find("evil.example") != std::string::npos);  // shown, as text
  for (const char* live : {"![", "[click](", "<!--", "@octocat", ":white_check_mark:", "GH-3", "#12"}) {
    CAPTURE(live);
    CHECK(inspect.out.find(live) == std::string::npos);
  }
}

// Issue 38 item 8: the reader aliases Kineto's 2021 category names (Operator, Kernel, Runtime) to the current
// ones; a side written in the other generation, or another schemaVersion, is another profiler: the
// trace_format condition says so (NOT COMPARABLE), and accepted, the aliased events give the same numbers.
TEST_CASE("trace_format: 2021 category names against current ones differ, and accepted read the same") {
  const fs::path dir = scratch("trace-format");
  fs::copy(data("bad/screen/clean"), dir / "old", fs::copy_options::recursive);
  for (const char* run : {"run-01", "run-02", "run-03"}) {
    const fs::path trace = dir / "old" / run / "trace.pt.trace.json";
    std::string text = read_text(trace.string());
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"\"cat\":\"cpu_op\"", "\"cat\":\"Operator\""},
                                                          {"\"cat\":\"kernel\"", "\"cat\":\"Kernel\""},
                                                          {"\"cat\":\"cuda_runtime\"", "\"cat\":\"Runtime\""},
                                                          {"\"schemaVersion\":1,", ""}}) {
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
      }
    }
    std::ofstream(trace, std::ios::binary) << text;
  }
  const std::string base = data("bad/screen/base");
  const CliResult differs =
      run({"compare", base, (dir / "old").string(), "--no-git", "--quiet", "--json", (dir / "differs.json").string()});
  CHECK(differs.exit_code == 3);
  const nlohmann::json report = nlohmann::json::parse(read_text((dir / "differs.json").string()));
  bool named = false;
  for (const nlohmann::json& row : report["conditions"]) {
    if (row["name"] == "trace_format") {
      named = true;
      CHECK(row["matches"] == false);
      CHECK(row["base"] == "schemaVersion 1, current categories (cpu_op, kernel, ...)");
      CHECK(row["head"] == "no schemaVersion, 2021 categories (Operator, Kernel, Runtime)");
    }
  }
  CHECK(named);
  const CliResult accepted = run({"compare", base, (dir / "old").string(), "--no-git", "--quiet", "--allow-mismatch",
                                  "trace_format", "--json", (dir / "accepted.json").string()});
  const CliResult same =
      run({"compare", base, data("bad/screen/clean"), "--no-git", "--quiet", "--json", (dir / "same.json").string()});
  CHECK(accepted.exit_code == same.exit_code);
  CHECK(nlohmann::json::parse(read_text((dir / "accepted.json").string()))["metrics"] ==
        nlohmann::json::parse(read_text((dir / "same.json").string()))["metrics"]);
}
