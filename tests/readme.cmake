# The README's commands, verbatim and in order (test_readme.py): what a new user types first.
# Not in the sanitizer build: it is about the README being true, and the sanitizers would only
# slow the PyTorch and MPI steps it runs.
find_program(SM_README_PYTHON3 python3)
if(NOT SCALEMETER_SANITIZE AND NOT SCALEMETER_FUZZ AND SM_README_PYTHON3)
  add_test(NAME readme_commands
    COMMAND ${SM_README_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/test_readme.py ${PROJECT_SOURCE_DIR}
            ${CMAKE_BINARY_DIR})
  set_tests_properties(readme_commands PROPERTIES TIMEOUT 1500)
endif()
