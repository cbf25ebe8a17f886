// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"

void rp_addr_normalise(struct rp_addr *a)
{
	struct in_addr v4;

	if (a->family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a->v6))
		return;
	memcpy(&v4, &a->raw[12], 4);
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->v4 = v4;
}

int rp_addr_parse(const char *s, struct rp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (!s || !*s)
		return -EINVAL;
	if (inet_pton(AF_INET, s, &a->v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->v6) == 1) {
		a->family = AF_INET6;
		rp_addr_normalise(a);
		return 0;
	}
	memset(a, 0, sizeof(*a));
	return -EINVAL;
}

int rp_addr_from_bin(const void *data, size_t len, struct rp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (len == 4) {
		a->family = AF_INET;
		memcpy(&a->v4, data, 4);
		return 0;
	}
	if (len == 16) {
		a->family = AF_INET6;
		memcpy(&a->v6, data, 16);
		rp_addr_normalise(a);
		return 0;
	}
	return -EINVAL;
}

size_t rp_addr_len(const struct rp_addr *a)
{
	if (a->family == AF_INET)
		return 4;
	if (a->family == AF_INET6)
		return 16;
	return 0;
}

const void *rp_addr_data(const struct rp_addr *a)
{
	return a->raw;
}

/*
 * IPv4 as inet_ntop() writes it, without its sprintf(): the planner
 * formats every NIC address of a topology, 131,072 of them at the largest.
 */
static void fmt_v4(const uint8_t *b, char *buf)
{
	char *p = buf;

	for (int i = 0; i < 4; i++) {
		unsigned int v = b[i];

		if (i)
			*p++ = '.';
		if (v >= 100)
			*p++ = '0' + v / 100;
		if (v >= 10)
			*p++ = '0' + v / 10 % 10;
		*p++ = '0' + v % 10;
	}
	*p = 0;
}

const char *rp_addr_fmt(const struct rp_addr *a, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (a->family == AF_INET && len >= INET_ADDRSTRLEN) {
		fmt_v4(a->raw, buf);
		return buf;
	}
	if (!a->family || !inet_ntop(a->family, a->raw, buf, len))
		snprintf(buf, len, "-");
	return buf;
}

bool rp_addr_equal(const struct rp_addr *a, const struct rp_addr *b)
{
	return a->family == b->family &&
	       !memcmp(a->raw, b->raw, rp_addr_len(a));
}

int rp_addr_cmp(const struct rp_addr *a, const struct rp_addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->raw, b->raw, sizeof(a->raw));
}
