/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink access to the rocepath family, for the CLI and rocepathd.
 *
 * One struct rp_nl is one NETLINK_GENERIC socket (libmnl) with extended
 * acks on; it resolves the family id and multicast group ids by name via
 * nlctrl. Every function returns 0 (or a count) on success and -errno on
 * failure; after a failure rp_nl_errmsg() gives the kernel's extack message
 * (or a library reason), NULL when there is none. Not thread safe: use one
 * rp_nl per thread, and a separate one for events (monitor) and requests.
 *
 * Typical use:
 *	struct rp_nl *nl;
 *	int ret = rp_nl_open(&nl);
 *	if (ret == -ENOENT) ... module not loaded
 *	ret = rp_pin_add(nl, &pin, &gen);
 *	if (ret) fprintf(stderr, "%s\n", rp_nl_errmsg(nl) ?: strerror(-ret));
 *	rp_nl_close(nl);
 */
#ifndef ROCEPATH_RP_NETLINK_H
#define ROCEPATH_RP_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "objs.h"

struct nlmsghdr;
struct rp_nl;

/* Dumps flagged NLM_F_DUMP_INTR are rerun this many times, then -EAGAIN. */
#define RP_NL_DUMP_RETRIES	8
/* Bytes of pin attributes per pin-replace message (chunking). */
#define RP_NL_REPLACE_CHUNK	(48 * 1024)

/*
 * Opens a socket and resolves the rocepath family: -ENOENT (and the
 * errmsg "rocepath generic netlink family not found") when the module is
 * not loaded. *nlp is set only on success.
 */
int rp_nl_open(struct rp_nl **nlp);
/*
 * Opens a socket without resolving the family (it may be absent), joined
 * to nlctrl's "notify" group, to watch the family appear and go away with
 * rp_nl_recv_events() + rp_nl_ctrl_event().
 */
int rp_nl_open_ctrl_watch(struct rp_nl **nlp);
void rp_nl_close(struct rp_nl *nl);

/* Re-resolves the family id and groups (after the module was reloaded). */
int rp_nl_resolve(struct rp_nl *nl);
uint16_t rp_nl_family_id(const struct rp_nl *nl);
/* The socket, for poll(); set O_NONBLOCK on it to make recv non-blocking. */
int rp_nl_fd(const struct rp_nl *nl);
/* Dump every message sent and received to fp (NULL: off), as --debug. */
void rp_nl_set_debug(struct rp_nl *nl, FILE *fp);
/* The same for every socket opened from now on (family lookup included). */
void rp_nl_set_default_debug(FILE *fp);
/* Kernel extack message (or library reason) of the last failure, or NULL. */
const char *rp_nl_errmsg(const struct rp_nl *nl);
/* Extack NLMSGERR_ATTR_OFFS of the last failure (byte offset), or 0. */
uint32_t rp_nl_erroff(const struct rp_nl *nl);

/* ---- Low level: build, send, receive ---- */

/*
 * Message callback: return 0 to go on, a negative -errno to stop (the
 * error is returned by the caller), 1 to stop successfully.
 */
typedef int (*rp_nl_cb)(const struct nlmsghdr *nlh, void *data);
/* Called before a dump is rerun, to drop what the callback collected. */
typedef void (*rp_nl_restart_cb)(void *data);

/*
 * Starts a rocepath request in the socket's send buffer (valid until the
 * next rp_nl_msg()); add attributes with mnl_attr_put*() / nests.
 * flags: NLM_F_REQUEST is always set; NLM_F_ACK / NLM_F_DUMP as needed.
 */
struct nlmsghdr *rp_nl_msg(struct rp_nl *nl, uint8_t cmd, uint16_t flags);
/* Sends nlh with NLM_F_ACK and runs cb on each reply until the ack. */
int rp_nl_doit(struct rp_nl *nl, struct nlmsghdr *nlh, rp_nl_cb cb,
	       void *data);
/*
 * Sends nlh as a dump and runs cb on each message until NLMSG_DONE. When
 * the kernel flags the dump NLM_F_DUMP_INTR (a change raced it), calls
 * restart(data) and reruns it, at most RP_NL_DUMP_RETRIES times
 * (-EAGAIN then).
 */
