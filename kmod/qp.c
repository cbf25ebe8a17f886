// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: table of live RoCEv2 QPs and the number of live QPs on each
 * (remote, UDP source port), which the path-set choice reads.
 *
 * Readers (rocepath_qp_lookup*, dumps) walk RCU hash chains. Writers are
 * the modify/destroy hooks, which run with preemption (and possibly
 * interrupts) disabled, so every write is under one irq-safe spinlock and
 * allocates with GFP_ATOMIC.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>

#include "netlink.h"
#include "pin.h"
#include "qp.h"

static unsigned int max_qps = 65536;
module_param(max_qps, uint, 0444);
MODULE_PARM_DESC(max_qps, "Limit on tracked QPs (default 65536)");

#define QP_HASH_BITS	12
#define USE_HASH_BITS	10

struct rocepath_qp {
	struct hlist_node lnode;
	struct hlist_node rnode;
	struct rcu_head rcu;
	const struct ib_qp *qp;		/* identity only, never dereferenced */
	const struct ib_device *ibdev;	/* identity only */
	struct rocepath_qp_info info;
};

struct sport_use {
	struct hlist_node node;
	struct in6_addr remote;
	u16 sport;
	u32 qps;
};

static DEFINE_SPINLOCK(qp_lock);
static struct hlist_head qp_by_lqpn[1 << QP_HASH_BITS];
static struct hlist_head qp_by_remote[1 << QP_HASH_BITS];
static struct hlist_head use_hash[1 << USE_HASH_BITS];
static u32 qp_count;
static u32 qp_generation;

static u32 lqpn_hash(u32 lqpn)
{
	return hash_32(lqpn, QP_HASH_BITS);
}

static u32 remote_hash(const struct in6_addr *remote, u32 rqpn, int bits)
{
	return hash_32(jhash2((__force const u32 *)remote->s6_addr32, 4, rqpn),
		       bits);
}

static struct sport_use *use_find(const struct in6_addr *remote, u16 sport)
{
	struct hlist_head *head;
	struct sport_use *u;

	head = &use_hash[remote_hash(remote, sport, USE_HASH_BITS)];
	hlist_for_each_entry(u, head, node)
		if (u->sport == sport && ipv6_addr_equal(&u->remote, remote))
			return u;
	return NULL;
}

static u32 use_count(const struct in6_addr *remote, u16 sport)
{
	struct sport_use *u = use_find(remote, sport);

	return u ? u->qps : 0;
}

static void use_inc(const struct in6_addr *remote, u16 sport)
{
	struct sport_use *u = use_find(remote, sport);

	if (!u) {
		u = kzalloc(sizeof(*u), GFP_ATOMIC);
		if (!u)
			return;
		u->remote = *remote;
		u->sport = sport;
		hlist_add_head(&u->node,
			       &use_hash[remote_hash(remote, sport,
						     USE_HASH_BITS)]);
	}
	u->qps++;
}

static void use_dec(const struct in6_addr *remote, u16 sport)
{
	struct sport_use *u = use_find(remote, sport);

	if (!u)
		return;
	if (--u->qps == 0) {
		hlist_del(&u->node);
		kfree(u);
	}
}

static void unlink_qp(struct rocepath_qp *e)
{
	lockdep_assert_held(&qp_lock);
	hlist_del_rcu(&e->lnode);
	hlist_del_rcu(&e->rnode);
	use_dec(&e->info.remote, e->info.sport);
	qp_count--;
	qp_generation++;
	kfree_rcu(e, rcu);
}

static struct rocepath_qp *find_qp(const struct ib_qp *qp, u32 lqpn)
{
	struct rocepath_qp *e;

	hlist_for_each_entry(e, &qp_by_lqpn[lqpn_hash(lqpn)], lnode)
		if (e->qp == qp)
			return e;
	return NULL;
}

/**
 * rocepath_qp_add - record a QP and choose its port
 * @qp: the QP being modified
 * @info: the QP's key fields; sport is set to the default port on entry
 *	and to the chosen port on return
 * @sports: ports of the matching rule, ascending, or NULL
 * @nsports: number of @sports
 * @tracked: set to whether the QP entered the table (false when full)
 *
 * The choice and the count update happen under one lock, so concurrent
 * modifies spread evenly. Returns the chosen port.
 */
