// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing for the rocepath family on top of libmnl:
 * family/group resolution via nlctrl, requests with extended acks, dumps
 * retried when the kernel flags them NLM_F_DUMP_INTR, multicast events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "rp_netlink.h"

#define NL_BUFSIZE	(64 * 1024)
#define NL_RCVBUF	(4 * 1024 * 1024)
#define NL_MAX_GROUPS	8

#ifndef NLMSGERR_ATTR_MISS_TYPE
#define NLMSGERR_ATTR_MISS_TYPE 5
#endif

struct nl_family {
	uint16_t id;
	int ngroups;
	struct {
		char name[GENL_NAMSIZ];
		uint32_t id;
	} groups[NL_MAX_GROUPS];
};

/* NLMSGERR_ATTR_POLICY of an integer range check the kernel failed. */
struct err_range {
	bool valid;
	int64_t min, max;
};

struct rp_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	struct nl_family fam;		/* rocepath (id 0: not resolved) */
	char *sbuf;
	char *rbuf;
	FILE *debug;
	char errmsg[256];
	uint32_t erroff;
	struct err_range range;		/* the rejecting policy's value range */
};

static void set_err(struct rp_nl *nl, const char *msg)
{
	snprintf(nl->errmsg, sizeof(nl->errmsg), "%s", msg ? msg : "");
}

const char *rp_nl_errmsg(const struct rp_nl *nl)
{
	return nl && nl->errmsg[0] ? nl->errmsg : NULL;
}

uint32_t rp_nl_erroff(const struct rp_nl *nl)
{
	return nl ? nl->erroff : 0;
}

uint16_t rp_nl_family_id(const struct rp_nl *nl)
{
	return nl->fam.id;
}

int rp_nl_fd(const struct rp_nl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

void rp_nl_set_debug(struct rp_nl *nl, FILE *fp)
{
	nl->debug = fp;
}

static FILE *default_debug;

void rp_nl_set_default_debug(FILE *fp)
{
	default_debug = fp;
}

static void debug_msg(struct rp_nl *nl, const char *dir, const void *buf,
		      size_t len)
{
	if (!nl->debug)
		return;
	fprintf(nl->debug, "netlink %s %zu bytes:\n", dir, len);
	mnl_nlmsg_fprintf(nl->debug, buf, len, sizeof(struct genlmsghdr));
	fflush(nl->debug);
}

static struct nlmsghdr *msg_start(struct rp_nl *nl, uint16_t type,
				  uint8_t cmd, uint8_t version,
				  uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	memset(nl->sbuf, 0, MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*genl)));
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *rp_nl_msg(struct rp_nl *nl, uint8_t cmd, uint16_t flags)
{
	return msg_start(nl, nl->fam.id, cmd, ROCEPATH_FAMILY_VERSION, flags);
}

uint8_t rp_nl_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*genl))
		return 0;
	return genl->cmd;
}

const struct nlattr *rp_nl_attr(const struct nlmsghdr *nlh, int type)
{
	const struct nlattr *a;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct genlmsghdr))
		return NULL;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static void parse_policy(const struct nlattr *pol, struct err_range *r)
{
	const struct nlattr *a;
	bool lo = false, hi = false;

	mnl_attr_for_each_nested(a, pol) {
		if (mnl_attr_get_payload_len(a) < 8)
			continue;
		switch (mnl_attr_get_type(a)) {
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			r->min = (int64_t)mnl_attr_get_u64(a);
			lo = true;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			r->max = (int64_t)mnl_attr_get_u64(a);
			hi = true;
			break;
		}
	}
	r->valid = lo && hi;
}

static int parse_err(const struct nlmsghdr *nlh, size_t len, char *msg,
		     size_t msglen, uint32_t *off, struct err_range *range);

int rp_nl_parse_err(const struct nlmsghdr *nlh, size_t len, char *msg,
		    size_t msglen, uint32_t *off)
{
	return parse_err(nlh, len, msg, msglen, off, NULL);
}

