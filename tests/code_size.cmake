# Size (issue 11, ARCHITECTURE.md "Size"): no source file in src/ over 500 lines and no function over 80
# lines; tests/tools/code_size.py lists any that are and exits 1.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME code-size COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/tools/code_size.py ${PROJECT_SOURCE_DIR}/src)
