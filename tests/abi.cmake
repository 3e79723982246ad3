# Tests of the plugin ABI (version 2): a plugin of version 1 is refused by name with both
# versions; GPU companion modules (NAME_gpu.so) load only when asked for, are refused when of
# another version, and are not needed by metrics, fit, predict or curve.

# A plugin as ABI version 1 built them, alone in its folder for SCALEMETER_PLUGIN_PATH.
add_library(fake_plugin_v1 MODULE fake_plugin_v1.c)
set_target_properties(fake_plugin_v1 PROPERTIES PREFIX "" OUTPUT_NAME v1
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/fake_plugins/v1 C_VISIBILITY_PRESET hidden)
# The ABI plugin.h defines, which the messages name; plugin.h a configure dependency so that a
# bump reconfigures the tests that read it.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/core/include/scalemeter/plugin.h)
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/scalemeter/plugin.h abi_line
  REGEX "^#define SM_PLUGIN_ABI_VERSION [0-9]+u$")
string(REGEX REPLACE "^#define SM_PLUGIN_ABI_VERSION ([0-9]+)u$" "\\1" ABI "${abi_line}")
add_test(NAME plugin_abi_v1_refused
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_plugin_abi_cli.sh ${SCALEMETER_BIN}
          ${CMAKE_BINARY_DIR}/tests/fake_plugins/v1 $<TARGET_FILE:fake_plugin_v1> ${ABI})

# Two descriptor plugins with companions, built without CUDA: gpuok_gpu.so of this version,
# gpubad_gpu.so of version 1; gpunone.so has no companion.
foreach(kind ok bad none)
  sm_test_module(fake_plugin_gpu${kind} fake_plugin.c fake_plugins/gpu gpu${kind}
    TEST_TYPE_NAME="test_gpu${kind}")
endforeach()
foreach(kind ok bad)
  sm_test_module(fake_gpu_module_${kind} fake_gpu_module.c fake_plugins/gpu gpu${kind}_gpu HIDDEN)
endforeach()
target_compile_definitions(fake_gpu_module_bad PRIVATE TEST_ABI_VERSION=1)
sm_add_c_test(test_registry_gpu test_registry_gpu.c ${CMAKE_BINARY_DIR}/tests/fake_plugins/gpu
  $<TARGET_FILE:fake_plugin_v1>)
add_dependencies(test_registry_gpu fake_plugin_gpuok fake_plugin_gpubad fake_plugin_gpunone
  fake_gpu_module_ok fake_gpu_module_bad fake_plugin_v1)

# CPU companions: cpuok_cpu.so exports its table, cpubad_cpu.so no entry point; cpunone.so has
# no companion; cpuown.so's descriptor carries its own table (a plugin of before NAME_cpu.so),
# and cpuown_cpu.so beside it is the refused kind, so taking it would fail the test.
foreach(kind ok bad none own)
  sm_test_module(fake_plugin_cpu${kind} fake_plugin.c fake_plugins/cpu cpu${kind}
    TEST_TYPE_NAME="test_cpu${kind}")
endforeach()
target_compile_definitions(fake_plugin_cpuown PRIVATE TEST_OWN_CPU)
foreach(kind ok bad own)
  sm_test_module(fake_cpu_module_${kind} fake_cpu_module.c fake_plugins/cpu cpu${kind}_cpu HIDDEN)
endforeach()
target_compile_definitions(fake_cpu_module_bad PRIVATE TEST_NO_ENTRY)
target_compile_definitions(fake_cpu_module_own PRIVATE TEST_NO_ENTRY)
sm_add_c_test(test_registry_cpu test_registry_cpu.c ${CMAKE_BINARY_DIR}/tests/fake_plugins/cpu)
add_dependencies(test_registry_cpu fake_plugin_cpuok fake_plugin_cpubad fake_plugin_cpunone
  fake_plugin_cpuown fake_cpu_module_ok fake_cpu_module_bad fake_cpu_module_own)

# Plugins load when a network asks for their types (test_registry_lazy.c): renamed.so provides
# test_renamed (a file named otherwise), dup_conv2d/conv2d.so a second conv2d.
sm_test_module(fake_plugin_renamed fake_plugin.c fake_plugins/renamed renamed
  TEST_TYPE_NAME="test_renamed")
sm_test_module(fake_plugin_dup_conv2d fake_plugin.c fake_plugins/dup_conv2d conv2d
  TEST_TYPE_NAME="conv2d")
sm_add_c_test(test_registry_lazy test_registry_lazy.c
  ${CMAKE_BINARY_DIR}/tests/fake_plugins/renamed ${CMAKE_BINARY_DIR}/tests/fake_plugins/dup_conv2d)
add_dependencies(test_registry_lazy fake_plugin_renamed fake_plugin_dup_conv2d)

