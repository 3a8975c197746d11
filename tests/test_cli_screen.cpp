// The event screen end to end (issue 13 items 1 and 2): one fixture per screening class in
// tests/data/bad/screen (made by make_fixtures.py there; README.md says what each holds). Base is clean, head
// carries one class of fault; each case asserts the kind, count, excluded time and share in the JSON report,
// the Markdown's Data problems line, and the exit code: never 1 and never an IMPROVED or REGRESSED metric
// from screened data.

#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace neuron_gate::testing;

namespace {

struct Screened {
  CliResult result;
  nlohmann::json report;
  std::string markdown;
};

// Compares the clean capture `base` with the faulty one `head` (bad/screen/); `swapped` puts the faulty one
// on base's side.
Screened compare_screen(const std::string& head, std::vector<std::string> extra = {}, bool swapped = false,
                        const std::string& base = "base") {
  const auto dir = scratch("screen-" + head + (swapped ? "-swapped" : ""));
  const std::string clean = data("bad/screen/" + base), faulty = data("bad/screen/" + head);
  std::vector<std::string> args = {
      "compare",    swapped ? faulty : clean, swapped ? clean : faulty, "--no-git", "--json", (dir / "r.json").string(),
      "--markdown", (dir / "r.md").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  Screened s;
  s.result = run(args);
  s.report = nlohmann::json::parse(read_text((dir / "r.json").string()));
  s.markdown = read_text((dir / "r.md").string());
  return s;
}

// Head's data problems of one kind, one per file.
std::vector<nlohmann::json> problems(const Screened& s, const std::string& kind) {
  std::vector<nlohmann::json> found;
  for (const auto& p : s.report["sides"]["head"]["data_problems"]) {
    if (p["kind"] == kind) {
      found.push_back(p);
    }
  }
  return found;
}

double sum(const std::vector<nlohmann::json>& found, const char* key) {
  double total = 0;
  for (const auto& p : found) {
    total += p[key].get<double>();
  }
  return total;
}

std::int64_t count(const std::vector<nlohmann::json>& found) {
  std::int64_t total = 0;
  for (const auto& p : found) {
    total += p["count"].get<std::int64_t>();
  }
  return total;
}

// No metric is REGRESSED or IMPROVED and the exit code is not 1.
void never_decided_from_screened(const Screened& s) {
  CHECK(s.result.exit_code != 1);
  for (const auto& m : s.report["metrics"]) {
    CAPTURE(m["name"].get<std::string>());
    CHECK(m["verdict"] != "REGRESSED");
    CHECK(m["verdict"] != "IMPROVED");
  }
}

// The device metrics holding screened events (`affected`, by name) are INCONCLUSIVE because the data are
// incomplete, the others keep their verdicts; self CPU metrics keep theirs (no CPU event was screened); the
// verdict line says the data are incomplete. The problems are head's, evidence the PR controls: NOT
// COMPARABLE, exit 3, "re-profile head" (docs/decision-rule.md).
// `op`'s device metric and the device `all ops` are INCONCLUSIVE with "device time missing for `op` on
// head", named in the verdict line (NOT COMPARABLE, exit 3: head's evidence); no metric decided from it.
void device_metrics_missing(const Screened& s, const std::string& op) {
  CHECK(s.result.exit_code == 3);
  CHECK(s.report["verdict"] == "not-comparable");
  const std::string missing = "device time missing for `" + op + "` on head";
  CHECK(s.report["verdict_line"].get<std::string>().find(missing) != std::string::npos);
  for (const char* name : {"all ops", op.c_str()}) {
    const auto m = find_metric(s.report, "device", name);
    CAPTURE(name);
    CHECK(m["verdict"] == "INCONCLUSIVE");
    CHECK(m["reason"].get<std::string>().rfind(missing, 0) == 0);
  }
  never_decided_from_screened(s);
}

void device_metrics_incomplete(const Screened& s, const std::vector<std::string>& affected) {
  CHECK(s.result.exit_code == 3);
  CHECK(s.report["verdict"] == "not-comparable");
  CHECK(s.report["verdict_line"].get<std::string>().find("the data are incomplete") != std::string::npos);
  CHECK(s.report["verdict_line"].get<std::string>().find("; re-profile head") != std::string::npos);
  int device = 0, incomplete = 0;
  for (const auto& m : s.report["metrics"]) {
    const std::string name = m["name"].get<std::string>();
    CAPTURE(name);
    const bool is_incomplete = m["reason"].get<std::string>().find("max_excluded_share") != std::string::npos;
    incomplete += is_incomplete ? 1 : 0;
    if (m["class"] != "device") {
      CHECK(!is_incomplete);
      CHECK(m.count("screened_events") == 0);
      continue;
    }
    ++device;
    const bool hit = name == "all ops" || std::find(affected.begin(), affected.end(), name) != affected.end();
    CHECK(is_incomplete == hit);
    // the others as on a clean head: same code, so EQUIVALENT, or INCONCLUSIVE where the runs' medians
    // spread beyond the threshold (never for incomplete data: is_incomplete above)
    CHECK((m["verdict"] == "INCONCLUSIVE" || (!hit && m["verdict"] == "EQUIVALENT")));
    if (hit) {
      CHECK(m["screened_events"]["head"] == true);
      CHECK(m["screened_events"]["base"] == false);
    }
  }
  CHECK(device == 3);  // two ops and the device total `all ops` (replacement_groups.hpp)
  CHECK(incomplete == static_cast<int>(affected.size()) + 1);
}

}  // namespace

TEST_CASE("screen: a clean head has no data problem and passes") {
  const Screened s = compare_screen("clean");
  CHECK(s.result.exit_code == 0);
  CHECK(s.report["verdict"] == "pass");
  CHECK(s.report["sides"]["head"]["data_problems"].empty());
  CHECK(s.report["sides"]["base"]["data_problems"].empty());
}

TEST_CASE("screen: device events at ts 0 or a day after the trace are excluded — device metrics INCONCLUSIVE") {
  const Screened s = compare_screen("device-out-of-range");
  const auto found = problems(s, "device_out_of_range");
  REQUIRE(found.size() == 3);  // one entry per trace
  CHECK(count(found) == 6);    // ts 0 in step 2, a day later in step 4, in each of 3 traces
  CHECK(sum(found, "excluded_device_us") == doctest::Approx(605 + 601 + 606));  // the gemm kernels' durations
  CHECK(sum(found, "excluded_self_cpu_us") == 0);
  CHECK(found[0]["example"] == "gemm \"ts\": 0.000, \"dur\": 303.000");
  CHECK(found[0]["byte"] == 2097);
  CHECK(s.report["sides"]["head"]["excluded_device_share"].get<double>() == doctest::Approx(0.2932).epsilon(0.001));
  device_metrics_incomplete(s, {"aten::mm"});  // only gemm (launched by aten::mm) was screened
  never_decided_from_screened(s);
  CHECK(s.markdown.find("device events at ts 0 or outside the trace's time range: excluded") != std::string::npos);
}

TEST_CASE("screen: a 2 s kernel in a 1 ms step is excluded") {
  const Screened s = compare_screen("longer-than-step");
  const auto found = problems(s, "longer_than_step");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 3);
  CHECK(sum(found, "excluded_device_us") == 3 * 2000000.0);
  CHECK(found[0]["example"] == "gemm \"ts\": 1700000000002030.000, \"dur\": 2000000.000");
  device_metrics_incomplete(s, {"aten::mm"});
  never_decided_from_screened(s);
}

