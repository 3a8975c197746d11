// Where reports go (issue 15 item 4, issue 11 item 1): two options on one file are refused before any
// work, also through `./`, `..` and symbolic links; a write that fails (a full disk as /dev/full, a
// closed pipe on stdout) exits 2 naming the path; `--annotations` writes the workflow commands, and on
// an input error one ::error.
#include "cli_helpers.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

using namespace neuron_gate::testing;
namespace fs = std::filesystem;

extern char** environ;

namespace {

struct Spawned {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string err;
};

// Runs the neuron-gate binary with `args`, stdout on `stdout_fd`, stderr into a file that is read back.
Spawned spawn_binary(const std::vector<std::string>& args, int stdout_fd, const fs::path& err_path) {
  std::vector<std::string> all{NEURON_GATE_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : all) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Spawned result;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  result.err = read_text(err_path.string());
  return result;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("two options on one file are refused before any work, however the path is spelled") {
  const fs::path dir = scratch("one-file");
  fs::create_directories(dir / "sub");
  const std::string missing_profile = (dir / "no-such-profile").string();  // never read: refused first
  const std::vector<std::pair<std::string, std::string>> aliases{
      {(dir / "r.json").string(), (dir / "." / "r.json").string()},
      {(dir / "r.json").string(), (dir / "sub" / ".." / "r.json").string()},
      {(dir / "r.json").string(), (dir / "link-to-r.json").string()},  // a link to a file not written yet
  };
  fs::create_symlink("r.json", dir / "link-to-r.json");
  for (const auto& alias : aliases) {  // not a structured binding: clang 14 cannot capture one in CAPTURE
    const std::string& second = alias.second;
    CAPTURE(second);
    const CliResult result =
        run({"compare", missing_profile, missing_profile, "--json", alias.first, "--annotations", second});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("two reports would be written to one file") != std::string::npos);
    CHECK(result.err.find("no-such-profile") == std::string::npos);
    CHECK_FALSE(fs::exists(dir / "r.json"));
  }
  // A link to an existing file, and a relative spelling from the working folder.
  { std::ofstream(dir / "old.md") << "old"; }
  fs::create_symlink(dir / "old.md", dir / "abs-link.md");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const CliResult linked =
      run({"compare", missing_profile, missing_profile, "--markdown", "./old.md", "--html", "abs-link.md"});
  const CliResult relative = run({"compare", missing_profile, missing_profile, "--junit", "x.xml", "--json",
                                  (dir / "sub" / ".." / "x.xml").string()});
  fs::current_path(cwd);
  CHECK(linked.exit_code == 2);
  CHECK(linked.err.find("two reports would be written to one file") != std::string::npos);
  CHECK(read_text((dir / "old.md").string()) == "old");
  CHECK(relative.exit_code == 2);
  CHECK(relative.err.find("two reports would be written to one file") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "x.xml"));
}

TEST_CASE("a report file on a full disk (/dev/full) exits 2 naming the path and the reason") {
  for (const char* option : {"--json", "--markdown", "--html", "--junit", "--annotations"}) {
    CAPTURE(option);
    const CliResult result =
        run({"compare", example("A"), example("Areg"), "--no-git", "--quiet", option, "/dev/full"});
    CHECK(result.exit_code == 2);
    CHECK(result.err == "neuron-gate: error: /dev/full: cannot write: No space left on device\n");
  }
}

TEST_CASE("the report on stdout: a full disk or a closed pipe exits 2 naming stdout") {
  const fs::path dir = scratch("stdout-errors");
  const int full = ::open("/dev/full", O_WRONLY);
  REQUIRE(full >= 0);
  const Spawned on_full = spawn_binary({"compare", example("A"), example("A2"), "--no-git"}, full, dir / "full.err");
  ::close(full);
  CHECK(on_full.exit_code == 2);
  CHECK(on_full.err == "neuron-gate: error: stdout: cannot write: No space left on device\n");

  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);  // the reader is gone before neuron-gate writes anything
  const Spawned on_pipe = spawn_binary({"inspect", example("A")}, fds[1], dir / "pipe.err");
  ::close(fds[1]);
  CHECK(on_pipe.signal == 0);  // not killed by SIGPIPE
  CHECK(on_pipe.exit_code == 2);
  CHECK(on_pipe.err == "neuron-gate: error: stdout: cannot write: Broken pipe\n");
}

TEST_CASE("--annotations writes the workflow commands of the comparison") {
  const fs::path dir = scratch("annotations");
  const std::string path = (dir / "annotations.txt").string();
  const CliResult regression =
      run({"compare", example("A"), example("Areg"), "--no-git", "--quiet", "--annotations", path});
  CHECK(regression.exit_code == 1);
  const std::vector<std::string> lines = lines_of(read_text(path));
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0].rfind("::error title=neuron-gate%3A latency regressed::latency (end-to-end): +", 0) == 0);
  for (const std::string& line : lines) {
    const bool command =
        line.rfind("::error ", 0) == 0 || line.rfind("::warning ", 0) == 0 || line.rfind("::notice ", 0) == 0;
    CHECK_MESSAGE(command, line);
  }
  const CliResult pass = run({"compare", example("A"), example("A2"), "--no-git", "--quiet", "--annotations", path});
  CHECK(pass.exit_code == 0);
  CHECK(read_text(path).find("::error") == std::string::npos);
}

TEST_CASE("--annotations on an input error holds one ::error with the message, never over an input") {
  const fs::path dir = scratch("annotations-error");
  const std::string path = (dir / "annotations.txt").string();
  const std::string missing = (dir / "evil,name:%").string();
  const CliResult result = run({"compare", example("A"), missing, "--no-git", "--annotations", path});
  CHECK(result.exit_code == 2);
  const std::vector<std::string> lines = lines_of(read_text(path));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("::error title=neuron-gate%3A exit code 2 (error)::", 0) == 0);
  CHECK(lines[0].find("evil,name:%25") != std::string::npos);

  // The annotations path is a file of the head profile: refused, and the file is left as it was.
  const fs::path profile = dir / "head";
  fs::create_directories(profile);
  fs::copy_file(example("A2") + "/e2e.json", profile / "e2e.json");
  const std::string before = read_text((profile / "e2e.json").string());
  const CliResult over_input =
      run({"compare", example("A2"), profile.string(), "--no-git", "--annotations", (profile / "e2e.json").string()});
  CHECK(over_input.exit_code == 2);
  CHECK(over_input.err.find("refusing to write a report over an input file") != std::string::npos);
  CHECK(read_text((profile / "e2e.json").string()) == before);
}
