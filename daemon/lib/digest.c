// SPDX-License-Identifier: GPL-2.0
/* FNV-1a 64 and its text (digest.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"

#define PREFIX "fnv1a64:"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

uint64_t rp_fnv1a64(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

char *rp_digest_fmt(uint64_t h, char *buf)
{
	snprintf(buf, RP_DIGEST_LEN, RP_DIGEST_FMT, (unsigned long long)h);
	return buf;
}

int rp_digest_parse(const char *s, uint64_t *h)
{
	uint64_t v = 0;

	if (strlen(s) != RP_DIGEST_LEN - 1 || strncmp(s, PREFIX, PREFIX_LEN))
		return -EINVAL;
	for (s += PREFIX_LEN; *s; s++) {
		if (*s >= '0' && *s <= '9')
			v = v << 4 | (uint64_t)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			v = v << 4 | (uint64_t)(*s - 'a' + 10);
		else
			return -EINVAL;
	}
	*h = v;
	return 0;
}
