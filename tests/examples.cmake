# The programs of examples/ that show the library's C API, built and run against this build.
add_executable(example_predict_step ${PROJECT_SOURCE_DIR}/examples/c_api/predict_step.c)
target_link_libraries(example_predict_step PRIVATE scalemeter)
# the public headers alone, warning-free under strict C11
target_compile_options(example_predict_step PRIVATE -Wall -Wextra -Wpedantic -Werror)
add_test(NAME example_c_api
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_example_c_api.sh
          $<TARGET_FILE:example_predict_step> ${SCALEMETER_BIN}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
