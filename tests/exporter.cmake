# The PyTorch exporter as an installed command (scalemeter-export-torch, `scalemeter
# export-torch`), and the export rules an out-of-tree plugin brings (NAME.export.py beside
# NAME.so, or --rules). Both need torch and torchvision, and report themselves skipped (77)
# where no Python here has them.
add_test(NAME install_exporter
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install_exporter.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND})
# installs the whole project and exports twice: slower than a unit test
set_tests_properties(install_exporter PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME export_plugin_rules
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_export_rules.sh ${SCALEMETER_BIN}
          ${CMAKE_BINARY_DIR}/bin/scalemeter-export-torch ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR})
set_tests_properties(export_plugin_rules PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# SCALEMETER_PYTHON, where set, is the interpreter used or the reason to stop (no torch needed).
sm_add_python_test(torch_python_choice test_torch_python.py ${SCALEMETER_BIN})
