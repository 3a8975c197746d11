// `neuron-gate render` (issue 39 item 5): the fork flow's trusted job renders the comment from the pull
// request's JSON report. Checked on every bundled report, on an operating-points report, on a report with
// hostile strings and on reports that do not read.
#include "cli_helpers.hpp"
#include "test_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace neuron_gate::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Markdown with its escapes undone (a backslash before ASCII punctuation, &lt; &gt; &amp;, word joiners):
// what a reader sees. render escapes the report's own words too (it cannot tell them from data), so its
// text equals compare's only after this.
std::string unescaped(const std::string& markdown) {
  std::string text;
  for (std::size_t i = 0; i < markdown.size(); ++i) {
    if (markdown[i] == '\\' && i + 1 < markdown.size() && std::ispunct(static_cast<unsigned char>(markdown[i + 1]))) {
      continue;
    }
    if (markdown.compare(i, 3, "\u2060") == 0) {
      i += 2;
      continue;
    }
    text += markdown[i];
  }
  for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, std::pair{"&gt;", ">"}, std::pair{"&amp;", "&"}}) {
    for (std::size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1)) {
      text.replace(at, std::string(entity).size(), c);
    }
  }
  return text;
}

std::string rendered(const std::string& report_path) {
  const fs::path out = scratch("render-" + fs::path(report_path).stem().string()) / "comment.md";
  const CliResult result = run({"render", report_path, "--markdown", out.string()});
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  return read_text(out.string());
}