int rp_nl_dumpit(struct rp_nl *nl, struct nlmsghdr *nlh, rp_nl_cb cb,
		 rp_nl_restart_cb restart, void *data);

/*
 * Parses an NLMSG_ERROR (or NLMSG_DONE) message: returns its -errno (0 for
 * an ack), and copies the extack message (NLMSGERR_ATTR_MSG, "" if none)
 * into msg and NLMSGERR_ATTR_OFFS into *off (0 if none). Exposed for tests.
 */
int rp_nl_parse_err(const struct nlmsghdr *nlh, size_t len, char *msg,
		    size_t msglen, uint32_t *off);

/* ---- Events ---- */

/* Joins a multicast group of the family by name ("monitor"). */
int rp_nl_join(struct rp_nl *nl, const char *group);
/*
 * Receives one datagram of events and runs cb on each message. Blocks
 * unless the fd is non-blocking (-EAGAIN then). Returns -ENOBUFS when the
 * socket overran and events were lost (the socket stays usable: report
 * it, resynchronise with a dump, keep receiving).
 */
int rp_nl_recv_events(struct rp_nl *nl, rp_nl_cb cb, void *data);
/*
 * For a message from the ctrl watch socket: 1 when the rocepath family
 * appeared, -1 when it went away, 0 for anything else.
 */
int rp_nl_ctrl_event(const struct nlmsghdr *nlh);
/* The genetlink command of a message (ROCEPATH_CMD_*). */
uint8_t rp_nl_cmd(const struct nlmsghdr *nlh);
/*
 * First top-level attribute of type `type` in a rocepath message, or NULL
 * (e.g. ROCEPATH_A_QP of a qp-add-ntf, then rp_qp_parse()).
 */
const struct nlattr *rp_nl_attr(const struct nlmsghdr *nlh, int type);

/* ---- Operations (one per spec op; generation out-params may be NULL) ---- */

int rp_pin_add(struct rp_nl *nl, const struct rp_pin *pin, uint32_t *gen);
/* Key: ibdev, remote, rqpn, lqpn (sports ignored). */
int rp_pin_del(struct rp_nl *nl, const struct rp_pin *pin, uint32_t *gen);
int rp_pin_flush(struct rp_nl *nl, uint32_t *gen);
/*
 * Atomically replaces the whole rule set with pins[0..n): begin, chunks of
 * at most RP_NL_REPLACE_CHUNK bytes of pins, commit (one begin|commit
 * message when everything fits). With expect_gen, commit fails with
 * -ESTALE unless the live set still has that generation. On failure the
 * live set is unchanged (the staging set dies with the transaction).
 */
int rp_pin_replace(struct rp_nl *nl, const struct rp_pin *pins, size_t n,
		   const uint32_t *expect_gen, uint32_t *gen);
/* Appends every rule to *out (out->generation set); *out empty on error. */
int rp_pin_dump(struct rp_nl *nl, struct rp_pins *out);
/* ibdev NULL: every device. Results appended; emptied on error. */
int rp_dev_dump(struct rp_nl *nl, const char *ibdev, struct rp_devs *out);
int rp_qp_dump(struct rp_nl *nl, const char *ibdev, struct rp_qps *out);
int rp_flow_dump(struct rp_nl *nl, const char *ibdev, struct rp_flows *out);
int rp_flow_reset(struct rp_nl *nl, const char *ibdev);
int rp_dcqcn_dump(struct rp_nl *nl, const char *ibdev, struct rp_dcqcns *out);
/* Sends the ibdev and every parameter present in d->attrs. */
int rp_dcqcn_set(struct rp_nl *nl, const struct rp_dcqcn *d);
int rp_stats_get(struct rp_nl *nl, struct rp_stats *out);

/* Adds one ROCEPATH_A_PIN nest for p to nlh (used by add/del/replace). */
int rp_nl_put_pin(struct nlmsghdr *nlh, size_t buflen, const struct rp_pin *p,
		  bool with_sports);

#endif /* ROCEPATH_RP_NETLINK_H */
