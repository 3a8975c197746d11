// The command line's outputs and the inputs that only tables or shapes carry: --html and --junit
// written with the other reports, one file never written twice, the inputs condition from by-shape
// key_averages tables (A vs A_8x512), and a comparison built from key_averages tables alone.
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace neuron_gate::testing;
namespace fs = std::filesystem;

namespace {

// A copy of one example side holding only its `*.key_averages.txt` tables, run folders kept.
fs::path tables_only(const std::string& variant, const fs::path& root) {
  const fs::path out = root / variant;
  for (const auto& entry : fs::recursive_directory_iterator(example(variant))) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.ends_with(".key_averages.txt")) {
      const fs::path target = out / fs::relative(entry.path(), example(variant));
      fs::create_directories(target.parent_path());
      fs::copy_file(entry.path(), target);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("compare writes Markdown, JSON, HTML and JUnit XML together, each whole") {
  const fs::path dir = scratch("all-outputs");
  const CliResult result =
      run({"compare", example("A"), example("Areg"), "--no-git", "--markdown", (dir / "r.md").string(), "--json",
           (dir / "r.json").string(), "--html", (dir / "r.html").string(), "--junit", (dir / "r.xml").string()});
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  const std::string markdown = read_text((dir / "r.md").string());
  CHECK(markdown.starts_with("## ❌ REGRESSION"));
  const std::string html = read_text((dir / "r.html").string());
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("</html>") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
  const std::string junit = read_text((dir / "r.xml").string());
  CHECK(junit.find("<testcase name=\"latency (end-to-end)\"") != std::string::npos);
  CHECK(junit.find("<failure") != std::string::npos);
  const auto report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  CHECK(report["outcome"] == "REGRESSION");
}

// A fall is undecided with the detectable change in its own direction: 1/r of the ratio r > 1 the power
// formula gives (it read as a rise beside the fall; a new user found "throughput -20.4% ... +39.5%").
TEST_CASE("the smallest detectable change of an undecided fall is a fall") {
  const CliResult r = run({"compare", example("A2"), example("A"), "--no-git"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("profiled step time -2.5% (90% CI -7.7…+4.7%), smallest change detectable at this noise -10.3%.") !=
        std::string::npos);
}

TEST_CASE("two reports asked into one file is a usage error and nothing is written") {
  const fs::path dir = scratch("same-output");
  const std::string path = (dir / "report").string();
  const CliResult result = run({"compare", example("A"), example("A2"), "--json", path, "--html", path});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("two reports would be written to one file") != std::string::npos);
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("A vs A_8x512 is not comparable: the by-shape tables show aten::add on 4x1 vs 8x1") {
  const CliResult result = run({"compare", example("A"), example("A_8x512"), "--no-git"});
  CHECK(result.exit_code == 3);
  // Brackets from the data are escaped in Markdown (GFM renders them as typed; they cannot form a link).
  CHECK(result.out.find(
            "| inputs | aten::add \\[\\[4,1\\],\\[\\],\\[\\]\\] | aten::add \\[\\[8,1\\],\\[\\],\\[\\]\\] | ✗") !=
        std::string::npos);
  // Accepting the difference lets the comparison run.
  const CliResult accepted =
      run({"compare", example("A"), example("A_8x512"), "--no-git", "--allow-mismatch", "inputs"});
  CHECK(accepted.exit_code != 3);
  CHECK(accepted.out.find("✗ accepted") != std::string::npos);
}

TEST_CASE("A vs C stays comparable: out= overloads add an argument and are not an input change") {
  const CliResult result = run({"compare", example("A"), example("C"), "--no-git", "--quiet"});
  CHECK(result.exit_code == 0);
}

TEST_CASE("a comparison from key_averages tables alone flags aten::pow in A vs Areg") {
  const fs::path root = scratch("tables-only");
  const fs::path base = tables_only("A", root);
  const fs::path head = tables_only("Areg", root);
  const fs::path json_path = root / "r.json";
  const CliResult result = run({"compare", base.string(), head.string(), "--no-git", "--json", json_path.string()});
  // The extra pow/mean are STRUCTURAL and judged through the replacement group (issue 12): from the tables
  // alone its self CPU per step is 15.5 -> 21.5 µs, 1.429x, REGRESSED (the same as from the traces).
  CHECK(result.exit_code == 1);
  CHECK(result.out.find("| samples_from | key_averages tables | key_averages tables | ✓ |") != std::string::npos);
  const auto report = nlohmann::json::parse(read_text(json_path.string()));
  const auto pow = find_metric(report, "self_cpu", "aten::pow");
  REQUIRE(pow.is_object());
  CHECK(pow["verdict"] == "STRUCTURAL");
  // One table is one sample: A has 80 tables (10 runs of 8 cycles), each run's first a warm-up left out.
  CHECK(pow["base"]["n"] == 70);
  CHECK(pow["head"]["n"] == 70);
  const auto group = find_metric(report, "self_cpu", "replaced ops");
  REQUIRE(group.is_object());
  CHECK(group["verdict"] == "REGRESSED");
  CHECK(group["ratio"].get<double>() == doctest::Approx(1.4286).epsilon(1e-3));
  CHECK(result.out.find("`aten::pow` 1 → 2") != std::string::npos);
}

TEST_CASE("a report into a symbolic link writes its target and keeps the link") {
  const fs::path dir = scratch("symlink-output");
  { std::ofstream(dir / "target.md") << "old"; }
  fs::create_symlink("target.md", dir / "link.md");
  const CliResult result =
      run({"compare", example("A"), example("A2"), "--no-git", "--markdown", (dir / "link.md").string()});
  CHECK(result.exit_code == 0);
  CHECK(fs::is_symlink(dir / "link.md"));
  CHECK(read_text((dir / "target.md").string()).starts_with("## ✅ PASS"));
}

TEST_CASE("a report into a missing folder is refused before any report is written") {
  const fs::path dir = scratch("missing-folder");
  const CliResult result = run({"compare", example("A"), example("Areg"), "--json", (dir / "good.json").string(),
                                "--html", (dir / "nodir" / "x.html").string()});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("does not exist") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "good.json"));
}

TEST_CASE("rules that leave no gating metric are an error and never a pass") {
  const fs::path dir = scratch("ignore-all");
  {
    // No class gates. (The shorter {"ignore": ["*"]} is refused outright: a catch-all, issue 15.)
    std::ofstream(dir / "rules.json") << R"({"metrics": {"end_to_end": {"gate": "never"}, "device": {"gate": "never"},
                                             "self_cpu": {"gate": "never"}, "step_time": {"gate": "never"}}})";
  }
  fs::create_directories(dir / "A");
  fs::create_directories(dir / "Areg");
  fs::copy(example("A") + "/run-01", dir / "A" / "run-01", fs::copy_options::recursive);
  fs::copy(example("Areg") + "/run-01", dir / "Areg" / "run-01", fs::copy_options::recursive);
  const CliResult result = run(
      {"compare", (dir / "A").string(), (dir / "Areg").string(), "--rules", (dir / "rules.json").string(), "--quiet"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("nothing to gate") != std::string::npos);
}