static int parse_err(const struct nlmsghdr *nlh, size_t len, char *msg,
		     size_t msglen, uint32_t *off, struct err_range *range)
{
	const char *base = (const char *)nlh;
	size_t hdr, end;
	int err;

	if (msg && msglen)
		msg[0] = '\0';
	if (off)
		*off = 0;
	if (range)
		range->valid = false;
	if (len < nlh->nlmsg_len || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
		return -EBADMSG;
	end = nlh->nlmsg_len;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (end < NLMSG_HDRLEN + sizeof(*e))
			return -EBADMSG;
		err = e->error;
		hdr = NLMSG_HDRLEN + sizeof(*e);
		/* Without NETLINK_CAP_ACK the request's payload is echoed. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < NLMSG_HDRLEN)
				return -EBADMSG;
			hdr += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
		}
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int));
	} else {
		return -EBADMSG;
	}
	if (err > 0)
		err = -err;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || hdr >= end)
		return err;

	/* Extended ack TLVs. */
	{
		const struct nlattr *a = (const void *)(base + hdr);
		int rem = end - hdr;
		uint32_t miss = 0;
		bool have_msg = false;

		while (mnl_attr_ok(a, rem)) {
			switch (mnl_attr_get_type(a)) {
			case NLMSGERR_ATTR_MSG:
				if (msg && msglen) {
					const char *s = mnl_attr_get_payload(a);
					size_t n = strnlen(s,
						mnl_attr_get_payload_len(a));

					if (n >= msglen)
						n = msglen - 1;
					memcpy(msg, s, n);
					msg[n] = '\0';
					have_msg = n;
				}
				break;
			case NLMSGERR_ATTR_OFFS:
				if (off && mnl_attr_get_payload_len(a) >= 4)
					*off = mnl_attr_get_u32(a);
				break;
			case NLMSGERR_ATTR_MISS_TYPE:
				if (mnl_attr_get_payload_len(a) >= 4)
					miss = mnl_attr_get_u32(a);
				break;
			case NLMSGERR_ATTR_POLICY:
				if (range)
					parse_policy(a, range);
				break;
			}
			a = mnl_attr_next(a);
			rem = end - ((const char *)a - base);
		}
		if (!have_msg && miss && msg && msglen && err)
			snprintf(msg, msglen, "missing attribute %u", miss);
	}
	return err;
}

/*
 * Receives replies to request `seq` until the ack / NLMSG_DONE, running cb
 * on data messages. *intr is set when any was flagged NLM_F_DUMP_INTR.
 */
static int recv_replies(struct rp_nl *nl, uint32_t seq, rp_nl_cb cb,
			void *data, bool *intr)
{
	int stop = 0;

	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len;
		int n, ret;

		len = mnl_socket_recvfrom(nl->sock, nl->rbuf, NL_BUFSIZE);
		if (len < 0) {
			ret = -errno;
			if (ret == -ENOSPC)
				set_err(nl, "netlink reply truncated");
			return ret;
		}
		n = len;
		debug_msg(nl, "received", nl->rbuf, n);
		nlh = (const struct nlmsghdr *)nl->rbuf;
		for (; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_seq != seq ||
			    (nlh->nlmsg_pid && nlh->nlmsg_pid != nl->portid))
				continue;	/* stale reply of an aborted request */
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				*intr = true;
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				ret = parse_err(nlh, n, nl->errmsg,
						sizeof(nl->errmsg), &nl->erroff,
						&nl->range);
				/* An ack's extack message is only a warning. */
				if (!ret)
					nl->errmsg[0] = '\0';
				return stop < 0 ? stop : ret;
			}
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE || stop)
				continue;
			ret = cb ? cb(nlh, data) : 0;
			/* Keep reading to the ack so the socket stays in sync. */
			if (ret)
				stop = ret < 0 ? ret : 1;
		}
	}
}

static int send_msg(struct rp_nl *nl, struct nlmsghdr *nlh)
{
	nl->errmsg[0] = '\0';
	nl->erroff = 0;
	nl->range.valid = false;
	debug_msg(nl, "sent", nlh, nlh->nlmsg_len);
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
		int ret = -errno;

		set_err(nl, "cannot send netlink request");
		return ret;
	}
	return 0;
}

