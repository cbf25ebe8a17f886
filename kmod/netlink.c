// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the "rocepath" generic netlink family and the messages every
 * layer sends on it: notifications, dumps and replies.
 *
 * Policies are generated from the YNL spec: the nested ones by ynl-gen into
 * netlink-gen.c, one request policy per op and the ops table carrying them
 * into netlink-ops-gen.h (Documentation/netlink.rst says why both). The
 * family itself is defined here because ynl-gen emits no family struct for
 * the spec's kernel-policy "global". The multicast group table is ours for
 * the same reason, built from the generated group index and name, so the
 * two cannot drift apart. The ops table names every request handler, so
 * it is not part of this file, which the tables below the handlers call:
 * nl_family.c gives the family its ops and registers it.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "netlink.h"

/*
 * Notifications from atomic context (the hook) wait in ntf_queue for a work
 * item to multicast them. The queue is bounded by the memory its messages
 * take (truesize), not by their number: what does not fit is dropped and
 * counted.
 */
static unsigned int max_ntf_bytes = 1024 * 1024;
module_param(max_ntf_bytes, uint, 0444);
MODULE_PARM_DESC(max_ntf_bytes,
		 "Limit in bytes on notifications queued from the hook (default 1 MiB)");

/*
 * The monitor group carries every user's QPs (local and remote QPNs, peer
 * addresses, ports): only CAP_NET_ADMIN may join it. Kernels whose genetlink
 * cannot check that at join (upstream before 6.1.76 / 6.7) get no QP
 * notifications at all (ntf_withheld()). Debian's 6.1 has the check.
 */
static const struct genl_multicast_group rocepath_mcgrps[] = {
	[ROCEPATH_NLGRP_MONITOR] = {
		.name	= ROCEPATH_MCGRP_MONITOR,
#ifdef ROCEPATH_HAVE_GENL_MCAST_CAP
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
#endif
	},
};

struct genl_family rocepath_nl_family __ro_after_init = {
	.name		= ROCEPATH_FAMILY_NAME,
	.version	= ROCEPATH_FAMILY_VERSION,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	/* .ops and .n_ops: set by nl_family.c before it registers the family */
	.mcgrps		= rocepath_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rocepath_mcgrps),
};

static struct sk_buff_head ntf_queue;
static unsigned int ntf_queued_bytes;	/* under ntf_queue.lock */
static atomic64_t ntf_dropped;

static void ntf_work_fn(struct work_struct *work)
{
	struct sk_buff *skb;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ntf_queue.lock, flags);
		skb = __skb_dequeue(&ntf_queue);
		if (skb)
			ntf_queued_bytes -= skb->truesize;
		spin_unlock_irqrestore(&ntf_queue.lock, flags);
		if (!skb)
			break;
		genlmsg_multicast(&rocepath_nl_family, skb, 0,
				  ROCEPATH_NLGRP_MONITOR, GFP_KERNEL);
	}
}

static DECLARE_WORK(ntf_work, ntf_work_fn);

/*
 * A notification that names one user's QP goes to CAP_NET_ADMIN only:
 * where the group cannot be restricted, it is not sent.
 */
static bool ntf_withheld(u8 cmd)
{
#ifdef ROCEPATH_HAVE_GENL_MCAST_CAP
	return false;
#else
	return cmd == ROCEPATH_CMD_QP_ADD_NTF || cmd == ROCEPATH_CMD_QP_DEL_NTF;
#endif
}

struct sk_buff *rocepath_nl_ntf_new(u8 cmd, size_t size, gfp_t gfp,
				    void **hdr)
{
	struct sk_buff *skb;

	if (ntf_withheld(cmd))
		return NULL;
	if (!genl_has_listeners(&rocepath_nl_family, &init_net,
				ROCEPATH_NLGRP_MONITOR))
		return NULL;
	skb = genlmsg_new(size, gfp);
	if (!skb)
		goto drop;
	*hdr = genlmsg_put(skb, 0, 0, &rocepath_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		goto drop;
	}
	return skb;

drop:
	atomic64_inc(&ntf_dropped);
	return NULL;
}

void rocepath_nl_ntf_drop(struct sk_buff *skb)
{
	atomic64_inc(&ntf_dropped);
	nlmsg_free(skb);
}

