# The PyTorch exporter as an installed command (scalemeter-export-torch, `scalemeter
# export-torch`). It needs torch and torchvision, and reports itself skipped (77) where no
# Python here has them.
add_test(NAME install_exporter
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install_exporter.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND})
# installs the whole project and exports twice: slower than a unit test
set_tests_properties(install_exporter PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