int rp_nl_doit(struct rp_nl *nl, struct nlmsghdr *nlh, rp_nl_cb cb,
	       void *data)
{
	bool intr = false;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	ret = send_msg(nl, nlh);
	if (ret)
		return ret;
	return recv_replies(nl, nlh->nlmsg_seq, cb, data, &intr);
}

int rp_nl_dumpit(struct rp_nl *nl, struct nlmsghdr *nlh, rp_nl_cb cb,
		 rp_nl_restart_cb restart, void *data)
{
	for (int try = 0;; try++) {
		bool intr = false;
		int ret;

		nlh->nlmsg_flags |= NLM_F_DUMP;
		ret = send_msg(nl, nlh);
		if (ret)
			return ret;
		ret = recv_replies(nl, nlh->nlmsg_seq, cb, data, &intr);
		if (ret || !intr)
			return ret;
		if (try == RP_NL_DUMP_RETRIES) {
			set_err(nl, "dump kept changing under us (NLM_F_DUMP_INTR), giving up");
			return -EAGAIN;
		}
		if (restart)
			restart(data);
		nlh->nlmsg_seq = ++nl->seq;
	}
}

/* ---- nlctrl ---- */

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_family *fam = data;
	const struct nlattr *a, *g, *ga;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
				fam->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a) {
				const char *name = NULL;
				uint32_t id = 0;

				mnl_attr_for_each_nested(ga, g) {
					if (mnl_attr_get_type(ga) ==
					    CTRL_ATTR_MCAST_GRP_NAME &&
					    mnl_attr_validate(ga, MNL_TYPE_NUL_STRING) == 0)
						name = mnl_attr_get_str(ga);
					else if (mnl_attr_get_type(ga) ==
						 CTRL_ATTR_MCAST_GRP_ID &&
						 mnl_attr_validate(ga, MNL_TYPE_U32) == 0)
						id = mnl_attr_get_u32(ga);
				}
				if (!name || fam->ngroups == NL_MAX_GROUPS)
					continue;
				snprintf(fam->groups[fam->ngroups].name,
					 GENL_NAMSIZ, "%s", name);
				fam->groups[fam->ngroups++].id = id;
			}
			break;
		}
	}
	return 0;
}

static int resolve_family(struct rp_nl *nl, const char *name,
			  struct nl_family *fam)
{
	struct nlmsghdr *nlh;
	int ret;

	memset(fam, 0, sizeof(*fam));
	nlh = msg_start(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	ret = rp_nl_doit(nl, nlh, family_cb, fam);
	if (!ret && !fam->id)
		ret = -ENOENT;
	if (ret == -ENOENT) {
		snprintf(nl->errmsg, sizeof(nl->errmsg),
			 "%s generic netlink family not found", name);
		memset(fam, 0, sizeof(*fam));
	}
	return ret;
}

int rp_nl_resolve(struct rp_nl *nl)
{
	return resolve_family(nl, ROCEPATH_FAMILY_NAME, &nl->fam);
}

static int sock_open(struct rp_nl **nlp)
{
	int one = 1, rcvbuf = NL_RCVBUF;
	struct rp_nl *nl;
	int ret, fd;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sbuf = calloc(1, NL_BUFSIZE);
	nl->rbuf = malloc(NL_BUFSIZE);
	if (!nl->sbuf || !nl->rbuf) {
		ret = -ENOMEM;
		goto err_free;
	}
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		ret = -errno;
		goto err_free;
	}
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err_close;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	nl->debug = default_debug;
	/* Best effort: older kernels lack these, replies still work. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Large dumps and event bursts: a big receive buffer (root: forced). */
	fd = mnl_socket_get_fd(nl->sock);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	*nlp = nl;
	return 0;

err_close:
	mnl_socket_close(nl->sock);
err_free:
	free(nl->sbuf);
	free(nl->rbuf);
	free(nl);
	return ret;
}

int rp_nl_open(struct rp_nl **nlp)
{
	struct rp_nl *nl;
	int ret;

	ret = sock_open(&nl);
	if (ret)
		return ret;
	ret = rp_nl_resolve(nl);
	if (ret) {
		rp_nl_close(nl);
		return ret;
	}
	*nlp = nl;
	return 0;
}

