// `neuron-gate baseline save PROFILE --ref REF` (docs/user-guide.md "Stored baselines").

#include "commands/commands.hpp"
#include "commands/compare_steps.hpp"

#include "formats/discover.hpp"
#include "input/git_source.hpp"
#include "profile/operating_points.hpp"
#include "report/escape.hpp"
#include "store/baseline_store.hpp"
#include "store/digest.hpp"
#include "store/digest_side.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <ostream>

namespace neuron_gate {
namespace {

// The digest of one profile (as `digest` writes it) and the spec it was read from.
std::string profile_digest(const BaselineSaveOptions& options, std::string& spec) {
  const ProfileInventory inventory =
      discover_profile(options.profile, is_git_spec(options.profile) ? options.repository : "");
  std::optional<SideRepository> recorded;
  const SideSamples side =
      side_to_digest(options.profile, options.repository, options.by_shape, true, inventory, recorded);
  spec = side.inventory.spec;
  return digest_bytes(side, options.by_shape, recorded);
}

// The repository to save in: --repo, else the one at or above the profile (the current directory's for
// a git: spec).
std::string repository_of(const BaselineSaveOptions& options) {
  if (!options.repository.empty() || is_git_spec(options.profile)) {
    return options.repository;
  }
  std::error_code ec;
  const std::filesystem::path path(options.profile);
  const std::string folder = std::filesystem::is_directory(path, ec) ? path.string() : path.parent_path().string();
  return folder.empty() ? "." : folder;
}

}  // namespace

int run_baseline_save(const BaselineSaveOptions& options, std::ostream& out) {
  check_baseline_ref(options.ref);
  std::string spec;
  const std::string digest = profile_digest(options, spec);
  BaselineSaveRequest request;
  request.repository_dir = repository_of(options);
  request.ref = options.ref;
  request.commit = options.commit;
  request.allow_dirty = options.allow_dirty;
  const SavedBaseline saved = save_baseline(request, digest);
  write_stream(
      out,
      "saved the digest of " + escape_terminal(spec) + " (" + std::to_string(digest.size()) +
          " bytes) as the baseline of commit " + saved.commit + " in " + escape_terminal(saved.ref) + " (now " +
          saved.saved_commit + ", " + std::to_string(saved.stored) + (saved.stored == 1 ? " digest" : " digests") +
          (saved.replaced ? "; it replaced the one stored for that commit" : "") + ") of the repository " +
          escape_terminal(saved.repository) + "; push it with: git push origin " + escape_terminal(saved.ref) + "\n",
      "stdout");
  return 0;
}

}  // namespace neuron_gate