TEST_CASE("screen: exact duplicates of every kernel are excluded (a 2x regression otherwise)") {
  const Screened s = compare_screen("duplicate");
  const auto found = problems(s, "duplicate");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 36);  // 12 kernels per trace written twice
  CHECK(sum(found, "excluded_device_us") == 2056 + 2052 + 2060);
  CHECK(s.report["sides"]["head"]["excluded_device_share"].get<double>() == doctest::Approx(0.5));
  device_metrics_incomplete(s, {"aten::mm", "aten::add"});
  never_decided_from_screened(s);
  SUBCASE("with the share allowed (rules max_excluded_share 1) the de-duplicated head equals base") {
    const auto dir = scratch("screen-rules");
    std::ofstream(dir / "rules.json") << R"({"schema": "neuron-gate.rules/1", "max_excluded_share": 1.0})";
    const Screened allowed = compare_screen("duplicate", {"--rules", (dir / "rules.json").string()});
    CHECK(allowed.result.exit_code == 0);
    CHECK(allowed.report["verdict"] == "pass");
    CHECK(find_metric(allowed.report, "device", "aten::mm")["verdict"] == "EQUIVALENT");
  }
}

TEST_CASE("screen: unfinished (dur -1) and negative durations are excluded with an estimated time") {
  const Screened s = compare_screen("negative-durations");
  const auto unfinished = problems(s, "unfinished");
  const auto negative = problems(s, "negative_duration");
  REQUIRE(unfinished.size() == 3);
  REQUIRE(negative.size() == 3);
  CHECK(count(unfinished) == 3);
  CHECK(count(negative) == 3);
  CHECK(unfinished[0]["example"] == "gemm \"dur\": -1");
  CHECK(negative[0]["example"] == "gemm \"dur\": -250");
  // the estimate is the median dur of the trace's other gemm kernels
  CHECK(sum(unfinished, "excluded_device_us") == 303 + 303 + 301);
  CHECK(s.report["sides"]["head"]["unfinished_events_excluded"] == 3);
  CHECK(s.report["sides"]["head"]["negative_duration_events_excluded"] == 3);
  // the unusable gemm events are named by their correlation with aten::mm's launch
  device_metrics_incomplete(s, {"aten::mm"});
  never_decided_from_screened(s);
}

