set(NEURON_GATE_TESTS_CLI test_cli.cpp test_cli_outputs.cpp)
# Inputs given directly that are not regular files; one JSON error wording (input kit).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_input.cpp test_cli_screen.cpp)
# --help, --version and a mistyped command (issue 17).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_usage.cpp)
# Rules a pull request cannot loosen: waiver expiry against --today / SOURCE_DATE_EPOCH, --rules-from (issue 15).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_rules.cpp)
# Verdicts on real code changes: new call sites, replaced ops, ranks, devices (issue 12).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_real_changes.cpp)
# Where reports go: one file never twice, write errors (/dev/full, closed pipe), --annotations (issues 11, 15).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_writes.cpp)
# Cost per unit of work from throughput and a price (issue 19 item 3).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_cost.cpp)
# What the capture helper writes beside latency: thread_cpu_time that explains, threads and grad mode (issue 37 item 4).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_capture_fields.cpp)
# Alternatives ranked against one baseline (issue 19 item 2).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_rank.cpp)
# Replacement groups and class totals (issue 12 item 2).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_replacements.cpp)
# Operating points: several per side, matched by label, one Holm family (issue 19 item 1).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_operating_points.cpp)
# Device time no op accounts for: shown, capped, gated through the device total (issue 13 item 2).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_unattributed.cpp)
# git:REF:PATH profiles read from a scratch repository built with libgit2 (issue 20 item 2).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_git.cpp)
# `history`: stored baselines along first-parent history and their shifts (issue 20 item 5).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_history.cpp)
# Stored baselines: digests committed to a ref, found for the nearest ancestor (issue 20 item 4).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_baseline.cpp)
# `render`: the Markdown of a JSON report another job wrote, every string as data (issue 39 item 5).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_render.cpp)
# Per-op device time from Neuron Explorer's Parquet output, converted by the capture helper (issue 37 item 6).
list(APPEND NEURON_GATE_TESTS_CLI test_cli_explorer.cpp)