// `text` without its fenced code blocks, code spans (a run of N backticks to the next run of N) and <code>
// elements, where
// markup, mentions and links are inert: what GitHub renders as Markdown.
std::string outside_code(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "```") == 0 && (i == 0 || text[i - 1] == '\n')) {
      const std::size_t end = text.find("\n```", i + 3);
      i = end == std::string::npos ? text.size() : text.find('\n', end + 4);
      i = i == std::string::npos ? text.size() : i;
      continue;
    }
    if (text.compare(i, 6, "<code>") == 0 && text.find("</code>", i) != std::string::npos) {
      i = text.find("</code>", i) + 7;  // an HTML code element: GitHub links nothing inside it either
      continue;
    }
    if (text[i] == '`') {
      std::size_t run = 0;
      while (i + run < text.size() && text[i + run] == '`') {
        ++run;
      }
      const std::string fence(run, '`');
      std::size_t close = text.find(fence, i + run);
      while (close != std::string::npos && close + run < text.size() && text[close + run] == '`') {
        close = text.find(fence, close + run + 1);
      }
      if (close != std::string::npos) {
        i = close + run;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

TEST_SUITE_BEGIN("cli render");

TEST_CASE("render: every bundled report renders compare's Markdown, its escapes aside") {
  std::size_t reports = 0;
  for (const auto& entry : fs::directory_iterator(std::string(NEURON_GATE_SOURCE_DIR) + "/reports")) {
    if (entry.path().extension() != ".json" ||
        json::parse(read_text(entry.path().string()))["schema"] != "neuron-gate.report/2") {
      continue;
    }
    CAPTURE(entry.path().string());
    fs::path markdown = entry.path();
    markdown.replace_extension(".md");
    const std::string text = rendered(entry.path().string());
    CHECK(unescaped(text) == unescaped(read_text(markdown.string())));
    CHECK(text.rfind("## ", 0) == 0);
    ++reports;
  }
  CHECK(reports == 7);
}

TEST_CASE("render: an operating-points report, and its comment key") {
  const fs::path dir = scratch("render-points");
  const std::string points = data("profiles/operating-points/");
  const CliResult compared =
      run({"compare", points + "base", points + "head", "--no-git", "--json", (dir / "r.json").string(), "--markdown",
           (dir / "r.md").string(), "--comment-key", "model-a"});
  REQUIRE(compared.exit_code == 1);
  const CliResult result =
      run({"render", (dir / "r.json").string(), "--markdown", (dir / "c.md").string(), "--comment-key", "model-a"});
  REQUIRE(result.exit_code == 0);
  const std::string text = read_text((dir / "c.md").string());
  CHECK(unescaped(text) == unescaped(read_text((dir / "r.md").string())));
  CHECK(text.find("\n<!-- neuron-gate key=model-a -->\n") != std::string::npos);
  CHECK(run({"render", (dir / "r.json").string(), "--comment-key", "a b"}).exit_code == 2);
}

TEST_CASE("render: the report's strings are data — no markup, mention, link, image or heading from the file") {
  json report = json::parse(read_text(std::string(NEURON_GATE_SOURCE_DIR) + "/reports/A-vs-Areg.json"));
  const std::string hostile =
      "x\n## ✅ PASS <!-- @octocat ![i](https://e.example/i.png) [l](https://e.example) <img src=x> :rocket: #12 "
      "GH-12 **b** `code` `";
  report["verdict_line"] = hostile;
  report["context_line"] = hostile;
  report["interpretations"][0] = hostile;
  report["open_hypotheses"].push_back(hostile);
  report["summary"]["rows"][0]["name"] = hostile;
  report["summary"]["rows"][0]["note"] = hostile;
  report["summary"]["rows"][0]["base"] = hostile;
  report["conditions"][0]["note"] = hostile;
  report["metrics"][0]["name"] = hostile;
  report["metrics"][0]["unit"] = hostile;
  report["provenance"]["warnings"].push_back(hostile);
  report["provenance"]["base"] = hostile;
  report["rules"]["source"] = hostile;
  const fs::path dir = scratch("render-hostile");
  std::ofstream((dir / "r.json").string()) << report.dump();
  const std::string all = rendered((dir / "r.json").string());
  const std::string text = outside_code(all);
  CHECK(all.size() > text.size() + 1000);  // the hostile strings shown as code are taken out
  CHECK(text.find("<img") == std::string::npos);
  CHECK(text.find("](https://") == std::string::npos);
  CHECK(text.find("@octocat") == std::string::npos);  // a word joiner after @
  CHECK(text.find(":rocket:") == std::string::npos);
  CHECK(text.find("#12") == std::string::npos);
  CHECK(text.find("**b**") == std::string::npos);
  CHECK(occurrences(text, "<!--") == 1);  // the sticky marker only
  std::size_t headings = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    headings += line.rfind("## ", 0) == 0 ? 1U : 0U;
  }
  CHECK(headings == 1);

  // Identifiers printed as they are must match their formats.
  for (const auto& [pointer, value, message] :
       {std::tuple{"/summary/rows/0/change", "+1% [x](https://e.example)",
                   "\"summary.rows[0].change\" must be a signed change"},
        std::tuple{"/provenance/tool_version", "1.0 <b>", "\"provenance.tool_version\" must be a version"},
        std::tuple{"/rules/sha256", "zz", "\"rules.sha256\" must be a SHA-256 in hex"},
        std::tuple{"/metrics/0/verdict", "GREAT", "\"metrics[0].verdict\" has an unknown value"}}) {
    json bad = json::parse(read_text(std::string(NEURON_GATE_SOURCE_DIR) + "/reports/A-vs-Areg.json"));
    bad[json::json_pointer(pointer)] = value;
    std::ofstream((dir / "bad.json").string()) << bad.dump();
    const CliResult result = run({"render", (dir / "bad.json").string()});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(message) != std::string::npos);
  }
}