TEST_CASE("an end-to-end sample of zero is an input error naming the file and the metric") {
  const fs::path dir = scratch("zero-sample");
  for (const char* side : {"base", "head"}) {
    fs::create_directories(dir / side);
    std::ofstream(dir / side / "e2e.json")
        << R"({"schema": "neuron-gate.e2e/1", "metrics": [{"name": "throughput", "unit": "samples/s", "better": "higher", "samples": [)"
        << (std::string(side) == "base" ? "330, 331, 329" : "0, 0, 0") << "]}]}";
  }
  const CliResult result = run({"compare", (dir / "base").string(), (dir / "head").string(), "--quiet"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("e2e.json: metric \"throughput\" sample 1 is 0") != std::string::npos);
}

TEST_CASE("a gzip file that does not decompress is an input error, not an ignored file") {
  const fs::path dir = scratch("corrupt-gzip");
  std::string bytes = read_text(data("corpus/H01-cpu-only.pt.trace.json.gz"));
  REQUIRE(bytes.size() > 8);
  bytes[bytes.size() - 6] = static_cast<char>(bytes[bytes.size() - 6] ^ 0xff);  // the CRC-32 trailer
  {
    std::ofstream(dir / "crc.pt.trace.json.gz", std::ios::binary) << bytes;
    std::ofstream(dir / "cut.pt.trace.json.gz", std::ios::binary) << bytes.substr(0, 20);
  }
  for (const char* name : {"crc.pt.trace.json.gz", "cut.pt.trace.json.gz"}) {
    CAPTURE(name);
    const CliResult result = run({"inspect", (dir / name).string()});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("gzip") != std::string::npos);
  }
}

TEST_CASE("--allow-mismatch takes one name each time, before or after the profiles") {
  const CliResult before =
      run({"compare", "--allow-mismatch", "schedule", example("A"), example("A_sched"), "--quiet", "--no-git"});
  CHECK(before.exit_code == 0);
  const CliResult twice = run({"compare", example("A"), example("A_8x512"), "--allow-mismatch", "schedule",
                               "--allow-mismatch", "inputs", "--quiet", "--no-git"});
  // Accepted: compared, not NOT COMPARABLE (3) nor a usage error (2). The 8x512 input's latency is
  // +11.9% (90% CI +9.9…+14.0%), beyond the 10% between-run allowance: a regression, exit 1.
  CHECK(twice.exit_code == 1);
}