static int join_group(struct rp_nl *nl, const struct nl_family *fam,
		      const char *family, const char *group)
{
	for (int i = 0; i < fam->ngroups; i++) {
		if (strcmp(fam->groups[i].name, group))
			continue;
		uint32_t id = fam->groups[i].id;

		if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
					  &id, sizeof(id)) < 0) {
			int ret = -errno;

			snprintf(nl->errmsg, sizeof(nl->errmsg),
				 "cannot join %s multicast group %s", family,
				 group);
			return ret;
		}
		return 0;
	}
	snprintf(nl->errmsg, sizeof(nl->errmsg),
		 "%s has no multicast group %s", family, group);
	return -ENOENT;
}

int rp_nl_join(struct rp_nl *nl, const char *group)
{
	return join_group(nl, &nl->fam, ROCEPATH_FAMILY_NAME, group);
}

int rp_nl_open_ctrl_watch(struct rp_nl **nlp)
{
	struct nl_family ctrl;
	struct rp_nl *nl;
	int ret;

	ret = sock_open(&nl);
	if (ret)
		return ret;
	ret = resolve_family(nl, "nlctrl", &ctrl);
	if (!ret)
		ret = join_group(nl, &ctrl, "nlctrl", "notify");
	if (ret) {
		rp_nl_close(nl);
		return ret;
	}
	/* Resolved if present; absence is what the watcher waits for. */
	rp_nl_resolve(nl);
	nl->errmsg[0] = '\0';
	*nlp = nl;
	return 0;
}

void rp_nl_close(struct rp_nl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sock);
	free(nl->sbuf);
	free(nl->rbuf);
	free(nl);
}

int rp_nl_ctrl_event(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	uint8_t cmd;

	if (nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	cmd = rp_nl_cmd(nlh);
	if (cmd != CTRL_CMD_NEWFAMILY && cmd != CTRL_CMD_DELFAMILY)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != CTRL_ATTR_FAMILY_NAME ||
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		if (strcmp(mnl_attr_get_str(a), ROCEPATH_FAMILY_NAME))
			return 0;
		return cmd == CTRL_CMD_NEWFAMILY ? 1 : -1;
	}
	return 0;
}

int rp_nl_recv_events(struct rp_nl *nl, rp_nl_cb cb, void *data)
{
	const struct nlmsghdr *nlh;
	ssize_t len;
	int n;

	len = mnl_socket_recvfrom(nl->sock, nl->rbuf, NL_BUFSIZE);
	if (len < 0) {
		int ret = -errno;

		if (ret == -ENOBUFS)
			set_err(nl, "event queue overrun, events were lost");
		return ret;
	}
	n = len;
	debug_msg(nl, "event", nl->rbuf, n);
	nlh = (const struct nlmsghdr *)nl->rbuf;
	for (; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
		int ret;

		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		ret = cb(nlh, data);
		if (ret < 0)
			return ret;
		if (ret)
			break;
	}
	return 0;
}

/* ---- Operations ---- */

int rp_nl_put_pin(struct nlmsghdr *nlh, size_t buflen, const struct rp_pin *p,
		  bool with_sports)
{
	struct nlattr *nest;
	size_t alen = rp_addr_len(&p->remote);

	nest = mnl_attr_nest_start_check(nlh, buflen, ROCEPATH_A_PIN);
	if (!nest)
		return -EMSGSIZE;
	if (p->ibdev[0] &&
	    !mnl_attr_put_strz_check(nlh, buflen, ROCEPATH_A_PIN_IBDEV,
				     p->ibdev))
		goto err_cancel;
	if (alen && !mnl_attr_put_check(nlh, buflen, ROCEPATH_A_PIN_REMOTE,
					alen, rp_addr_data(&p->remote)))
		goto err_cancel;
	for (size_t i = 0; with_sports && i < p->nsports; i++)
		if (!mnl_attr_put_u16_check(nlh, buflen, ROCEPATH_A_PIN_SPORT,
					    p->sports[i]))
			goto err_cancel;
	if (RP_HAS(p, ROCEPATH_A_PIN_RQPN) &&
	    !mnl_attr_put_u32_check(nlh, buflen, ROCEPATH_A_PIN_RQPN, p->rqpn))
		goto err_cancel;
	if (RP_HAS(p, ROCEPATH_A_PIN_LQPN) &&
	    !mnl_attr_put_u32_check(nlh, buflen, ROCEPATH_A_PIN_LQPN, p->lqpn))
		goto err_cancel;
	mnl_attr_nest_end(nlh, nest);
	return 0;

err_cancel:
	mnl_attr_nest_cancel(nlh, nest);
	return -EMSGSIZE;
}

