// Where compare's reports go: the destinations checked before any work and against the inputs, then every
// report rendered and written whole.
#include "commands/compare_steps.hpp"

#include "report/annotations.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "report/terminal.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// Refuses an output path that is one of the inputs: reports never overwrite a profile.
void check_output_path(const std::string& output, const std::vector<const ProfileInventory*>& inputs,
                       const std::string& rules_path) {
  if (output.empty()) {
    return;
  }
  for (const ProfileInventory* inventory : inputs) {
    for (const DiscoveredFile& file : inventory->files) {
      if (same_file(output, file.path)) {
        throw UsageError("refusing to write a report over an input file: \"" + output + "\"");
      }
    }
  }
  if (!rules_path.empty() && same_file(output, rules_path)) {
    throw UsageError("refusing to write a report over the rules file: \"" + output + "\"");
  }
}

namespace {

// The report destinations of a compare, in option order ("" where not asked for).
std::vector<std::string> output_paths(const CompareOptions& options) {
  return {options.markdown_path, options.json_path, options.html_path, options.junit_path, options.annotations_path};
}

}  // namespace

// Before any work (rules, walk, reads): every destination can take a file, and no two of them are one
// file (the same path, `./` spellings, `..`, or a symbolic link to another's target).
void check_output_destinations(const CompareOptions& options) {
  const std::vector<std::string> paths = output_paths(options);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) {
      continue;
    }
    check_writable_destination(paths[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (!paths[j].empty() && (paths[i] == paths[j] || same_file(paths[i], paths[j]))) {
        throw UsageError("two reports would be written to one file: \"" + paths[j] + "\" and \"" + paths[i] + "\"");
      }
    }
  }
}

// Once the profiles are walked: no report is written over an input file or the rules file.
void check_outputs_not_inputs(const CompareOptions& options, const ProfileInventory& base,
                              const ProfileInventory& head) {
  for (const std::string& path : output_paths(options)) {
    check_output_path(path, {&base, &head}, options.rules_path);
  }
}

// Renders every requested report into its temporary file (so a rendering error leaves none half done; the
// JSON streamed), then renames them all with SIGINT/SIGTERM/SIGHUP deferred: a signal leaves every report
// replaced or none (and no temporary file). Markdown is rendered only where it goes.
void write_reports(const CompareOptions& options, const Report& report, std::ostream& out) {
  const bool to_stdout = !options.quiet && options.format != "none";
  const bool markdown_to_stdout = to_stdout && options.format != "terminal" && options.markdown_path.empty();
  std::string markdown;
  if (!options.markdown_path.empty() || markdown_to_stdout) {
    markdown = render_markdown(report, k_comment_limit - 512, options.comment_key);
  }
  std::vector<std::unique_ptr<AtomicFileWriter>> files;
  const auto file = [&files](const std::string& path) -> AtomicFileWriter& {
    return *files.emplace_back(std::make_unique<AtomicFileWriter>(path));
  };
  if (!options.json_path.empty()) {  // never one text: 50,000 ops make hundreds of MB
    AtomicFileWriter& json = file(options.json_path);
    write_json_report(report, [&json](std::string_view piece) { json.write(piece); });
  }
  if (!options.html_path.empty()) {
    file(options.html_path).write(render_html(report));
  }
  if (!options.junit_path.empty()) {
    file(options.junit_path).write(render_junit(report));
  }
  if (!options.annotations_path.empty()) {
    file(options.annotations_path).write(render_annotations(report));
  }
  if (!options.markdown_path.empty()) {
    file(options.markdown_path).write(markdown);
  }
  {
    const SignalsDeferred deferred;
    for (const auto& written : files) {
      written->commit();
    }
  }
  if (markdown_to_stdout) {
    write_stream(out, markdown, "stdout");
  } else if (options.quiet && options.format != "none") {
    write_stream(out, render_terminal_verdict(report, options.colour), "stdout");
  } else if (to_stdout && options.format == "terminal") {
    write_stream(out,
                 render_terminal(report, options.colour,
                                 {options.markdown_path, options.html_path, options.json_path, options.junit_path}),
                 "stdout");
  }
}

}  // namespace neuron_gate
