// SPDX-License-Identifier: GPL-2.0
/* FNV-1a 64 (digest.h). */
#include "digest.h"

uint64_t rp_fnv1a64(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}
