/* FNV-1a, 64 bits (Fowler, Noll and Vo): the hash of the library's, the command line's and the
 * calibration's open-addressing tables. Header-only, so that cli/ and calibrate/, which link
 * the library's public API alone, use this one definition too. Internal. */
#ifndef SCALEMETER_FNV_H
#define SCALEMETER_FNV_H

#include <stddef.h>
#include <stdint.h>

#define SM_FNV1A_OFFSET UINT64_C(14695981039346656037) /* the offset basis */
#define SM_FNV1A_PRIME UINT64_C(1099511628211)

/* h, FNV-1a-hashed on by one byte. */
static inline uint64_t sm_fnv1a_byte(uint64_t h, unsigned char c)
{
    return (h ^ c) * SM_FNV1A_PRIME;
}

/* h hashed on by the bytes of a NUL-terminated string (sm_fnv1a_str(SM_FNV1A_OFFSET, s) is
 * FNV-1a of s). */
static inline uint64_t sm_fnv1a_str(uint64_t h, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        h = sm_fnv1a_byte(h, *c);
    return h;
}

/* h hashed on by the eight bytes of v, least significant first, whatever the machine's order. */
static inline uint64_t sm_fnv1a_u64(uint64_t h, uint64_t v)
{
    for (int b = 0; b < 64; b += 8)
        h = sm_fnv1a_byte(h, (unsigned char)((v >> b) & 0xff));
    return h;
}

#endif
