// Tests for compare/conditions on fingerprints built by hand: the inputs rule (replaced lists vs new
// or removed call sites, manifest inputs decide), ranks, world size and devices.
#include "compare/conditions.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

namespace ng = neuron_gate;

namespace {

const ng::ConditionRow* find_row(const ng::ConditionsDiff& diff, const std::string& name) {
  const auto it =
      std::find_if(diff.rows.begin(), diff.rows.end(), [&](const ng::ConditionRow& row) { return row.name == name; });
  return it == diff.rows.end() ? nullptr : &*it;
}

ng::Fingerprint shapes(std::map<std::string, std::set<std::string>> lists) {
  ng::Fingerprint fp;
  fp.input_shapes = std::move(lists);
  return fp;
}

}  // namespace

TEST_SUITE_BEGIN("compare::conditions");

TEST_CASE("inputs: replaced lists differ, a new call site and a removed one do not") {
  const ng::Fingerprint base = shapes({{"aten::add", {"[[4, 1], [], []]"}}, {"aten::pow", {"[[4, 512], []]"}}});
  const ng::Fingerprint added =
      shapes({{"aten::add", {"[[4, 1], [], []]", "[[4, 512], [512], []]"}}, {"aten::pow", {"[[4, 512], []]"}}});
  const ng::Fingerprint replaced = shapes({{"aten::add", {"[[8, 1], [], []]"}}, {"aten::pow", {"[[8, 512], []]"}}});

  const ng::ConditionsDiff new_site = ng::diff_conditions(base, added, {});
  const ng::ConditionRow* row = find_row(new_site, "inputs");
  REQUIRE(row != nullptr);
  CHECK(row->matches);
  CHECK(row->base == "same shapes for 2 ops on both sides");
  CHECK(row->note == "new call sites in head (a code change, compared as ops): aten::add [[4,512],[512],[]]");
  CHECK(new_site.comparable());

  const ng::ConditionsDiff removed = ng::diff_conditions(added, base, {});
  row = find_row(removed, "inputs");
  REQUIRE(row != nullptr);
  CHECK(row->matches);
  CHECK(row->note == "call sites removed in head (a code change, compared as ops): aten::add [[4,512],[512],[]]");

  const ng::ConditionsDiff different = ng::diff_conditions(base, replaced, {});
  row = find_row(different, "inputs");
  REQUIRE(row != nullptr);
  CHECK_FALSE(row->matches);
  CHECK(row->base == "aten::add [[4,1],[],[]]");
  CHECK(row->head == "aten::add [[8,1],[],[]]");
  CHECK_FALSE(different.comparable());
  CHECK(ng::diff_conditions(base, replaced, {"inputs"}).comparable());
}

TEST_CASE("inputs: a replaced list next to a kept one still differs — another argument count is structural") {
  const ng::Fingerprint base = shapes({{"aten::mul", {"[[4, 512], [512]]", "[[4, 512], [4, 1]]"}}});
  const ng::Fingerprint head = shapes({{"aten::mul", {"[[4, 512], [512]]", "[[8, 512], [8, 1]]"}}});
  CHECK_FALSE(ng::diff_conditions(base, head, {}).comparable());
  const ng::Fingerprint out_overload = shapes({{"aten::mul", {"[[4, 512], [512], [4, 512]]"}}});
  const ng::Fingerprint plain = shapes({{"aten::mul", {"[[4, 512], [512]]"}}});
  CHECK(ng::diff_conditions(plain, out_overload, {}).comparable());
}

TEST_CASE("inputs: the run manifests' inputs decide when both sides list them") {
  ng::Fingerprint base = shapes({{"aten::pow", {"[[4, 512], []]"}}});
  ng::Fingerprint head = shapes({{"aten::pow", {"[[8, 512], []]"}}});
  base.values["manifest.inputs[x].shape"] = "[4,512]";
  head.values["manifest.inputs[x].shape"] = "[4,512]";
  const ng::ConditionsDiff diff = ng::diff_conditions(base, head, {});
  const ng::ConditionRow* row = find_row(diff, "inputs");
  REQUIRE(row != nullptr);
  CHECK(row->matches);
  CHECK(row->base == "decided by the run manifests' inputs (rows manifest.inputs[...])");
  CHECK(diff.comparable());
  head.values["manifest.inputs[x].shape"] = "[8,512]";
  CHECK_FALSE(ng::diff_conditions(base, head, {}).comparable());
}