void rocepath_nl_notify(struct sk_buff *skb, gfp_t gfp)
{
	unsigned long flags;
	bool queued = false;

	if (gfpflags_allow_blocking(gfp)) {
		genlmsg_multicast(&rocepath_nl_family, skb, 0,
				  ROCEPATH_NLGRP_MONITOR, gfp);
		return;
	}
	spin_lock_irqsave(&ntf_queue.lock, flags);
	if (ntf_queued_bytes + skb->truesize <= READ_ONCE(max_ntf_bytes)) {
		ntf_queued_bytes += skb->truesize;
		__skb_queue_tail(&ntf_queue, skb);
		queued = true;
	}
	spin_unlock_irqrestore(&ntf_queue.lock, flags);
	if (!queued) {
		rocepath_nl_ntf_drop(skb);
		return;
	}
	schedule_work(&ntf_work);
}

void rocepath_nl_pins_replaced(u32 generation)
{
	struct sk_buff *skb;
	void *hdr;

	skb = rocepath_nl_ntf_new(ROCEPATH_CMD_PINS_REPLACED_NTF,
				  nla_total_size(sizeof(u32)), GFP_KERNEL, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, ROCEPATH_A_GENERATION, generation)) {
		rocepath_nl_ntf_drop(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rocepath_nl_notify(skb, GFP_KERNEL);
}

int rocepath_nl_reply_generation(struct genl_info *info, u32 gen)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rocepath_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr || nla_put_u32(msg, ROCEPATH_A_GENERATION, gen)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

bool rocepath_dump_obj(struct rocepath_dump *d, const void *obj)
{
	void *hdr;
	int err;

	if (d->idx++ < d->skip)
		return true;
	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &rocepath_nl_family,
			  NLM_F_MULTI, d->cmd);
	if (!hdr)
		goto full;
	err = d->fill(d->skb, obj, d);
	if (err == ROCEPATH_DUMP_SKIP) {
		genlmsg_cancel(d->skb, hdr);
		return true;
	}
	if (err) {
		genlmsg_cancel(d->skb, hdr);
		goto full;
	}
	genl_dump_check_consistent(d->cb, hdr);
	genlmsg_end(d->skb, hdr);
	return true;

full:
	/* This object is the first of the next pass. */
	d->idx--;
	d->err = -EMSGSIZE;
	return false;
}

int rocepath_dump_run(struct sk_buff *skb, struct netlink_callback *cb,
		      u32 gen, rocepath_dump_walk_t walk,
		      rocepath_dump_fill_t fill)
{
	const struct genlmsghdr *ghdr = nlmsg_data(cb->nlh);
	const struct nlattr *ibdev = rocepath_dump_attr(cb, ROCEPATH_A_IBDEV);
	struct rocepath_dump d = {
		.skb	= skb,
		.cb	= cb,
		.gen	= gen,
		.fill	= fill,
		.cmd	= ghdr->cmd,
	};
	unsigned long b;

	if (ibdev)
		d.ibdev = nla_data(ibdev);
	/*
	 * The same test GENL_ADMIN_PERM makes: the socket's opener and the
	 * task reading both hold CAP_NET_ADMIN. Anyone else sees only the QPs
	 * (and their flows) that its socket's owner created.
	 */
	d.all = netlink_capable(cb->skb, CAP_NET_ADMIN);
	d.uid = sock_net_uid(sock_net(NETLINK_CB(cb->skb).sk),
			     NETLINK_CB(cb->skb).sk);
	/* 0 would mean "no sequence yet" to genl_dump_check_consistent(). */
	cb->seq = gen + 1 ?: 1;

	for (b = cb->args[0], d.skip = cb->args[1];; b++, d.skip = 0) {
		d.idx = 0;
		if (!walk(&d, b) || d.err)
			break;
	}
	cb->args[0] = b;
	cb->args[1] = d.err ? d.idx : 0;
	/* An object that does not fit even an empty buffer never will. */
	if (d.err && !skb->len)
		return d.err;
	return skb->len;
}

void rocepath_nl_ntf_stats(u64 *dropped, u32 *limit)
{
	*dropped = atomic64_read(&ntf_dropped);
	*limit = READ_ONCE(max_ntf_bytes);
}

void rocepath_nl_ntf_init(void)
{
	skb_queue_head_init(&ntf_queue);
}

void rocepath_nl_ntf_exit(void)
{
	cancel_work_sync(&ntf_work);
	skb_queue_purge(&ntf_queue);
}
