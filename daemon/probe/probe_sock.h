/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The prober's packets: one UDP datagram to port 4791 from a NIC's address
 * and a chosen source port, its TTL (hop limit) set to expire at the
 * spine; the ICMP time-exceeded that comes back, read from the socket's
 * error queue (IP_RECVERR), names the switch by its source address.
 */
#ifndef ROCEPATH_PROBE_SOCK_H
#define ROCEPATH_PROBE_SOCK_H

#include <stddef.h>
#include <sys/socket.h>

#include "plan_probe.h"

struct rp_probe_sock {
	const struct rp_topo *t;
	const char *host;	/* probes leave from this host's NICs only */
	double next_send;	/* rate limit: earliest time of the next packet */
};

/* An rp_probe_fn; ctx is a struct rp_probe_sock (zeroed, t and host set). */
int rp_probe_sock_fn(void *ctx, const struct rp_probe_pair *pair,
		     uint16_t sport, const struct rp_probe_opts *o, int *sw,
		     char *why, size_t whylen);

/*
 * One message from MSG_ERRQUEUE: 1 and the offender (ICMP source) when it
 * is an ICMP/ICMPv6 time-exceeded, 0 for another ICMP error (*type and
 * *code say which), -ENOMSG when the message carries no ICMP error.
 */
int rp_probe_parse_err(const struct msghdr *msg, struct rp_addr *offender,
		       int *type, int *code);

#endif /* ROCEPATH_PROBE_SOCK_H */
