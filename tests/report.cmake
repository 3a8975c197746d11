set(NEURON_GATE_TESTS_REPORT
  test_report.cpp
  test_report_chart.cpp
  test_report_escape.cpp
  test_report_hostile.cpp
  test_report_html.cpp
  test_report_junit.cpp
  test_report_markdown.cpp)