static int gen_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a = rp_nl_attr(nlh, ROCEPATH_A_GENERATION);

	if (a && data && mnl_attr_get_payload_len(a) >= 4)
		*(uint32_t *)data = mnl_attr_get_u32(a);
	return 0;
}

static int pin_do(struct rp_nl *nl, uint8_t cmd, const struct rp_pin *pin,
		  bool with_sports, uint32_t *gen)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, cmd, 0);
	int ret;

	ret = rp_nl_put_pin(nlh, NL_BUFSIZE, pin, with_sports);
	if (ret) {
		set_err(nl, "pin rule too large for one netlink message");
		return ret;
	}
	return rp_nl_doit(nl, nlh, gen_cb, gen);
}

int rp_pin_add(struct rp_nl *nl, const struct rp_pin *pin, uint32_t *gen)
{
	return pin_do(nl, ROCEPATH_CMD_PIN_ADD, pin, true, gen);
}

int rp_pin_del(struct rp_nl *nl, const struct rp_pin *pin, uint32_t *gen)
{
	return pin_do(nl, ROCEPATH_CMD_PIN_DEL, pin, false, gen);
}

int rp_pin_flush(struct rp_nl *nl, uint32_t *gen)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, ROCEPATH_CMD_PIN_FLUSH, 0);

	return rp_nl_doit(nl, nlh, gen_cb, gen);
}

int rp_pin_replace(struct rp_nl *nl, const struct rp_pin *pins, size_t n,
		   const uint32_t *expect_gen, uint32_t *gen)
{
	size_t i = 0;
	bool first = true;

	for (;;) {
		struct nlmsghdr *nlh;
		uint32_t flags = 0;
		struct nlattr *fl;
		size_t in_msg = 0;
		int ret;

		nlh = rp_nl_msg(nl, ROCEPATH_CMD_PIN_REPLACE, 0);
		fl = mnl_nlmsg_get_payload_tail(nlh);
		mnl_attr_put_u32(nlh, ROCEPATH_A_REPLACE_FLAGS, 0);
		for (; i < n; i++, in_msg++) {
			ret = rp_nl_put_pin(nlh, RP_NL_REPLACE_CHUNK, &pins[i],
					    true);
			if (ret && !in_msg) {
				snprintf(nl->errmsg, sizeof(nl->errmsg),
					 "pin %zu too large for one netlink message",
					 i);
				return ret;
			}
			if (ret)
				break;
		}
		if (first)
			flags |= ROCEPATH_REPLACE_FLAGS_BEGIN;
		if (i == n) {
			flags |= ROCEPATH_REPLACE_FLAGS_COMMIT;
			if (expect_gen)
				mnl_attr_put_u32(nlh, ROCEPATH_A_GENERATION,
						 *expect_gen);
		}
		memcpy(mnl_attr_get_payload(fl), &flags, sizeof(flags));
		ret = rp_nl_doit(nl, nlh, gen_cb, gen);
		if (ret)
			return ret;
		if (flags & ROCEPATH_REPLACE_FLAGS_COMMIT)
			return 0;
		first = false;
	}
}

/* A dump collected into a vector; restart empties it. */
struct collect {
	struct rp_nl *nl;
	int attr;		/* top-level nest type */
	void *vec;		/* struct rp_pins / rp_devs / ... */
	int ret;
};