u16 rocepath_qp_add(const struct ib_qp *qp, struct rocepath_qp_info *info,
		    const u16 *sports, unsigned int nsports, bool *tracked)
{
	struct rocepath_qp *e, *old;
	unsigned long flags;
	unsigned int i;
	u32 best = U32_MAX;

	e = kmalloc(sizeof(*e), GFP_ATOMIC);

	spin_lock_irqsave(&qp_lock, flags);
	old = find_qp(qp, info->lqpn);
	if (old)
		unlink_qp(old);

	for (i = 0; i < nsports; i++) {
		u32 n = use_count(&info->remote, sports[i]);

		if (n < best) {
			best = n;
			info->sport = sports[i];
		}
	}
	info->pinned = nsports > 0;

	*tracked = e && qp_count < max_qps;
	if (*tracked) {
		e->qp = qp;
		e->ibdev = qp->device;
		e->info = *info;
		hlist_add_head_rcu(&e->lnode, &qp_by_lqpn[lqpn_hash(info->lqpn)]);
		hlist_add_head_rcu(&e->rnode,
				   &qp_by_remote[remote_hash(&info->remote,
							     info->rqpn,
							     QP_HASH_BITS)]);
		use_inc(&info->remote, info->sport);
		qp_count++;
		qp_generation++;
		e = NULL;
	}
	spin_unlock_irqrestore(&qp_lock, flags);

	kfree(e);
	return info->sport;
}

/**
 * rocepath_qp_del - forget a QP that is being destroyed
 * @qp: the QP
 * @info: filled with the entry removed, for the notification
 *
 * Returns true when the QP was tracked.
 */
bool rocepath_qp_del(const struct ib_qp *qp, struct rocepath_qp_info *info)
{
	struct rocepath_qp *e;
	unsigned long flags;

	spin_lock_irqsave(&qp_lock, flags);
	e = find_qp(qp, qp->qp_num);
	if (e) {
		*info = e->info;
		unlink_qp(e);
	}
	spin_unlock_irqrestore(&qp_lock, flags);
	return e;
}

/* Drop every entry of a device that is going away. */
void rocepath_qp_del_device(const struct ib_device *ibdev)
{
	struct hlist_node *tmp;
	struct rocepath_qp *e;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&qp_lock, flags);
	for (i = 0; i < ARRAY_SIZE(qp_by_lqpn); i++)
		hlist_for_each_entry_safe(e, tmp, &qp_by_lqpn[i], lnode)
			if (!ibdev || e->ibdev == ibdev)
				unlink_qp(e);
	spin_unlock_irqrestore(&qp_lock, flags);
}

u32 rocepath_qp_sport_count(const struct in6_addr *remote, u16 sport)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&qp_lock, flags);
	n = use_count(remote, sport);
	spin_unlock_irqrestore(&qp_lock, flags);
	return n;
}

void rocepath_qp_get_stats(struct rocepath_qp_stats *s)
{
	s->qps = READ_ONCE(qp_count);
	s->qps_max = max_qps;
}

static bool ndev_match(const struct rocepath_qp *e,
		       const struct net_device *ndev)
{
	return !ndev || e->info.ifindex == ndev->ifindex;
}