TEST_CASE("a number beyond double in a rules file is an input error naming the file") {
  const fs::path dir = scratch("rules-overflow");
  { std::ofstream(dir / "rules.json") << R"({"alpha": 1e400})"; }
  const CliResult result =
      run({"compare", example("A"), example("A2"), "--rules", (dir / "rules.json").string(), "--quiet"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("rules.json") != std::string::npos);
  CHECK(result.err.find("not valid JSON: number overflow parsing '1e400'") != std::string::npos);
  CHECK(result.err.find("internal error") == std::string::npos);
}

TEST_CASE("a file name with LF + ::stop-commands:: reaches stderr on one line, as text (was: echoed raw)") {
  const auto dir = scratch("stop-commands");
  std::filesystem::create_directories(dir / "head");
  std::filesystem::copy_file(example("A") + "/e2e.json", dir / "head" / "e2e.json");
  std::ofstream(dir / "head" / "bad\n::stop-commands::tok\x1b[2J.pt.trace.json")
      << "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1, \"dur\"";
  const CliResult result = run({"compare", example("A"), (dir / "head").string(), "--no-git", "--quiet"});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("bad␊::stop-commands::tok␛[2J.pt.trace.json") != std::string::npos);
  CHECK(result.err.find('\x1b') == std::string::npos);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  CHECK(result.err.rfind("neuron-gate: error: ", 0) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("terminal NOT COMPARABLE names the differing condition with both values") {
  const CliResult r = run({"compare", example("A"), example("A_sched"), "--no-git", "--format", "terminal"});
  CHECK(r.exit_code == 3);
  CHECK(r.out.find("Condition that differs") != std::string::npos);
  CHECK(r.out.find("  schedule  base 1 step per trace → head 2 steps per trace\n") != std::string::npos);
}

TEST_CASE("compare --quiet prints the one-line verdict and nothing else, --format none nothing") {
  const CliResult regression = run({"compare", example("A"), example("Areg"), "--no-git", "--quiet"});
  CHECK(regression.exit_code == 1);
  CHECK(regression.out == "❌ REGRESSION: `latency` +38.4% (90% CI +36.4…+40.5%, threshold 5%)\n");
  const CliResult differ = run({"compare", example("A"), example("A_sched"), "--no-git", "--quiet"});
  CHECK(differ.exit_code == 3);
  CHECK(differ.out == "⛔ NOT COMPARABLE · 1 condition differs\n");
  const CliResult none = run({"compare", example("A"), example("Areg"), "--no-git", "--quiet", "--format", "none"});
  CHECK(none.exit_code == 1);
  CHECK(none.out.empty());
}

TEST_CASE("identical inputs and a head inside base are named in every report, not refused") {
  const fs::path dir = scratch("inputs-overlap");
  const std::string json_path = (dir / "r.json").string(), md = (dir / "r.md").string(),
                    html = (dir / "r.html").string(), notes = (dir / "r.txt").string();
  const CliResult same = run({"compare", example("A"), example("A"), "--no-git", "--format", "terminal", "--json",
                              json_path, "--markdown", md, "--html", html, "--annotations", notes});
  CHECK(same.exit_code == 0);  // named, not refused: the data decide
  CHECK(same.out.find("⚠️ identical inputs: base and head are the same 241 files byte for byte") !=
        std::string::npos);
  const auto report = nlohmann::json::parse(read_text(json_path));
  CHECK(report["inputs_overlap"]["kind"] == "identical");
  CHECK(report["inputs_overlap"]["base_files"] == 241);
  CHECK(report["inputs_overlap"]["head_files"] == 241);
  CHECK(read_text(md).find("\n\n⚠️ identical inputs: base and head are the same 241 files") != std::string::npos);
  CHECK(read_text(html).find("<p class=\"inputs-overlap\">⚠️ identical inputs") != std::string::npos);
  CHECK(read_text(notes).rfind("::warning title=neuron-gate%3A identical inputs::identical inputs", 0) == 0);
  const CliResult quiet = run({"compare", example("A"), example("A"), "--no-git", "--quiet"});
  CHECK(quiet.out.find(" · ⚠️ identical inputs\n") != std::string::npos);

  const CliResult inside =
      run({"compare", example("A"), example("A") + "/run-01", "--no-git", "--json", json_path, "--format", "terminal"});
  CHECK(inside.out.find("⚠️ head inside base: every one of head's 24 files is also one of base's 241") !=
        std::string::npos);
  CHECK(nlohmann::json::parse(read_text(json_path))["inputs_overlap"]["kind"] == "head_inside_base");

  const CliResult apart = run({"compare", example("A"), example("Areg"), "--no-git", "--json", json_path, "--quiet"});
  CHECK(apart.exit_code == 1);
  CHECK(nlohmann::json::parse(read_text(json_path))["inputs_overlap"]["kind"] == "none");
  CHECK(apart.out.find("⚠️") == std::string::npos);
}

TEST_CASE("inspect prints its summary first and the file list last") {
  const CliResult r = run({"inspect", example("A")});
  CHECK(r.exit_code == 0);
  const std::size_t summary = r.out.find("\n## Summary\n"), files = r.out.find("\n## Files\n"),
                    ops = r.out.find("\n## Ops ");
  REQUIRE(summary != std::string::npos);
  REQUIRE(files != std::string::npos);
  CHECK(summary < r.out.find("\n## Conditions"));
  CHECK(ops < files);
  CHECK(r.out.find("\n## ", files + 1) == std::string::npos);  // nothing after the file list
  CHECK(r.out.find("- Files: 241 read (1 end-to-end, 160 key_averages table, 80 trace), 10 ignored") !=
        std::string::npos);
  CHECK(r.out.find("- Traces: 80, 80 sample steps, 18 distinct ops in them\n") != std::string::npos);
}
