# The install as a user's program sees it: `cmake --install` into a temporary prefix, then a
# small program (tests/consumer) built against it through find_package(scalemeter CONFIG) and
# through pkg-config, and run on the installed zoo's resnet18.
# The consumer is built with this build's compiler and, where the library is instrumented
# (SCALEMETER_SANITIZE, SCALEMETER_FUZZ), with the sanitizers too: an ASan library needs the
# ASan runtime loaded first, which only an instrumented program gives it.
if(SCALEMETER_SANITIZE OR SCALEMETER_FUZZ)
  set(SM_CONSUMER_SANITIZE ON)
else()
  set(SM_CONSUMER_SANITIZE OFF)
endif()
add_test(NAME install_consumer
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install_consumer.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${SM_CONSUMER_SANITIZE} ${CMAKE_C_COMPILER}
          ${CMAKE_COMMAND} ${PKG_CONFIG_EXECUTABLE} ${PROJECT_VERSION})
# Installs the whole project and configures a CMake project: slower than a unit test.
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300)
# env.sh of the offline pack finds its folder under sh and bash from any folder, or refuses
add_test(NAME offline_env_finds_itself COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_offline_env.sh)
# The library's dynamic symbols: the sm_ API and nothing else (core/exports.map)
find_program(SM_NM nm)
if(SM_NM)
  add_test(NAME library_exports_sm_only
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_exports.sh $<TARGET_FILE:scalemeter>
            ${PROJECT_SOURCE_DIR}/core/include)
endif()
