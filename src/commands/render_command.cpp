// `neuron-gate render`: the Markdown of a JSON report another job wrote (report/json_read.hpp), with
// compare's renderer, escapers and comment limit: the fork flow's trusted job posts this, never the
// pull request's own Markdown (docs/github-action.md "Fork pull requests").
#include "commands/commands.hpp"
#include "report/escape.hpp"
#include "report/json_read.hpp"
#include "report/markdown.hpp"
#include "report/points_report.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <ostream>

namespace neuron_gate {

int run_render(const RenderOptions& options, std::ostream& out) {
  if (!options.comment_key.empty() && !comment_key_problem(options.comment_key).empty()) {
    throw UsageError("--comment-key: " + comment_key_problem(options.comment_key) + ", not \"" +
                     escape_terminal(options.comment_key) + "\"");
  }
  if (!options.markdown_path.empty()) {
    check_writable_destination(options.markdown_path);
  }
  const ReadBackReport read = read_json_report(options.report);
  const std::string markdown = read.single
                                   ? render_markdown(*read.single, k_comment_limit - 512, options.comment_key)
                                   : render_points_markdown(*read.points, k_comment_limit - 512, options.comment_key);
  if (options.markdown_path.empty()) {
    out << markdown;
    out.flush();
    if (!out) {
      throw InputError("stdout", "cannot write the report");
    }
  } else {
    write_file_atomically(options.markdown_path, markdown);
  }
  return 0;
}

}  // namespace neuron_gate
