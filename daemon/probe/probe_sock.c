// SPDX-License-Identifier: GPL-2.0
/*
 * Paris-traceroute style probes: the flow identity (addresses, protocol,
 * ports) is the one RoCEv2 traffic of that source port has, so the
 * switches hash the probe as they hash the flow; only the TTL differs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/icmp6.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe_sock.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pace(struct rp_probe_sock *ps, unsigned int rate)
{
	double t = now_s();

	if (rate && ps->next_send > t) {
		struct timespec d;
		double w = ps->next_send - t;

		d.tv_sec = (time_t)w;
		d.tv_nsec = (long)((w - d.tv_sec) * 1e9);
		nanosleep(&d, NULL);
		t = ps->next_send;
	}
	ps->next_send = t + (rate ? 1.0 / rate : 0);
}

int rp_probe_parse_err(const struct msghdr *msg, struct rp_addr *offender,
		       int *type, int *code)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c;
	     c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		const struct sock_extended_err *ee;
		const struct sockaddr *sa;

		if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		      (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
			continue;
		if (c->cmsg_len < CMSG_LEN(sizeof(*ee)))
			continue;
		ee = (const struct sock_extended_err *)CMSG_DATA(c);
		if (ee->ee_origin != SO_EE_ORIGIN_ICMP &&
		    ee->ee_origin != SO_EE_ORIGIN_ICMP6)
			continue;
		*type = ee->ee_type;
		*code = ee->ee_code;
		memset(offender, 0, sizeof(*offender));
		sa = SO_EE_OFFENDER(ee);
		if (c->cmsg_len >= CMSG_LEN(sizeof(*ee) + sizeof(struct sockaddr_in)) &&
		    sa->sa_family == AF_INET) {
			offender->family = AF_INET;
			memcpy(offender->raw,
			       &((const struct sockaddr_in *)sa)->sin_addr, 4);
		} else if (c->cmsg_len >= CMSG_LEN(sizeof(*ee) +
						   sizeof(struct sockaddr_in6)) &&
			   sa->sa_family == AF_INET6) {
			offender->family = AF_INET6;
			memcpy(offender->raw,
			       &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		}
		if (ee->ee_origin == SO_EE_ORIGIN_ICMP)
			return ee->ee_type == ICMP_TIME_EXCEEDED;
		return ee->ee_type == ICMP6_TIME_EXCEEDED;
	}
	return -ENOMSG;
}

static socklen_t mk_sa(const struct rp_addr *a, uint16_t port,
		       struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr = a->v4;
		return sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		s->sin6_addr = a->v6;
		return sizeof(*s);
	}
}

/* A socket that sends the probe's flow; -errno with why filled in. */
static int open_probe(const struct rp_probe_pair *pp, uint16_t sport,
		      unsigned int ttl, char *why, size_t whylen)
{
	int v6 = pp->src.family == AF_INET6, one = 1, hops = ttl, fd;
	struct sockaddr_storage ss;
	socklen_t len;

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto err;
	/* the NIC the topology names, never a route elsewhere */
	if (pp->netdev[0] &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, pp->netdev,
		       strlen(pp->netdev) + 1))
		goto err_dev;
	len = mk_sa(&pp->src, sport, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len))
		goto err_bind;
	if (v6 ? setsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)) ||
		 setsockopt(fd, SOL_IPV6, IPV6_RECVERR, &one, sizeof(one)) :
		 setsockopt(fd, SOL_IP, IP_TTL, &hops, sizeof(hops)) ||
		 setsockopt(fd, SOL_IP, IP_RECVERR, &one, sizeof(one)))
		goto err;
	len = mk_sa(&pp->dst, RP_ROCE_DPORT, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len))
		goto err;
	return fd;
err_dev:
	snprintf(why, whylen, "cannot bind to %s: %s", pp->netdev,
		 strerror(errno));
	goto out;
err_bind:
	snprintf(why, whylen, "cannot bind %s port %u: %s", pp->src_ip, sport,
		 strerror(errno));
	goto out;
err:
	snprintf(why, whylen, "socket: %s", strerror(errno));
out:
	{
		int e = errno;

		if (fd >= 0)
			close(fd);
		return -e;
	}
}

/* How long await() polls at a time: the latency of a cancel. */
#define AWAIT_SLICE_MS 100

/*
 * Waits up to o->timeout_ms for the error queue: 1 answered, 0 nothing (or
 * cancelled), -errno.
 */
static int await(struct rp_probe_sock *ps, int fd,
		 const struct rp_probe_opts *o, int *sw, char *why,
		 size_t whylen)
{
	double end = now_s() + o->timeout_ms / 1000.0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = 0 };
		char cbuf[512], data[64], ob[INET6_ADDRSTRLEN];
		struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct rp_addr off;
		int left = (int)((end - now_s()) * 1000), type, code, r;

		if (left < 0 || rp_probe_cancelled(o))
			return 0;
		r = poll(&pfd, 1, left < AWAIT_SLICE_MS ? left : AWAIT_SLICE_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			continue;
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		r = rp_probe_parse_err(&msg, &off, &type, &code);
		if (r < 0)
			continue;
		inet_ntop(off.family == AF_INET6 ? AF_INET6 : AF_INET, off.raw, ob,
			  sizeof(ob));
		if (!r) {
			/* a definite answer, but not from a switch on the way */
			snprintf(why, whylen, "ICMP type %d code %d from %s",
				 type, code, ob);
			return 1;
		}
		*sw = rp_topo_switch_of(ps->t, &off);
		if (*sw < 0)
			snprintf(why, whylen,
				 "time exceeded from %s, no switch's address in the topology",
				 ob);
		return 1;
	}
}

int rp_probe_sock_fn(void *ctx, const struct rp_probe_pair *pair,
		     uint16_t sport, const struct rp_probe_opts *o, int *sw,
		     char *why, size_t whylen)
{
	struct rp_probe_sock *ps = ctx;
	char payload[48];
	unsigned int k;
	int fd, len;

	*sw = -1;
	/* only the fabric under test: between NICs the topology lists */
	if (rp_topo_check_nic(ps->t, &pair->src, ps->host) ||
	    rp_topo_check_nic(ps->t, &pair->dst, NULL)) {
		snprintf(why, whylen, "not a pair of NICs of the topology (from %s): refused",
			 ps->host);
		return -EPERM;
	}
	fd = open_probe(pair, sport, o->ttl, why, whylen);
	if (fd < 0)
		return fd;
	for (k = 1; k <= (o->tries ? o->tries : 1); k++) {
		int r;

		pace(ps, o->rate_pps);
		len = snprintf(payload, sizeof(payload), "rocepath probe sport %u try %u",
			       sport, k);
		if (send(fd, payload, len, 0) < 0) {
			/* an earlier answer can surface here: read it below */
			if (errno != EHOSTUNREACH && errno != ECONNREFUSED &&
			    errno != ENETUNREACH) {
				snprintf(why, whylen, "send: %s", strerror(errno));
				break;
			}
		}
		r = await(ps, fd, o, sw, why, whylen);
		if (r < 0) {
			snprintf(why, whylen, "error queue: %s", strerror(-r));
			break;
		}
		if (r)
			break;
		snprintf(why, whylen, "no answer after %u tries", k);
		/* the walk says so before the next port: no more tries here */
		if (rp_probe_cancelled(o))
			break;
	}
	close(fd);
	return k > (o->tries ? o->tries : 1) ? (int)(k - 1) : (int)k;
}
