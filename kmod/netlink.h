/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: the generic netlink family and its notification, dump and
 * reply helpers. Registering the family with its ops: nl_family.h.
 */
#ifndef _ROCEPATH_NETLINK_H
#define _ROCEPATH_NETLINK_H

#include <linux/uidgid.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

extern struct genl_family rocepath_nl_family;

/* The notification queue, before the family is registered and after. */
void rocepath_nl_ntf_init(void);
void rocepath_nl_ntf_exit(void);

/*
 * A dump request's top-level attribute @type, or NULL. The parsed array is
 * as long as the op's own policy, which need not reach @type. The dump
 * info changed shape in 6.2 (struct genl_info inside genl_dumpit_info);
 * Kbuild detects which one the headers have.
 */
static inline const struct nlattr *rocepath_dump_attr(struct netlink_callback *cb,
						      unsigned int type)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
#ifdef ROCEPATH_HAVE_GENL_INFO_DUMP
	struct nlattr **attrs = info->info.attrs;
#else
	struct nlattr **attrs = info->attrs;
#endif

	return attrs && type <= info->op.maxattr ? attrs[type] : NULL;
}

struct rocepath_dump;

/*
 * Put one object's attributes into the message the dump helper started;
 * return ROCEPATH_DUMP_SKIP for an object the request filters out,
 * -EMSGSIZE when it does not fit.
 */
typedef int (*rocepath_dump_fill_t)(struct sk_buff *skb, const void *obj,
				    const struct rocepath_dump *d);
#define ROCEPATH_DUMP_SKIP	1

/*
 * Call rocepath_dump_obj() on each object of bucket @bucket, in an order
 * that is stable while the table does not change, until it returns false.
 * Return false when @bucket is past the end of the table.
 */
typedef bool (*rocepath_dump_walk_t)(struct rocepath_dump *d,
				     unsigned long bucket);

/**
 * struct rocepath_dump - one pass of a resumable dump
 * @skb: the message buffer of this pass
 * @cb: the dump; cb->args[0] is the bucket to resume at, cb->args[1] the
 *	objects of that bucket already sent, cb->args[2] set once the request
 *	has been checked
 * @ibdev: the request's ibdev filter, or NULL
 * @gen: the table's change counter, read under the walker's lock
 * @fill: puts one object
 * @cmd: the dump's command
 * @skip: objects of the current bucket sent by an earlier pass
 * @idx: objects of the current bucket seen by this pass
 * @err: -EMSGSIZE once the buffer is full
 * @all: the caller has CAP_NET_ADMIN and sees every user's objects
 * @uid: the caller's uid (its netlink socket's owner), for the dumps
 *	that show a caller without CAP_NET_ADMIN only its own QPs
 */
struct rocepath_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *ibdev;
	u32 gen;
	rocepath_dump_fill_t fill;
	u8 cmd;
	unsigned long skip;
	unsigned long idx;
	int err;
	bool all;
	kuid_t uid;
};

/*
 * Run one pass of a dump over a bucketed table (a list is a table of one
 * object per bucket), under whatever lock @walk needs, which the caller
 * holds. @gen becomes cb->seq, so a pass that sees a different value than
 * the one before flags its messages NLM_F_DUMP_INTR.
 */
int rocepath_dump_run(struct sk_buff *skb, struct netlink_callback *cb,
		      u32 gen, rocepath_dump_walk_t walk,
		      rocepath_dump_fill_t fill);
/* For walkers: send @obj unless an earlier pass did; false when full. */
bool rocepath_dump_obj(struct rocepath_dump *d, const void *obj);

/* Multicast a ready message to the monitor group; consumes @skb. */
void rocepath_nl_notify(struct sk_buff *skb, gfp_t gfp);
/*
 * Allocate a notification of @cmd with @size bytes of payload, or NULL
 * when nobody listens. @size is exact, so that the queue's byte bound and
 * the listeners' buffers hold what is sent and no more.
 */
struct sk_buff *rocepath_nl_ntf_new(u8 cmd, size_t size, gfp_t gfp,
				    void **hdr);
/* Free a notification that could not be filled; it counts as dropped. */
void rocepath_nl_ntf_drop(struct sk_buff *skb);
void rocepath_nl_pins_replaced(u32 generation);
/* Answer a change request with the generation it produced. */
int rocepath_nl_reply_generation(struct genl_info *info, u32 gen);
/* Notifications dropped so far, and the queue's limit in bytes. */
void rocepath_nl_ntf_stats(u64 *dropped, u32 *limit);

#endif /* _ROCEPATH_NETLINK_H */
