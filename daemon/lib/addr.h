/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPv4/IPv6 addresses as the CLI, the pins file and the netlink family
 * carry them. On netlink an address is 4 bytes (IPv4) or 16 bytes (IPv6),
 * network order. An IPv4-mapped IPv6 address (::ffff:a.b.c.d, the form of
 * RoCEv2 GIDs) is normalised to IPv4 everywhere, since RoCE treats the two
 * the same.
 */
#ifndef ROCEPATH_ADDR_H
#define ROCEPATH_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_ADDR_STRLEN INET6_ADDRSTRLEN

struct rp_addr {
	int family;		/* AF_INET, AF_INET6, or 0 when unset */
	union {
		struct in_addr v4;
		struct in6_addr v6;
		uint8_t raw[16];
	};
};

/* Text (dotted quad or RFC 4291 IPv6, no prefix, no scope). -EINVAL. */
int rp_addr_parse(const char *s, struct rp_addr *a);
/* Netlink binary form: 4 or 16 bytes; anything else is -EINVAL. */
int rp_addr_from_bin(const void *data, size_t len, struct rp_addr *a);
/* Bytes of the netlink form: 4, 16, or 0 when unset. */
size_t rp_addr_len(const struct rp_addr *a);
const void *rp_addr_data(const struct rp_addr *a);
/*
 * An IPv4-mapped IPv6 address becomes IPv4 (zero-filled past it); others
 * are left alone. rp_addr_parse and rp_addr_from_bin already do this.
 */
void rp_addr_normalise(struct rp_addr *a);
/* Formats into buf (>= RP_ADDR_STRLEN); "-" when unset. Returns buf. */
const char *rp_addr_fmt(const struct rp_addr *a, char *buf, size_t len);
bool rp_addr_equal(const struct rp_addr *a, const struct rp_addr *b);
/*
 * Total order for sorting and binary search: by family (unset < AF_INET <
 * AF_INET6), then the 16 bytes of raw, so the bytes past an IPv4 address
 * must be zero (rp_addr_parse and rp_addr_from_bin leave them so).
 * <0, 0 or >0 as memcmp.
 */
int rp_addr_cmp(const struct rp_addr *a, const struct rp_addr *b);

#endif /* ROCEPATH_ADDR_H */