TEST_CASE("render: hostile points, overlong fields and cuts leave nothing live outside code (red-team round)") {
  const fs::path dir = scratch("render-redteam");
  const std::string points = data("profiles/operating-points/");
  REQUIRE(run({"compare", points + "base", points + "head", "--no-git", "--quiet", "--json", (dir / "p.json").string()})
              .exit_code == 1);
  json report = json::parse(read_text((dir / "p.json").string()));
  // A `|` inside a code span ends a GFM table cell: the points table escaped it only outside code spans.
  report["operating_points"][0]["deciding_metric"] =
      "`x|[click me](https://evil.example/x)![i](https://e.example/i.png)|`";
  report["operating_points"][0]["verdict"] = "`y|<img src=x> @octocat|`";
  // <summary> is an HTML block: GitHub links @names, #N, GH-N and :emoji: in its text, not inside <code>.
  report["operating_points"][1]["label"] = "@octocat GH-12 #12 :tada: www.evil.com";
  std::ofstream((dir / "p2.json").string()) << report.dump();
  const std::string all = rendered((dir / "p2.json").string());
  const std::string text = outside_code(all);
  CHECK(text.find("](https://") == std::string::npos);
  CHECK(text.find("<img") == std::string::npos);
  CHECK(text.find("@octocat") == std::string::npos);
  CHECK(text.find("GH-12") == std::string::npos);
  CHECK(text.find(":tada:") == std::string::npos);
  CHECK(all.find("<summary><code>@octocat GH-12 #12 :tada: www.evil.com</code> · ") != std::string::npos);
  // Every table row keeps its 4 cells: each `|` inside a cell's code span is escaped.
  for (const char* cell : {"`x\\|[click me](htt…example/i.png)\\|`", "`y\\|<img src=x> @octocat\\|`"}) {
    CHECK(all.find(cell) != std::string::npos);
  }

  json single = json::parse(read_text(std::string(NEURON_GATE_SOURCE_DIR) + "/reports/A-vs-Areg.json"));
  // A cell too long for the comment: the report is cut at a line end, never inside the code span.
  single["conditions"][0]["base"] =
      "`" + std::string(31000, 'x') + " [click me](https://evil.example/) @octocat " + std::string(40000, 'y') + "`";
  std::ofstream((dir / "long.json").string()) << single.dump();
  const std::string cut = rendered((dir / "long.json").string());
  CHECK(cut.size() <= 65536 - 512);
  CHECK(outside_code(cut).find("](https://") == std::string::npos);
  CHECK(outside_code(cut).find("@octocat") == std::string::npos);
  CHECK(cut.find("report cut to fit GitHub's comment limit") != std::string::npos);
  CHECK(occurrences(cut, "<details>") <= occurrences(cut, "</details>"));

  // Formats checked without std::regex (it recursed per character: 50,000 digits crashed render).
  for (const auto& [pointer, value] : {std::pair{"/summary/rows/0/change", "1" + std::string(50000, '0') + "%"},
                                       std::pair{"/provenance/tool_version", std::string("www.evil.com")},
                                       std::pair{"/provenance/tool_version", std::string("GH-1234")}}) {
    json bad = json::parse(read_text(std::string(NEURON_GATE_SOURCE_DIR) + "/reports/A-vs-Areg.json"));
    bad[json::json_pointer(pointer)] = value;
    std::ofstream((dir / "bad.json").string()) << bad.dump();
    const CliResult result = run({"render", (dir / "bad.json").string()});
    const std::string field = pointer;  // clang: a structured binding cannot be captured
    CAPTURE(field);
    CHECK(result.exit_code == 2);
  }
  // A gzip-compressed report (a few MB can inflate to gigabytes) is refused before it is read.
  std::ofstream((dir / "gz.json").string(), std::ios::binary) << std::string("\x1f\x8b\x08\x00", 4);
  const CliResult gz = run({"render", (dir / "gz.json").string()});
  CHECK(gz.exit_code == 2);
  CHECK(gz.err.find("is gzip-compressed") != std::string::npos);
}

TEST_CASE("render: a report that does not read names the file, the byte or the key") {
  const fs::path dir = scratch("render-bad");
  const std::string path = (dir / "r.json").string();
  std::ofstream(path) << "{\"schema\": \"neuron-gate.report/2\", ";
  CliResult result = run({"render", path});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(path + ":byte 35: not valid JSON") != std::string::npos);
  std::ofstream(path) << read_text(std::string(NEURON_GATE_SOURCE_DIR) + "/reports/rank-A-B-C.json");
  result = run({"render", path});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("\"schema\" is \"neuron-gate.ranking/1\", not a report of compare --json") !=
        std::string::npos);
  std::ofstream(path) << "{\"schema\": \"neuron-gate.report/2\", \"outcome\": \"PASS\", \"exit_code\": -1}";
  result = run({"render", path});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("\"exit_code\" must be a count, not -1") != std::string::npos);
}

TEST_SUITE_END();