static int pins_cb(const struct nlmsghdr *nlh, void *data)
{
	struct collect *c = data;
	struct rp_pins *pins = c->vec;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		struct rp_pin p;
		int ret;

		if (mnl_attr_get_type(a) == ROCEPATH_A_GENERATION) {
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) {
				set_err(c->nl, "malformed generation in pin dump");
				return -EINVAL;
			}
			pins->generation = mnl_attr_get_u32(a);
			continue;
		}
		if (mnl_attr_get_type(a) != ROCEPATH_A_PIN)
			continue;
		ret = rp_pin_parse(a, &p);
		if (ret) {
			set_err(c->nl, "malformed pin rule in dump");
			return ret;
		}
		ret = rp_pins_push(pins, &p);
		if (ret) {
			rp_pin_release(&p);
			return ret;
		}
	}
	return 0;
}

static void pins_restart(void *data)
{
	struct collect *c = data;

	rp_pins_free(c->vec);
}

static struct nlmsghdr *dump_msg(struct rp_nl *nl, uint8_t cmd,
				 const char *ibdev)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, cmd, NLM_F_DUMP);

	if (ibdev && *ibdev)
		mnl_attr_put_strz(nlh, ROCEPATH_A_IBDEV, ibdev);
	return nlh;
}

int rp_pin_dump(struct rp_nl *nl, struct rp_pins *out)
{
	struct collect c = { .nl = nl, .vec = out };
	struct nlmsghdr *nlh = dump_msg(nl, ROCEPATH_CMD_PIN_GET, NULL);
	int ret;

	ret = rp_nl_dumpit(nl, nlh, pins_cb, pins_restart, &c);
	if (ret)
		rp_pins_free(out);
	return ret;
}

static int devs_cb(const struct nlmsghdr *nlh, void *data)
{
	struct collect *c = data;
	struct rp_devs *v = c->vec;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		int ret;

		if (mnl_attr_get_type(a) != ROCEPATH_A_DEV)
			continue;
		ret = rp_vec_grow((void **)&v->v, &v->cap, v->n, sizeof(*v->v));
		if (ret)
			return ret;
		ret = rp_dev_parse(a, &v->v[v->n]);
		if (ret) {
			set_err(c->nl, "malformed device in dump");
			return ret;
		}
		ret = v->n ? rp_dev_merge(&v->v[v->n - 1], &v->v[v->n]) : 0;
		if (ret < 0) {
			rp_dev_release(&v->v[v->n]);
			return ret;
		}
		if (!ret)
			v->n++;
	}
	return 0;
}

static void devs_restart(void *data)
{
	rp_devs_free(((struct collect *)data)->vec);
}

int rp_dev_dump(struct rp_nl *nl, const char *ibdev, struct rp_devs *out)
{
	struct collect c = { .nl = nl, .vec = out };
	struct nlmsghdr *nlh = dump_msg(nl, ROCEPATH_CMD_DEV_GET, ibdev);
	int ret;

	ret = rp_nl_dumpit(nl, nlh, devs_cb, devs_restart, &c);
	if (ret)
		rp_devs_free(out);
	return ret;
}

/*
 * The plain vectors (qps, flows, dcqcns) share a layout: v, n, cap.
 * One callback serves them through a parse function and an item size.
 */
struct plain_vec {
	void *v;
	size_t n, cap;
};

struct plain_collect {
	struct rp_nl *nl;
	int attr;
	size_t size;
	int (*parse)(const struct nlattr *nest, void *item);
	const char *what;
	struct plain_vec *vec;
};

static int plain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct plain_collect *c = data;
	struct plain_vec *v = c->vec;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		int ret;

		if (mnl_attr_get_type(a) != c->attr)
			continue;
		ret = rp_vec_grow(&v->v, &v->cap, v->n, c->size);
		if (ret)
			return ret;
		ret = c->parse(a, (char *)v->v + v->n * c->size);
		if (ret) {
			snprintf(c->nl->errmsg, sizeof(c->nl->errmsg),
				 "malformed %s in dump", c->what);
			return ret;
		}
		v->n++;
	}
	return 0;
}

static void plain_restart(void *data)
{
	struct plain_collect *c = data;

	free(c->vec->v);
	memset(c->vec, 0, sizeof(*c->vec));
}

static int plain_dump(struct rp_nl *nl, uint8_t cmd, const char *ibdev,
		      struct plain_collect *c)
{
	struct nlmsghdr *nlh = dump_msg(nl, cmd, ibdev);
	int ret;