// Issue 38 item 2: a kernel stamped at ts 0 with dur 0 stands for one that ran. Excluded with the time it
// carried (0), 4 of 6 steps per trace read aten::mm's device time as 0: IMPROVED -99%, exit 0. Each
// placeholder now weighs the median dur of the kept kernels of its name.
TEST_CASE("screen: zero-duration placeholders weigh their kernel's median time, never read as a speed-up") {
  const Screened s = compare_screen("zero-placeholders");
  const auto found = problems(s, "device_out_of_range");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 12);  // steps 2 to 5 of each of 3 traces
  // 4 placeholders per trace, each the median of that trace's 2 kept gemm kernels (300-303 µs)
  CHECK(sum(found, "excluded_device_us") == doctest::Approx(12 * 301.5).epsilon(0.01));
  CHECK(s.report["sides"]["head"]["excluded_device_share"].get<double>() > 0.5);
  device_metrics_incomplete(s, {"aten::mm"});
  never_decided_from_screened(s);
  CHECK(s.result.exit_code == 3);  // head's data alone: re-profile head
  CHECK(s.report["verdict_line"].get<std::string>().find("re-profile head") != std::string::npos);
  // The placeholders on base (read as a 3x regression of aten::mm device before): NO DECISION, never exit 1.
  const Screened on_base = compare_screen("zero-placeholders", {}, true);
  CHECK(on_base.result.exit_code == 0);
  CHECK(on_base.report["verdict"] == "no-decision");
  never_decided_from_screened(on_base);
}

// Issue 38 item 9: two patterns that are faults of a trace or legitimate (one launch of several kernels)
// were never counted: now counted under Data problems, nothing excluded.
TEST_CASE("screen: overlapping kernels on one stream and a shared correlation id are counted, not excluded") {
  const Screened s = compare_screen("overlap-shared");
  const auto overlapping = problems(s, "overlapping_device_events");
  const auto shared = problems(s, "shared_correlation");
  REQUIRE(overlapping.size() == 3);  // one entry per trace
  REQUIRE(shared.size() == 3);
  CHECK(count(overlapping) == 3);
  CHECK(count(shared) == 3);
  CHECK(overlapping[0]["example"].get<std::string>().rfind("add_k \"ts\": ", 0) == 0);
  CHECK(shared[0]["example"].get<std::string>().rfind("gemm_tail \"ts\": ", 0) == 0);
  CHECK(overlapping[0].contains("excluded_device_us") == false);  // nothing excluded
  CHECK(s.result.exit_code == 0);
  CHECK(s.report["verdict"] == "pass");
  CHECK(s.markdown.find("device events starting before the previous one on their stream ended") != std::string::npos);
  CHECK(problems(compare_screen("clean"), "overlapping_device_events").empty());
}