bool rocepath_qp_lookup(const struct net_device *ndev, u32 lqpn,
			struct rocepath_qp_info *info)
{
	struct rocepath_qp *e;
	bool found = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, &qp_by_lqpn[lqpn_hash(lqpn)], lnode) {
		if (e->info.lqpn == lqpn && ndev_match(e, ndev)) {
			*info = e->info;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(rocepath_qp_lookup);

bool rocepath_qp_lookup_remote(const struct net_device *ndev,
			       const struct in6_addr *remote, u32 rqpn,
			       struct rocepath_qp_info *info)
{
	struct hlist_head *head;
	struct rocepath_qp *e;
	bool found = false;

	head = &qp_by_remote[remote_hash(remote, rqpn, QP_HASH_BITS)];
	rcu_read_lock();
	hlist_for_each_entry_rcu(e, head, rnode) {
		if (e->info.rqpn == rqpn && ndev_match(e, ndev) &&
		    ipv6_addr_equal(&e->info.remote, remote)) {
			*info = e->info;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(rocepath_qp_lookup_remote);

bool rocepath_qp_rx_match(const struct net_device *ndev, u32 lqpn,
			  const struct in6_addr *remote, u16 *sport, u32 *rqpn)
{
	struct rocepath_qp *e;
	bool found = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, &qp_by_lqpn[lqpn_hash(lqpn)], lnode) {
		if (e->info.lqpn == lqpn && e->info.ifindex == ndev->ifindex &&
		    ipv6_addr_equal(&e->info.remote, remote)) {
			*sport = e->info.sport;
			*rqpn = e->info.rqpn;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int put_addr(struct sk_buff *skb, int type, const struct in6_addr *a,
		    bool v4)
{
	if (v4)
		return nla_put(skb, type, 4, &a->s6_addr32[3]);
	return nla_put(skb, type, 16, a);
}

/* The key of the rule that pinned the QP, in the pin attribute set. */
static int put_rule(struct sk_buff *skb, const struct rocepath_qp_info *info)
{
	const struct rocepath_qp_rule *r = &info->rule;
	struct nlattr *nest;

	if (!info->pinned)
		return 0;
	nest = nla_nest_start(skb, ROCEPATH_A_QP_RULE);
	if (!nest)
		return -EMSGSIZE;
	if ((r->dev && nla_put_string(skb, ROCEPATH_A_PIN_IBDEV, info->ibdev)) ||
	    put_addr(skb, ROCEPATH_A_PIN_REMOTE, &info->remote, r->remote_v4) ||
	    (r->rqpn != ROCEPATH_ANY &&
	     nla_put_u32(skb, ROCEPATH_A_PIN_RQPN, r->rqpn)) ||
	    (r->lqpn != ROCEPATH_ANY &&
	     nla_put_u32(skb, ROCEPATH_A_PIN_LQPN, r->lqpn))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int rocepath_qp_fill(struct sk_buff *skb, const struct rocepath_qp_info *info)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, ROCEPATH_A_QP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, ROCEPATH_A_QP_IBDEV, info->ibdev) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_PORT, info->port) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_LQPN, info->lqpn) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_RQPN, info->rqpn) ||
	    put_addr(skb, ROCEPATH_A_QP_REMOTE, &info->remote,
		     info->remote_v4) ||
	    nla_put_u16(skb, ROCEPATH_A_QP_SPORT, info->sport) ||
	    nla_put_u8(skb, ROCEPATH_A_QP_PINNED, info->pinned) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_TYPE, info->qp_type) ||
	    nla_put_u16(skb, ROCEPATH_A_QP_DEFAULT_SPORT, info->default_sport) ||
	    put_rule(skb, info)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One message per QP. cb->args[0] is the bucket, cb->args[1] the number
 * of entries of that bucket already sent; cb->seq the table generation,
 * so a dump that races a create or destroy is flagged NLM_F_DUMP_INTR.
 */
int rocepath_qp_dump(struct sk_buff *skb, struct netlink_callback *cb,
		     const char *ibdev)
{
	unsigned long bucket = cb->args[0], skip = cb->args[1], idx;
	struct rocepath_qp *e;
	int err = 0;

	rcu_read_lock();
	cb->seq = READ_ONCE(qp_generation) + 1;
	for (; bucket < ARRAY_SIZE(qp_by_lqpn); bucket++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(e, &qp_by_lqpn[bucket], lnode) {
			void *hdr;

			if (idx++ < skip)
				continue;
			if (ibdev && strcmp(ibdev, e->info.ibdev))
				continue;
			hdr = rocepath_dump_put(skb, cb, ROCEPATH_CMD_QP_GET);
			if (!hdr) {
				err = -EMSGSIZE;
				goto out;
			}
			if (rocepath_qp_fill(skb, &e->info)) {
				genlmsg_cancel(skb, hdr);
				err = -EMSGSIZE;
				goto out;
			}
			genlmsg_end(skb, hdr);
		}
	}
out:
	rcu_read_unlock();
	cb->args[0] = bucket;
	cb->args[1] = err ? idx - 1 : 0;
	if (err && skb->len)
		return skb->len;
	return err;
}

int rocepath_qp_init(void)
{
	return 0;
}

void rocepath_qp_exit(void)
{
	struct hlist_node *tmp;
	struct sport_use *u;
	unsigned int i;

	rocepath_qp_del_device(NULL);
	for (i = 0; i < ARRAY_SIZE(use_hash); i++)
		hlist_for_each_entry_safe(u, tmp, &use_hash[i], node) {
			hlist_del(&u->node);
			kfree(u);
		}
}