	c->nl = nl;
	ret = rp_nl_dumpit(nl, nlh, plain_cb, plain_restart, c);
	if (ret)
		plain_restart(c);
	return ret;
}

static int qp_parse_v(const struct nlattr *n, void *p)
{
	return rp_qp_parse(n, p);
}

static int flow_parse_v(const struct nlattr *n, void *p)
{
	return rp_flow_parse(n, p);
}

static int dcqcn_parse_v(const struct nlattr *n, void *p)
{
	return rp_dcqcn_parse(n, p);
}

int rp_qp_dump(struct rp_nl *nl, const char *ibdev, struct rp_qps *out)
{
	struct plain_collect c = {
		.attr = ROCEPATH_A_QP, .size = sizeof(*out->v),
		.parse = qp_parse_v, .what = "queue pair",
		.vec = (struct plain_vec *)out,
	};

	return plain_dump(nl, ROCEPATH_CMD_QP_GET, ibdev, &c);
}

int rp_flow_dump(struct rp_nl *nl, const char *ibdev, struct rp_flows *out)
{
	struct plain_collect c = {
		.attr = ROCEPATH_A_FLOW, .size = sizeof(*out->v),
		.parse = flow_parse_v, .what = "flow",
		.vec = (struct plain_vec *)out,
	};

	return plain_dump(nl, ROCEPATH_CMD_FLOW_GET, ibdev, &c);
}

int rp_dcqcn_dump(struct rp_nl *nl, const char *ibdev, struct rp_dcqcns *out)
{
	struct plain_collect c = {
		.attr = ROCEPATH_A_DCQCN, .size = sizeof(*out->v),
		.parse = dcqcn_parse_v, .what = "dcqcn parameter set",
		.vec = (struct plain_vec *)out,
	};

	return plain_dump(nl, ROCEPATH_CMD_DCQCN_GET, ibdev, &c);
}

int rp_flow_reset(struct rp_nl *nl, const char *ibdev)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, ROCEPATH_CMD_FLOW_RESET, 0);

	if (ibdev && *ibdev)
		mnl_attr_put_strz(nlh, ROCEPATH_A_IBDEV, ibdev);
	return rp_nl_doit(nl, nlh, NULL, NULL);
}

int rp_dcqcn_set(struct rp_nl *nl, const struct rp_dcqcn *d)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, ROCEPATH_CMD_DCQCN_SET, 0);
	struct nlattr *nest;
	int ret;

	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_DCQCN);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DCQCN_IBDEV, d->ibdev);
	for (int i = 0; i <= ROCEPATH_A_DCQCN_MAX; i++)
		if (rp_dcqcn_name(i) && RP_HAS(d, i))
			mnl_attr_put_u32(nlh, i, d->val[i]);
	mnl_attr_nest_end(nlh, nest);
	ret = rp_nl_doit(nl, nlh, NULL, NULL);
	/*
	 * The policy (from the spec) rejects an out-of-range value with its
	 * range and the offset of the attribute: name the parameter.
	 */
	if (ret && nl->range.valid &&
	    nl->erroff > (size_t)((const char *)nest - (const char *)nlh) &&
	    nl->erroff + sizeof(struct nlattr) <= nlh->nlmsg_len) {
		const struct nlattr *a =
			(const void *)((const char *)nlh + nl->erroff);
		const char *name = rp_dcqcn_name(mnl_attr_get_type(a));

		if (name)
			snprintf(nl->errmsg, sizeof(nl->errmsg),
				 "%s out of range %lld..%lld", name,
				 (long long)nl->range.min, (long long)nl->range.max);
	}
	return ret;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a = rp_nl_attr(nlh, ROCEPATH_A_STATS);

	if (!a)
		return 0;
	return rp_stats_parse(a, data);
}

int rp_stats_get(struct rp_nl *nl, struct rp_stats *out)
{
	struct nlmsghdr *nlh = rp_nl_msg(nl, ROCEPATH_CMD_STATS_GET, 0);

	memset(out, 0, sizeof(*out));
	return rp_nl_doit(nl, nlh, stats_cb, out);
}
