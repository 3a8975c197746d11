#include "compare/inputs_condition.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace neuron_gate {
namespace {

// Shapes text without spaces, so "[[4, 512], []]" (tables) equals "[[4,512],[]]" (traces).
std::string canonical_shapes(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ') {
      out += c;
    }
  }
  return out;
}

// Number of arguments in a shapes list "[[4,512],[]]": top-level elements.
std::size_t argument_count(const std::string& shapes) {
  int depth = 0;
  std::size_t count = 0;
  bool any = false;
  for (char c : shapes) {
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      ++count;
    }
    if (depth >= 1 && c != '[' && c != ']' && c != ',' && c != ' ') {
      any = true;
    }
    if (depth == 2 && c == '[') {
      any = true;
    }
  }
  return any || count > 0 ? count + 1 : 0;
}

// How the input-shape lists of the ops on both sides relate (DESIGN.md section 3, docs/user-guide.md "inputs").
struct InputComparison {
  std::size_t ops_compared = 0;
  // The first op whose lists were replaced: (base text, head text) of its lists of that argument count.
  std::optional<std::pair<std::string, std::string>> replaced;
  std::vector<std::string> new_call_sites;      // "op [[4,512],[512],[]]": lists only head has
  std::vector<std::string> removed_call_sites;  // lists only base has
};

// Appends "op list" for every list of `a` that `b` lacks.
void append_missing(const std::set<std::string>& a, const std::set<std::string>& b, const std::string& op,
                    std::vector<std::string>& out) {
  for (const std::string& item : a) {
    if (b.count(item) == 0) {
      out.push_back(op + " " + item);
    }
  }
}

// Inputs differ only where an op's lists are replaced: lists of one argument count that base has and
// head lacks while head has lists of that count that base lacks (every [4,512] became [8,512]). Lists
// that only appear (a new call site) or only disappear (a removed one) are a structural change; lists
// of another argument count (an out= overload) too.
InputComparison compare_inputs(const Fingerprint& base, const Fingerprint& head) {
  InputComparison result;
  for (const auto& [op, base_shapes] : base.input_shapes) {
    auto it = head.input_shapes.find(op);
    if (it == head.input_shapes.end()) {
      continue;
    }
    ++result.ops_compared;
    std::map<std::size_t, std::set<std::string>> base_by_count, head_by_count;
    for (const std::string& shapes : base_shapes) {
      base_by_count[argument_count(shapes)].insert(canonical_shapes(shapes));
    }
    for (const std::string& shapes : it->second) {
      head_by_count[argument_count(shapes)].insert(canonical_shapes(shapes));
    }
    for (const auto& [count, shapes] : base_by_count) {
      auto other = head_by_count.find(count);
      if (other == head_by_count.end()) {
        continue;
      }
      std::vector<std::string> removed, added;
      append_missing(shapes, other->second, op, removed);
      append_missing(other->second, shapes, op, added);
      if (!removed.empty() && !added.empty()) {
        if (!result.replaced) {
          result.replaced = std::make_pair(op + " " + join_set(shapes), op + " " + join_set(other->second));
        }
        continue;
      }
      result.removed_call_sites.insert(result.removed_call_sites.end(), removed.begin(), removed.end());
      result.new_call_sites.insert(result.new_call_sites.end(), added.begin(), added.end());
    }
  }
  return result;
}

// True when both sides' run manifests list the model inputs: those decide the inputs condition.
bool manifests_state_inputs(const Fingerprint& base, const Fingerprint& head) {
  const auto states = [](const Fingerprint& fp) {
    return std::any_of(fp.values.begin(), fp.values.end(),
                       [](const auto& value) { return value.first.rfind("manifest.inputs[", 0) == 0; });
  };
  return states(base) && states(head);
}

}  // namespace

ConditionRow inputs_row(const Fingerprint& base, const Fingerprint& head) {
  ConditionRow row;
  row.name = "inputs";
  if (manifests_state_inputs(base, head)) {
    row.base = row.head = "decided by the run manifests' inputs (rows manifest.inputs[...])";
    return row;
  }
  const InputComparison inputs = compare_inputs(base, head);
  if (inputs.ops_compared == 0 && !base.input_shapes.empty() && head.input_shapes.empty()) {
    // Base recorded shapes and head none: head's evidence (the pull request's) fails closed, else a head
    // profiled without record_shapes at another batch size would pass unverified (docs/decision-rule.md).
    row.base = "shapes of " + plural(base.input_shapes.size(), "op");
    row.head = "none recorded";
    row.matches = false;
    row.note = "base recorded input shapes and head recorded none, so a change of the model's inputs would go "
               "unseen: profile head with record_shapes=True as base was, or accept it with --allow-mismatch inputs";
    return row;
  }
  if (inputs.ops_compared == 0) {
    row.base = row.head = "unknown";
    row.verified = false;
    row.note = "not verified: no op has input shapes on both sides and no run manifest lists inputs, so a change "
               "of shapes or dtypes would go unseen (profile with record_shapes=True, or list inputs in a manifest)";
    return row;
  }
  if (inputs.replaced) {
    row.base = inputs.replaced->first;
    row.head = inputs.replaced->second;
    row.matches = false;
    row.note = "input shapes were replaced for an op present on both sides (lists base ran with are missing in head, "
               "which has lists base lacks): the model inputs differ";
    return row;
  }
  row.base = row.head = "same shapes for " + plural(inputs.ops_compared, "op") + " on both sides";
  const auto list = [](const std::vector<std::string>& items) {
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < 4; ++i) {
      text += (i == 0 ? "" : "; ") + items[i];
    }
    return items.size() > 4 ? text + "; and " + std::to_string(items.size() - 4) + " more" : text;
  };
  if (!inputs.new_call_sites.empty()) {
    row.note = "new call sites in head (a code change, compared as ops): " + list(inputs.new_call_sites);
  }
  if (!inputs.removed_call_sites.empty()) {
    row.note += std::string(row.note.empty() ? "" : "; ") +
                "call sites removed in head (a code change, compared as ops): " + list(inputs.removed_call_sites);
  }
  return row;
}

}  // namespace neuron_gate
