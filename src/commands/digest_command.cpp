// `neuron-gate digest PROFILE -o FILE` (docs/user-guide.md "Digests").

#include "commands/commands.hpp"
#include "commands/compare_steps.hpp"

#include "formats/discover.hpp"
#include "profile/operating_points.hpp"
#include "report/escape.hpp"
#include "store/digest.hpp"
#include "store/digest_side.hpp"
#include "store/repository_state.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

#include <ostream>
#include <set>

namespace neuron_gate {
namespace {

// "3 files, 4103212 bytes; 1 trace, ranks 0, 1"-style summary of what a digest holds.
std::string digest_summary(const SideSamples& side) {
  std::uintmax_t bytes = 0;
  for (const DiscoveredFile& file : side.inventory.files) {
    bytes += file.size_bytes;
  }
  std::set<unsigned> ranks;
  for (const TraceSamples& trace : side.traces) {
    if (trace.rank) {
      ranks.insert(*trace.rank);
    }
  }
  std::string text = std::to_string(side.inventory.files.size()) + " files of " + std::to_string(bytes) + " bytes; " +
                     std::to_string(side.traces.size()) + (side.samples_from_tables ? " tables" : " traces") + ", " +
                     std::to_string(side.end_to_end.size()) + " end-to-end metrics";
  if (!ranks.empty()) {
    std::string listed;
    for (unsigned rank : ranks) {
      listed += (listed.empty() ? "" : ", ") + std::to_string(rank);
    }
    text += "; rank" + std::string(ranks.size() == 1 ? " " : "s ") + listed;
  }
  return text;
}

}  // namespace

SideSamples side_to_digest(const std::string& profile, const std::string& repository, bool by_shape, bool git,
                           const ProfileInventory& inventory, std::optional<SideRepository>& recorded) {
  const std::vector<OperatingPointFiles> points = split_operating_points(inventory);
  if (points.size() > 1) {
    throw UsageError(escape_terminal(profile) + " holds " + std::to_string(points.size()) +
                     " operating points (one run manifest per folder): digests of several points are not supported; "
                     "compare the profiles themselves");
  }
  TraceReadOptions read_options;
  read_options.by_shape = by_shape;
  std::optional<RecordedRepository> digested_from;
  SideSamples side = load_side("profile", inventory, read_options, &digested_from);
  require_samples(side);
  // The report's Provenance hashes the Neuron binaries, which read_side never reads: the digest carries
  // their hashes, since the files will not be there when it is compared.
  for (DiscoveredFile& file : side.inventory.files) {
    if (file.kind == FileKind::neuron_artifact && file.sha256.empty()) {
      file.sha256 = open_profile_file(file)->raw_sha256();
    }
  }
  // The git state of the profile's repository, now: where the digest is compared, its paths mean nothing.
  // A side read from digests keeps the state they recorded.
  recorded.reset();
  if (digested_from) {
    recorded = digested_from->state;
  } else if (git) {
    const RepositoryStates states =
        gather_repository_states(side.inventory, side.inventory, side.manifest, side.manifest, repository);
    if (!states.sides.empty()) {
      recorded = states.sides.front();
      recorded->side.clear();
      recorded->manifest_commit.clear();
    }
  }
  return side;
}

int run_digest(const DigestOptions& options, std::ostream& out) {
  check_writable_destination(options.output);
  const ProfileInventory inventory = discover_profile(options.profile, options.repository);
  for (const DiscoveredFile& file : inventory.files) {
    if (same_file(options.output, file.path)) {
      throw UsageError("refusing to write a digest over an input file: \"" + options.output + "\"");
    }
  }
  std::optional<SideRepository> recorded;
  const SideSamples side =
      side_to_digest(options.profile, options.repository, options.by_shape, options.git, inventory, recorded);
  const std::string bytes = digest_bytes(side, options.by_shape, recorded);
  write_file_atomically(options.output, bytes);
  write_stream(out,
               "wrote " + escape_terminal(options.output) + ": " + std::to_string(bytes.size()) +
                   " bytes, the digest of " + escape_terminal(side.inventory.spec) + " (" +
                   escape_terminal(digest_summary(side)) + ")\n",
               "stdout");
  return 0;
}

}  // namespace neuron_gate