// Issue 38 item 3: a stub holding exactly a quarter of a step's CPU events (1 of 4: it stopped inside the
// first op) is cut off too; it was kept as a 7th step, so the schedule differed (NOT COMPARABLE).
TEST_CASE("screen: a cut-off last step with exactly a quarter of a step's CPU events is excluded") {
  const Screened s = compare_screen("cut-off-step-quarter");
  const auto found = problems(s, "cut_off_step");
  REQUIRE(found.size() == 3);
  CHECK(sum(found, "excluded_self_cpu_us") == 3 * 30.0);  // each stub: its ProfilerStep (30 µs) with aten::mm inside
  CHECK(found[0]["example"] == "ProfilerStep#7: 0.030 ms, its process's other steps about 0.990 ms");
  CHECK(s.result.exit_code == 0);
  CHECK(s.report["verdict"] == "pass");
  CHECK(s.report["sides"]["head"]["sample_steps"] == 18);
  never_decided_from_screened(s);
}

TEST_CASE("screen: a cut-off last step is excluded — its tiny share leaves the metrics decided") {
  const Screened s = compare_screen("cut-off-step");
  const auto found = problems(s, "cut_off_step");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 3);
  CHECK(sum(found, "excluded_self_cpu_us") == 3 * 20.0);  // the 20 µs stubs' own time
  CHECK(found[0]["example"] == "ProfilerStep#7: 0.020 ms, its process's other steps about 0.990 ms");
  CHECK(s.report["sides"]["head"]["excluded_self_cpu_share"].get<double>() < 0.01);
  CHECK(s.result.exit_code == 0);
  CHECK(s.report["verdict"] == "pass");
  CHECK(s.report["sides"]["head"]["sample_steps"] == 18);  // 6 full steps per trace, stubs left out
  never_decided_from_screened(s);
}

TEST_CASE("screen: kernel launches without any device event lose device time") {
  const Screened s = compare_screen("device-time-lost");
  const auto found = problems(s, "device_time_lost");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 36);  // every cudaLaunchKernel of the 3 traces
  CHECK(found[0]["device_share"] == 1.0);
  CHECK(s.result.exit_code == 3);  // the device_time condition already differs
  never_decided_from_screened(s);
  SUBCASE("accepting the difference leaves the device metrics INCONCLUSIVE, never IMPROVED") {
    const Screened accepted = compare_screen("device-time-lost", {"--allow-mismatch", "device_time"});
    CHECK(accepted.result.exit_code == 3);  // head's device time lost: re-profile head
    CHECK(accepted.report["verdict"] == "not-comparable");
    CHECK(accepted.report["sides"]["head"]["excluded_device_share"] == 1.0);
    // the total loss is named in the headline (issue 38 item 4), not "the data are incomplete"
    CHECK(accepted.report["verdict_line"].get<std::string>().find(
              "device time missing on head: device work was launched but no device time was captured") !=
          std::string::npos);
    never_decided_from_screened(accepted);
  }
  CHECK(s.markdown.find("runtime calls with a correlation id and no device event in the trace") != std::string::npos);
}

// Issue 38 items 1 and 4: launches whose device events are missing are found by correlation and flow
// (a call of a name that launched device work elsewhere in the trace, or a flow start with no finish),
// never by the call's name; the op whose CPU calls remain is named, never read as "no longer runs".
TEST_CASE("screen: a partial loss of device events is found by links and named for the op that launched it") {
  // 2 of 6 gemm kernels per trace lost (cudaLaunchKernel and its ac2g flow start remain)
  const Screened s = compare_screen("device-events-missing");
  const auto found = problems(s, "device_events_missing");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 6);
  CHECK(found[0]["example"].get<std::string>().rfind("cudaLaunchKernel \"ts\": ", 0) == 0);
  // each stand-in weighs the median of aten::mm's launched gemm kernels (300-303 µs), not add_k's 40 µs
  CHECK(sum(found, "excluded_device_us") == doctest::Approx(6 * 301.5).epsilon(0.01));
  CHECK(s.report["sides"]["head"]["excluded_device_share"].get<double>() == doctest::Approx(0.29).epsilon(0.05));
  device_metrics_missing(s, "aten::mm");
  CHECK(problems(compare_screen("clean"), "device_events_missing").empty());
  CHECK(s.markdown.find("launches whose device events are missing") != std::string::npos);
  // on base: NO DECISION (exit 0), never a pass or a regression
  const Screened on_base = compare_screen("device-events-missing", {}, true);
  CHECK(on_base.result.exit_code == 0);
  CHECK(on_base.report["verdict"] == "no-decision");
  never_decided_from_screened(on_base);
}

