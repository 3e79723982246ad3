/* Fuzz target: the check every plugin passes before dlopen (sm_elf_check), on any bytes. The
 * registry's dlopen itself is not fuzzed: loading random bytes that pass the check can run
 * their code (constructors), which is a plugin's right, not a parser's bug. */
#include "fuzz_common.h"
#include "network/network_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sm_status st;
    if (sm_elf_check(fuzz_file(data, size), SM_PLUGIN_ENTRY_NAME, &st) == 0 && size < 64)
        abort(); /* nothing this short is a loadable ELF object: the check let it through */
    return 0;
}