# Counting maps no CUDA library and no GPU module (the process's own /proc/self/maps).
# It links libscalemeter alone, as a program that only counts does: sm_add_c_test's CPU executor
# brings OpenBLAS wherever the linker keeps unused libraries (clang's, without --as-needed).
add_executable(test_plugins_without_cuda test_plugins_without_cuda.c)
target_link_libraries(test_plugins_without_cuda PRIVATE scalemeter)
add_test(NAME test_plugins_without_cuda COMMAND test_plugins_without_cuda
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# `metrics` as a user runs it maps no BLAS, LAPACK(E), gfortran or CPU companion (the loader's
# own trace, LD_DEBUG=files; libscalemeter in it shows the trace was read).
add_test(NAME cli_metrics_maps_no_blas
  COMMAND sh -c "LD_DEBUG=files \"$0\" metrics resnet50 2>&1 >/dev/null" ${SCALEMETER_BIN})
set_tests_properties(cli_metrics_maps_no_blas PROPERTIES
  PASS_REGULAR_EXPRESSION "file=[^ ]*libscalemeter\\.so"
  FAIL_REGULAR_EXPRESSION "libopenblas|liblapack|libblas|libgfortran|_cpu\\.so")
# The counting commands from an install-shaped copy of the build tree without any NAME_gpu.so.
add_test(NAME cli_without_gpu_modules
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_without_gpu_modules.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR})
if(SCALEMETER_SANITIZE AND SCALEMETER_HAVE_CUDA)
  # conv2d_gpu.so maps cuDNN, whose runtime reserves address space ASan's shadow would overlap.
  set_tests_properties(test_plugins_without_cuda PROPERTIES ENVIRONMENT
    "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
endif()

# ABI 3's traits: a user's matrix product declaring SM_TRAIT_MATMUL (priced as linear is), one
# declaring attention too (a transformer's), and the same built for ABI 2 (loads, no traits,
# the default of what it keeps), built for ABI 4 (loads, the default kernel counts), and built
# for ABI 16, the version before SM_TRAIT_LOSS (loads, priced as this version's).
foreach(kind matmul attn abi2 abi4 abi16 serial badserial upcast badupcast badpasses badsoftmax
        badfused badlibrary badio many)
  sm_test_module(fake_traits_${kind} fake_traits_plugin.c fake_plugins/traits traits_${kind})
endforeach()
target_compile_definitions(fake_traits_matmul PRIVATE TEST_TYPE_NAME="user_matmul"
  TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_attn PRIVATE TEST_TYPE_NAME="user_attention"
  "TEST_TRAITS=SM_TRAIT_MATMUL|SM_TRAIT_ATTENTION")
target_compile_definitions(fake_traits_abi2 PRIVATE TEST_TYPE_NAME="user_abi2" TEST_ABI2)
target_compile_definitions(fake_traits_abi4 PRIVATE TEST_TYPE_NAME="user_abi4" TEST_ABI4
  TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_abi16 PRIVATE TEST_TYPE_NAME="user_abi16" TEST_ABI16
  TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_serial PRIVATE TEST_TYPE_NAME="user_serial" TEST_SERIAL
  TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badserial PRIVATE TEST_TYPE_NAME="user_badserial"
  TEST_SERIAL_TOO_MANY TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_upcast PRIVATE TEST_TYPE_NAME="user_upcast" TEST_UPCAST
  TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badupcast PRIVATE TEST_TYPE_NAME="user_badupcast"
  TEST_UPCAST_NEGATIVE TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badpasses PRIVATE TEST_TYPE_NAME="user_badpasses"
  TEST_PASSES_TOO_MANY TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badsoftmax PRIVATE TEST_TYPE_NAME="user_badsoftmax"
  TEST_SOFTMAX_UNKNOWN TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badfused PRIVATE TEST_TYPE_NAME="user_badfused"
  TEST_FUSED_UNKNOWN TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badlibrary PRIVATE TEST_TYPE_NAME="user_badlibrary"
  TEST_LIBRARY_NEGATIVE TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_badio PRIVATE TEST_TYPE_NAME="user_badio"
  TEST_COUNTS_IO_TWO TEST_TRAITS=SM_TRAIT_MATMUL)
target_compile_definitions(fake_traits_many PRIVATE TEST_TYPE_NAME="user_many" TEST_ANY_INPUTS
  TEST_TRAITS=SM_TRAIT_MATMUL)
sm_add_c_test(test_traits test_traits.c ${CMAKE_BINARY_DIR}/tests/fake_plugins/traits)
add_dependencies(test_traits fake_traits_matmul fake_traits_attn fake_traits_abi2
  fake_traits_abi4 fake_traits_abi16 fake_traits_serial fake_traits_badserial fake_traits_upcast
  fake_traits_badupcast fake_traits_badpasses fake_traits_badsoftmax fake_traits_badfused
  fake_traits_badlibrary fake_traits_badio
  fake_traits_many)
# No layer type's name in the core's sources: it prices and fuses by the plugins' traits.
add_test(NAME core_has_no_type_names
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_core_type_names.sh ${SCALEMETER_BIN}
          ${PROJECT_SOURCE_DIR}/core/src)
# `plugins` says each type's ABI, traits and whether it declares what it keeps: the shipped
# types at the ABI plugin.h defines (ABI, above), the user's at theirs.
add_test(NAME cli_plugins_traits COMMAND ${SCALEMETER_BIN} plugins --format csv)
set_tests_properties(cli_plugins_traits PROPERTIES
  ENVIRONMENT "SCALEMETER_PLUGIN_PATH=${CMAKE_BINARY_DIR}/tests/fake_plugins/traits"
  PASS_REGULAR_EXPRESSION "\nadd,${ABI},residual\\+elementwise,declared,.*\nconv2d,${ABI},matmul\\+convolution,declared,[^\n]*\n.*\ncross_entropy,${ABI},loss,declared,.*\nembedding,${ABI},embedding,declared,.*\nlayernorm,${ABI},normalisation\\+autocast_fp32,declared,.*\nlm_head,${ABI},matmul\\+tied,declared,.*\nmul,${ABI},elementwise,declared,.*\nuser_abi16,16,matmul,default,.*\nuser_abi2,2,,default,.*\nuser_matmul,${ABI},matmul,default,")
