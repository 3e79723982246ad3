/*
 * test_fnv: util/fnv.h, the one FNV-1a of every hash table, against the published 64-bit
 * FNV-1a test vectors (Fowler, Noll and Vo's reference test suite, fnv_test.c / the IETF
 * draft-eastlake-fnv's table): "" is the offset basis, "a" 0xaf63dc4c8601ec8c, "foobar"
 * 0x85944171f73967e8.
 */
#include <stdint.h>

#include "check.h"
#include "util/fnv.h"

int main(void)
{
    CHECK(sm_fnv1a_str(SM_FNV1A_OFFSET, "") == UINT64_C(0xcbf29ce484222325));
    CHECK(sm_fnv1a_str(SM_FNV1A_OFFSET, "a") == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(sm_fnv1a_str(SM_FNV1A_OFFSET, "foobar") == UINT64_C(0x85944171f73967e8));
    /* a string hashed on from where another left off is the two joined */
    CHECK(sm_fnv1a_str(sm_fnv1a_str(SM_FNV1A_OFFSET, "foo"), "bar") ==
          UINT64_C(0x85944171f73967e8));
    /* an integer is its eight bytes, least significant first: "a" then seven NULs is
     * 0x61, as a byte sequence, the same as the loop over its bytes */
    uint64_t bytes = SM_FNV1A_OFFSET;
    const unsigned char a8[8] = {'a', 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 8; k++)
        bytes = (bytes ^ a8[k]) * UINT64_C(1099511628211);
    CHECK(sm_fnv1a_u64(SM_FNV1A_OFFSET, 0x61) == bytes);
    return check_summary();
}
