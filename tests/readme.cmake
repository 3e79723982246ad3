# The README's commands, verbatim and in order (test_readme.py): what a new user types first.
# Not in the sanitizer build: it is about the README being true, and the sanitizers would only
# slow the PyTorch and MPI steps it runs.
# It runs the commands in a scratch folder of its own, so where it starts does not matter; it
# keeps the build tree it has always started in rather than the helper's source root.
if(NOT SCALEMETER_SANITIZE AND NOT SCALEMETER_FUZZ)
  sm_add_python_test(readme_commands test_readme.py ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  if(TEST readme_commands)
    set_tests_properties(readme_commands PROPERTIES TIMEOUT 1500
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
endif()
