set(NEURON_GATE_TESTS_COMPARE test_compare.cpp test_compare_calibration.cpp test_compare_judgement.cpp test_compare_material.cpp test_compare_resolution.cpp test_compare_runs.cpp test_compare_whole_run_shift.cpp)
# Conditions on hand-built fingerprints: inputs, ranks, devices (issue 12).
list(APPEND NEURON_GATE_TESTS_COMPARE test_compare_conditions.cpp)
# Replacement groups and class totals (issue 12 item 2).
list(APPEND NEURON_GATE_TESTS_COMPARE test_compare_replacements.cpp)
# Which metrics hold screened events, per side and rank (issue 13 item 2).
list(APPEND NEURON_GATE_TESTS_COMPARE test_compare_screened.cpp)
# `history`: change points along stored baselines (issue 20 item 5).
list(APPEND NEURON_GATE_TESTS_COMPARE test_compare_history.cpp)
# The warm-up screen: base's first profiler cycle of each run left out of both sides (issue 36).
list(APPEND NEURON_GATE_TESTS_COMPARE test_compare_warm_up.cpp)