TEST_CASE("inputs: without shapes on both sides or manifest inputs the row matches, not verified") {
  // Issue 38 item 7: traces without shapes hid a dtype change under "6 of 6 conditions match".
  const ng::Fingerprint with_shapes = shapes({{"aten::pow", {"[[4, 512], []]"}}});
  for (const auto& [base, head] :
       {std::pair{ng::Fingerprint{}, ng::Fingerprint{}}, std::pair{ng::Fingerprint{}, with_shapes}}) {
    const ng::ConditionsDiff diff = ng::diff_conditions(base, head, {});
    const ng::ConditionRow* row = find_row(diff, "inputs");
    REQUIRE(row != nullptr);
    CHECK(row->matches);
    CHECK_FALSE(row->verified);
    CHECK(row->base == "unknown");
    CHECK(row->note.rfind("not verified: no op has input shapes on both sides", 0) == 0);
    CHECK(diff.comparable());
  }
  CHECK(find_row(ng::diff_conditions(with_shapes, with_shapes, {}), "inputs")->verified);
  // A manifest field head alone records is shown as matching, and not verified either.
  ng::Fingerprint one_sided = with_shapes;
  one_sided.values["manifest.seed"] = "7";
  const ng::ConditionsDiff diff = ng::diff_conditions(with_shapes, one_sided, {});
  REQUIRE(find_row(diff, "manifest.seed") != nullptr);
  CHECK(find_row(diff, "manifest.seed")->matches);
  CHECK_FALSE(find_row(diff, "manifest.seed")->verified);
  CHECK(diff.comparable());
}

// Evidence the pull request controls fails closed: a head captured at batch 8 without record_shapes and
// with its neuron-gate.json removed passed (exit 0, latency -74.5%) against a base at batch 32, although
// the same head code at batch 32 measured +34.8% (REGRESSION): 43 manifest rows and the inputs row were
// "not verified" and did not block.
TEST_CASE("what base records and head lacks blocks: manifest fields and input shapes") {
  const ng::Fingerprint with_shapes = shapes({{"aten::pow", {"[[4, 512], []]"}}});
  const ng::ConditionsDiff no_shapes = ng::diff_conditions(with_shapes, ng::Fingerprint{}, {});
  const ng::ConditionRow* inputs = find_row(no_shapes, "inputs");
  REQUIRE(inputs != nullptr);
  CHECK_FALSE(inputs->matches);
  CHECK(inputs->base == "shapes of 1 op");
  CHECK(inputs->head == "none recorded");
  CHECK(inputs->note.rfind("base recorded input shapes and head recorded none", 0) == 0);
  CHECK_FALSE(no_shapes.comparable());
  CHECK(ng::diff_conditions(with_shapes, ng::Fingerprint{}, {"inputs"}).comparable());

  ng::Fingerprint base = with_shapes, head = with_shapes;
  base.has_manifest = head.has_manifest = true;
  base.values["manifest.intra_op_threads"] = "1";
  base.values["manifest.operating_point"] = "bs32";
  head.values["manifest.operating_point"] = "bs32";
  const ng::ConditionsDiff field = ng::diff_conditions(base, head, {});
  const ng::ConditionRow* threads = find_row(field, "manifest.intra_op_threads");
  REQUIRE(threads != nullptr);
  CHECK_FALSE(threads->matches);
  CHECK(threads->head == "not recorded");
  CHECK(threads->note.rfind("base's run manifest records this field and head's does not", 0) == 0);
  CHECK_FALSE(field.comparable());
  CHECK(ng::diff_conditions(base, head, {"manifest.intra_op_threads"}).comparable());

  ng::Fingerprint no_manifest = with_shapes;  // head's neuron-gate.json removed
  const ng::ConditionsDiff gone = ng::diff_conditions(base, no_manifest, {});
  CHECK_FALSE(find_row(gone, "manifest.operating_point")->matches);
  CHECK(find_row(gone, "manifest.operating_point")->note.rfind("head has no run manifest", 0) == 0);
  CHECK_FALSE(gone.comparable());
  CHECK(ng::diff_conditions(base, no_manifest, {"manifest"}).comparable());
  // The workload's name stays informational on one side too.
  base.values["manifest.workload"] = "step.py:step";
  head.values["manifest.intra_op_threads"] = "1";
  CHECK(ng::diff_conditions(base, head, {}).comparable());
}

TEST_SUITE_END();