TEST_CASE("screen: every kernel of one op missing under a Neuron runtime call is device time missing, not gone") {
  // TorchNeuron's names (privateuse1_runtime `nrt_execute`, no flow arrows): every gemm lost on head while
  // aten::mm and its nrt_execute calls remain; add_k's launches link the name to device work.
  const Screened s = compare_screen("nrt-kernels-missing", {}, false, "nrt-base");
  const auto found = problems(s, "device_events_missing");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 18);
  CHECK(found[0]["example"].get<std::string>().rfind("nrt_execute \"ts\": ", 0) == 0);
  device_metrics_missing(s, "aten::mm");
  for (const auto& m : s.report["metrics"]) {
    CHECK(m["reason"].get<std::string>().find("no longer") == std::string::npos);
  }
  CHECK(s.report["counts"].value("structural", 0) == 0);
  CHECK(problems(compare_screen("nrt-base", {}, false, "nrt-base"), "device_events_missing").empty());
}

TEST_CASE("screen: device work launched but no device time on either side is NO DECISION, never a pass") {
  // Both sides are the device-time-lost capture: the conditions match, self CPU is equivalent, and no
  // device metric is left to judge (docs/decision-rule.md).
  const std::string side = data("bad/screen/device-time-lost");
  const CliResult result = run({"compare", side, side, "--no-git", "--format", "terminal"});
  CHECK(result.exit_code == 0);
  CHECK(
      result.out.rfind(
          "⚠️ NO DECISION · device time missing on base and head: device work was launched but no device time was "
          "captured; synchronize the device before the profiler exports",
          0) == 0);
  CHECK(result.out.find("✅") == std::string::npos);
  CHECK(run({"compare", side, side, "--no-git", "--quiet", "--strict"}).exit_code == 4);
}

TEST_CASE("screen: only the metrics holding screened events are undecided — a clean op beside them still fails") {
  // head: every gemm (aten::mm) written twice, and add_k (aten::add) really twice as long
  const Screened s = compare_screen("duplicate-one-op");
  const auto found = problems(s, "duplicate");
  REQUIRE(found.size() == 3);
  CHECK(count(found) == 18);  // 6 gemm per trace
  CHECK(s.report["sides"]["head"]["excluded_device_share"].get<double>() > 0.4);
  CHECK(s.result.exit_code == 1);
  CHECK(s.report["verdict"] == "regression");
  const auto add = find_metric(s.report, "device", "aten::add");
  CHECK(add["verdict"] == "REGRESSED");
  CHECK(add["ratio"].get<double>() == doctest::Approx(2.0).epsilon(0.05));
  CHECK(add.count("screened_events") == 0);
  const auto mm = find_metric(s.report, "device", "aten::mm");
  CHECK(mm["verdict"] == "INCONCLUSIVE");
  CHECK(mm["reason"].get<std::string>().find("the data are incomplete: this metric holds events excluded") == 0);
  CHECK(find_metric(s.report, "device", "all ops")["verdict"] == "INCONCLUSIVE");   // holds aten::mm
  CHECK(find_metric(s.report, "self_cpu", "aten::mm")["verdict"] == "EQUIVALENT");  // no CPU event was screened
  CHECK(find_metric(s.report, "self_cpu", "all ops")["verdict"] == "EQUIVALENT");
  SUBCASE("--strict does not hide the regression") {
    CHECK(compare_screen("duplicate-one-op", {"--strict"}).result.exit_code == 1);
  }
}

TEST_CASE("screen: incomplete data on head only is NOT COMPARABLE, on base only NO DECISION (exit 4 under --strict)") {
  const Screened head = compare_screen("duplicate", {"--strict"});
  CHECK(head.result.exit_code == 3);
  CHECK(head.report["verdict_line"].get<std::string>().rfind("⛔ NOT COMPARABLE · the data are incomplete", 0) == 0);
  CHECK(head.markdown.find("Not computed") == std::string::npos);  // the metrics are shown
  for (const char* fault : {"duplicate", "device-out-of-range"}) {
    CAPTURE(fault);
    const Screened base = compare_screen(fault, {}, true);
    CHECK(base.result.exit_code == 0);
    CHECK(base.report["verdict"] == "no-decision");
    CHECK(base.report["verdict_line"].get<std::string>().find("on base") != std::string::npos);
    CHECK(compare_screen(fault, {"--strict"}, true).result.exit_code == 4);
  }
}
