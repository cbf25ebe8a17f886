// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: table of live RoCEv2 QPs and the number of QPs on each
 * (remote, UDP source port), which the path-set choice reads.
 *
 * Readers (rocepath_qp_lookup_remote(), rocepath_qp_rx_match(), dumps)
 * walk RCU hash chains. Writers are the modify/destroy hooks, which run in
 * the modifying task with preemption disabled (ftrace callbacks and return
 * handlers, qp_probe.c), dumps settling entries whose verdict no return
 * probe saw, and device removal; every write is under one spinlock and
 * allocates with GFP_ATOMIC.
 * Nothing takes the lock from interrupt or softirq context.
 */
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "dev.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"
#include "stats.h"

static unsigned int max_qps = 65536;
module_param(max_qps, uint, 0444);
MODULE_PARM_DESC(max_qps, "Limit on tracked QPs (default 65536)");

/*
 * Records are charged to the uid of the task whose modify made them: one
 * user filling the table would otherwise switch off pinning and congestion
 * control for every other user's QPs (Documentation/module-safety.rst).
 */
static unsigned int max_qps_per_uid = 16384;
module_param(max_qps_per_uid, uint, 0644);
MODULE_PARM_DESC(max_qps_per_uid,
		 "Limit on tracked QPs of one uid, 0 = none but max_qps (default 16384)");

#define QP_HASH_BITS	12
#define USE_HASH_BITS	10
/* Buckets walked per lock hold when a device goes away. */
#define QP_WALK_BATCH	64

/*
 * An entry is PENDING from the modify's entry until the driver's answer,
 * LIVE once the driver accepted it, and DYING from a destroy's entry until
 * its answer. Only LIVE entries are on the lookup chains (by local QPN, by
 * remote), so packets and dumps see only QPs the driver holds; every entry
 * counts towards its port's use, so concurrent modifies spread.
 *
 * The answer comes from a return probe, whose slots are limited and can
 * all be held by other callers. When none was free, the entry is settled
 * from the QP's own state instead (settle_stale(),
 * rocepath_qp_settle_pending()): _ib_modify_qp() sets qp->av_sgid_attr to
 * the modify's GID attribute only once the driver accepted the modify, and
 * a destroy or modify on the same QP never overlaps an earlier one of the
 * same task.
 */
enum qp_state {
	QP_PENDING,
	QP_LIVE,
	QP_DYING,
};

struct rocepath_qp {
	struct hlist_node pnode;	/* by QP pointer, every entry */
	struct hlist_node lnode;	/* by local QPN, LIVE only */
	struct hlist_node rnode;	/* by remote and QPN, LIVE only */
	struct rcu_head rcu;
	struct list_head plist;		/* on pending_list while PENDING */
	/*
	 * Dereferenced only while PENDING, under qp_lock: a destroy's entry
	 * hook settles or drops PENDING entries before the QP can be freed.
	 */
	const struct ib_qp *qp;
	const struct ib_device *ibdev;	/* identity only */
	const struct task_struct *task;	/* identity only: whose call awaits */
	const struct ib_gid_attr *sgid;	/* identity only: the modify's GID */
	bool sgid_ambiguous;		/* the QP had @sgid before the modify */
	u64 id;				/* a QP's address can be reused; this not */
	struct qp_owner *owner;		/* charged; under qp_lock only */
	kuid_t uid;			/* the owner's uid, for RCU readers */
	enum qp_state state;
	struct rocepath_qp_info info;
};

/* The records one uid holds; freed when it holds none. */
struct qp_owner {
	struct hlist_node node;
	kuid_t uid;
	u32 qps;
};

struct sport_use {
	struct hlist_node node;
	struct in6_addr remote;
	u16 sport;
	u32 qps;
};

/* Writers: the hook handlers (preemption off) and device removal. */
static DEFINE_SPINLOCK(qp_lock);
static struct hlist_head qp_by_ptr[1 << QP_HASH_BITS];
static struct hlist_head qp_by_lqpn[1 << QP_HASH_BITS];
static struct hlist_head qp_by_remote[1 << QP_HASH_BITS];
static struct hlist_head use_hash[1 << USE_HASH_BITS];
static LIST_HEAD(pending_list);	/* PENDING entries, few: calls in flight */
static struct hlist_head owner_hash[1 << USE_HASH_BITS];
static atomic64_t qp_owner_refused;
/*
 * Chains keyed by what others choose (peer GID, remote QPN, local QPN,
 * which a user can pick by creating QPs until one fits) use a secret key,
 * so nobody can aim a series of records at one chain.
 */
static siphash_key_t qp_key __read_mostly;
static u32 qp_count;		/* entries in any state */
static u32 qp_live;		/* LIVE entries */
static u32 qp_generation;
static u64 qp_next_id = 1;

static u32 lqpn_hash(u32 lqpn)
{
	return siphash_1u32(lqpn, &qp_key) & ((1 << QP_HASH_BITS) - 1);
}

static u32 remote_hash(const struct in6_addr *remote, u32 rqpn, int bits)
{
	const u32 *w = (__force const u32 *)remote->s6_addr32;

	return siphash_3u64((u64)w[0] << 32 | w[1], (u64)w[2] << 32 | w[3],
			    rqpn, &qp_key) & ((1U << bits) - 1);
}

static struct hlist_head *ptr_head(const struct ib_qp *qp)
{
	return &qp_by_ptr[hash_ptr(qp, QP_HASH_BITS)];
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

static struct qp_owner *owner_find(kuid_t uid)
{
	struct qp_owner *o;

	hlist_for_each_entry(o, &owner_hash[hash_32(__kuid_val(uid),
						    USE_HASH_BITS)], node)
		if (uid_eq(o->uid, uid))
			return o;
	return NULL;
}

/*
 * Charge a new record to @uid: NULL when the uid holds its share already
 * (counted) or no memory is left. @spare is used when the uid holds none.
 */
static struct qp_owner *owner_charge(kuid_t uid, struct qp_owner **spare)
{
	unsigned int cap = READ_ONCE(max_qps_per_uid);
	struct qp_owner *o = owner_find(uid);

	lockdep_assert_held(&qp_lock);
	if (!o) {
		o = *spare;
		if (!o)
			return NULL;
		*spare = NULL;
		o->uid = uid;
		o->qps = 0;
		hlist_add_head(&o->node, &owner_hash[hash_32(__kuid_val(uid),
							     USE_HASH_BITS)]);
	}
	if (cap && o->qps >= cap) {
		atomic64_inc(&qp_owner_refused);
		return NULL;
	}
	o->qps++;
	return o;
}

static void owner_uncharge(struct qp_owner *o)
{
	if (--o->qps == 0) {
		hlist_del(&o->node);
		kfree(o);
	}
}

static void link_live(struct rocepath_qp *e)
{
	lockdep_assert_held(&qp_lock);
	e->state = QP_LIVE;
	hlist_add_head_rcu(&e->lnode, &qp_by_lqpn[lqpn_hash(e->info.lqpn)]);
	hlist_add_head_rcu(&e->rnode,
			   &qp_by_remote[remote_hash(&e->info.remote,
						     e->info.rqpn,
						     QP_HASH_BITS)]);
	qp_live++;
	qp_generation++;
}

static void unlink_live(struct rocepath_qp *e)
{
	lockdep_assert_held(&qp_lock);
	if (e->state != QP_LIVE)
		return;
	hlist_del_init_rcu(&e->lnode);
	hlist_del_init_rcu(&e->rnode);
	qp_live--;
	qp_generation++;
}

static void drop_qp(struct rocepath_qp *e)
{
	lockdep_assert_held(&qp_lock);
	if (e->state == QP_PENDING)
		list_del(&e->plist);
	unlink_live(e);
	hlist_del_rcu(&e->pnode);
	use_dec(&e->info.remote, e->info.sport);
	owner_uncharge(e->owner);
	qp_count--;
	kfree_rcu(e, rcu);
}

void rocepath_qp_notify(u8 cmd, const struct rocepath_qp_info *info)
{
	struct sk_buff *skb;
	void *hdr;

	skb = rocepath_nl_ntf_new(cmd, rocepath_qp_fill_size(), GFP_ATOMIC,
				  &hdr);
	if (!skb)
		return;
	if (rocepath_qp_fill(skb, info)) {
		rocepath_nl_ntf_drop(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rocepath_nl_notify(skb, GFP_ATOMIC);
}

/* The entry of @qp in @state that @task's call left, if any. */
static struct rocepath_qp *find_owned(const struct ib_qp *qp,
				      const struct task_struct *task,
				      enum qp_state state)
{
	struct rocepath_qp *e;

	hlist_for_each_entry(e, ptr_head(qp), pnode)
		if (e->qp == qp && e->task == task && e->state == state)
			return e;
	return NULL;
}

/* The driver accepted @e's modify: it replaces the QP's earlier path. */
static void make_live(struct rocepath_qp *e)
{
	struct rocepath_qp *old;
	struct hlist_node *tmp;

	lockdep_assert_held(&qp_lock);
	hlist_for_each_entry_safe(old, tmp, ptr_head(e->qp), pnode) {
		if (old->qp != e->qp || old == e || old->state != QP_LIVE)
			continue;
		rocepath_qp_notify(ROCEPATH_CMD_QP_DEL_NTF, &old->info);
		drop_qp(old);
	}
	list_del(&e->plist);
	link_live(e);
	rocepath_qp_notify(ROCEPATH_CMD_QP_ADD_NTF, &e->info);
}

/* The driver rejected @e's modify; it was never announced. */
static void roll_back(struct rocepath_qp *e)
{
	lockdep_assert_held(&qp_lock);
	drop_qp(e);
	rocepath_stat_inc(ROCEPATH_STAT_QPS_ROLLED_BACK);
}

/*
 * Settle what earlier calls on @qp left without a verdict, from the QP's
 * state; @qp is live (a hook of its own is running). PENDING entries of
 * @task (any task when NULL: a destroy excludes other calls) are over:
 * accepted iff the QP now has their GID, which is the best guess too when
 * it had that GID before. A DYING entry here is a destroy that is over;
 * whether it failed or the memory is a new QP's, the record goes.
 */
static void settle_stale(const struct ib_qp *qp, const struct task_struct *task)
{
	struct rocepath_qp *e;
	struct hlist_node *tmp;

	lockdep_assert_held(&qp_lock);
	hlist_for_each_entry_safe(e, tmp, ptr_head(qp), pnode) {
		if (e->qp != qp)
			continue;
		if (e->state == QP_PENDING && (!task || e->task == task)) {
			if (READ_ONCE(qp->av_sgid_attr) == e->sgid)
				make_live(e);
			else
				roll_back(e);
		} else if (e->state == QP_DYING) {
			rocepath_qp_notify(ROCEPATH_CMD_QP_DEL_NTF, &e->info);
			drop_qp(e);
		} else {
			continue;
		}
		rocepath_stat_inc(ROCEPATH_STAT_VERDICTS_INFERRED);
	}
}

/*
 * Before a dump: make LIVE the PENDING entries whose QP already shows the
 * modify's GID and did not have it before, so unambiguously accepted. The
 * rest wait for their return probe or the QP's next modify or destroy.
 */
void rocepath_qp_settle_pending(void)
{
	struct rocepath_qp *e, *tmp;

	spin_lock(&qp_lock);
	list_for_each_entry_safe(e, tmp, &pending_list, plist) {
		if (e->sgid_ambiguous || READ_ONCE(e->qp->av_sgid_attr) != e->sgid)
			continue;
		make_live(e);
		rocepath_stat_inc(ROCEPATH_STAT_VERDICTS_INFERRED);
	}
	spin_unlock(&qp_lock);
}

/**
 * rocepath_qp_begin - a modify gives a QP its path: choose the port
 * @qp: the QP being modified (live: called from the modify's entry hook)
 * @info: the QP's key fields; sport is set to the default port on entry
 *	and to the chosen port on return
 * @sports: ports of the matching rule, ascending, or NULL
 * @nsports: number of @sports
 * @sgid: the GID attribute the modify gives the QP (compared, not held)
 *
 * Records a PENDING entry, owned by the calling task, that
 * rocepath_qp_end() makes LIVE or drops once the driver has answered. The
 * choice and the count update happen under one lock, so concurrent
 * modifies spread evenly. Runs in the modifying task's context: the record
 * is charged to that task's uid. Returns false when the QP could not be
 * tracked (table full, the uid's share full, no memory).
 */
bool rocepath_qp_begin(const struct ib_qp *qp, struct rocepath_qp_info *info,
		       const u16 *sports, unsigned int nsports,
		       const struct ib_gid_attr *sgid)
{
	kuid_t uid = current_fsuid();
	struct qp_owner *spare;
	struct rocepath_qp *e;
	u32 best = U32_MAX;
	bool tracked = false;
	unsigned int i;

	e = kmalloc(sizeof(*e), GFP_ATOMIC);
	spare = kmalloc(sizeof(*spare), GFP_ATOMIC);

	spin_lock(&qp_lock);
	settle_stale(qp, current);
	for (i = 0; i < nsports; i++) {
		u32 n = use_count(&info->remote, sports[i]);

		if (n < best) {
			best = n;
			info->sport = sports[i];
		}
	}
	info->pinned = nsports > 0;

	if (e && qp_count < max_qps) {
		e->owner = owner_charge(uid, &spare);
		if (!e->owner)
			goto unlock;
		e->uid = uid;
		e->qp = qp;
		e->ibdev = qp->device;
		e->task = current;
		e->sgid = sgid;
		e->sgid_ambiguous = READ_ONCE(qp->av_sgid_attr) == sgid;
		e->id = qp_next_id++;
		e->state = QP_PENDING;
		e->info = *info;
		INIT_HLIST_NODE(&e->lnode);
		INIT_HLIST_NODE(&e->rnode);
		hlist_add_head_rcu(&e->pnode, ptr_head(qp));
		list_add_tail(&e->plist, &pending_list);
		use_inc(&info->remote, info->sport);
		qp_count++;
		tracked = true;
		e = NULL;
	}
unlock:
	spin_unlock(&qp_lock);

	kfree(spare);
	kfree(e);
	return tracked;
}

/**
 * rocepath_qp_end - the driver answered a modify of @qp by this task
 * @qp: the QP
 * @ok: the driver accepted the modify
 *
 * Settles the PENDING entry rocepath_qp_begin() left for this call, if it
 * is still there, and announces what changed.
 */
void rocepath_qp_end(const struct ib_qp *qp, bool ok)
{
	struct rocepath_qp *e;

	spin_lock(&qp_lock);
	e = find_owned(qp, current, QP_PENDING);
	if (e) {
		if (ok)
			make_live(e);
		else
			roll_back(e);
	}
	spin_unlock(&qp_lock);
}

/**
 * rocepath_qp_destroy_begin - a destroy of @qp starts (its entry hook)
 * @qp: the QP, live until the driver has freed it
 *
 * Earlier calls' entries are settled first. The QP's LIVE entry leaves the
 * lookup chains (the QP sends nothing more) but is kept, owned by this
 * task, until the driver answers.
 *
 * Matched by address alone: @qp is live here, so a LIVE entry at its
 * address is either its own or one left by a QP whose destroy no hook saw
 * and whose memory @qp now occupies. Either way it must go, and nothing
 * else would ever remove the second kind.
 */
void rocepath_qp_destroy_begin(const struct ib_qp *qp)
{
	struct rocepath_qp *e;

	spin_lock(&qp_lock);
	settle_stale(qp, NULL);
	hlist_for_each_entry(e, ptr_head(qp), pnode) {
		if (e->qp == qp && e->state == QP_LIVE) {
			unlink_live(e);
			e->state = QP_DYING;
			e->task = current;
			break;
		}
	}
	spin_unlock(&qp_lock);
}

/**
 * rocepath_qp_destroy_end - the driver answered this task's destroy
 * @qp: the QP (its memory may already be reused: only the task matches)
 * @ok: the QP is gone
 *
 * Removes and announces the entry, or makes it LIVE again when the driver
 * refused the destroy.
 */
void rocepath_qp_destroy_end(const struct ib_qp *qp, bool ok)
{
	struct rocepath_qp *e;

	spin_lock(&qp_lock);
	e = find_owned(qp, current, QP_DYING);
	if (e) {
		if (ok) {
			rocepath_qp_notify(ROCEPATH_CMD_QP_DEL_NTF, &e->info);
			drop_qp(e);
		} else {
			link_live(e);
		}
	}
	spin_unlock(&qp_lock);
}

/*
 * Drop every entry of a device that is going away (all with NULL), a few
 * buckets per lock hold: process context, so others get the lock between.
 */
void rocepath_qp_del_device(const struct ib_device *ibdev)
{
	struct hlist_node *tmp;
	struct rocepath_qp *e;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(qp_by_ptr); i += QP_WALK_BATCH) {
		spin_lock(&qp_lock);
		for (j = i; j < i + QP_WALK_BATCH && j < ARRAY_SIZE(qp_by_ptr); j++)
			hlist_for_each_entry_safe(e, tmp, &qp_by_ptr[j], pnode)
				if (!ibdev || e->ibdev == ibdev)
					drop_qp(e);
		spin_unlock(&qp_lock);
		cond_resched();
	}
}

u32 rocepath_qp_sport_count(const struct in6_addr *remote, u16 sport)
{
	u32 n;

	spin_lock(&qp_lock);
	n = use_count(remote, sport);
	spin_unlock(&qp_lock);
	return n;
}

void rocepath_qp_get_stats(struct rocepath_qp_stats *s)
{
	s->qps = READ_ONCE(qp_live);
	s->qps_max = max_qps;
	s->qps_per_uid_max = READ_ONCE(max_qps_per_uid);
	s->qps_owner_refused = atomic64_read(&qp_owner_refused);
}

/* Changes whenever a QP becomes live or stops being live. */
u32 rocepath_qp_generation(void)
{
	return READ_ONCE(qp_generation);
}

static bool ndev_match(const struct rocepath_qp *e,
		       const struct net_device *ndev)
{
	return !ndev || e->info.ifindex == ndev->ifindex;
}

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

bool rocepath_qp_rx_match(const struct net_device *ndev, u32 lqpn,
			  const struct in6_addr *remote,
			  const struct in6_addr *local, u16 *sport, u32 *rqpn)
{
	struct rocepath_qp *e;
	bool found = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, &qp_by_lqpn[lqpn_hash(lqpn)], lnode) {
		if (e->info.lqpn == lqpn && e->info.ifindex == ndev->ifindex &&
		    ipv6_addr_equal(&e->info.remote, remote) &&
		    (ipv6_addr_any(&e->info.local) ||
		     ipv6_addr_equal(&e->info.local, local))) {
			*sport = e->info.sport;
			*rqpn = e->info.rqpn;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * rocepath_qp_owned - does @uid own the live QP @lqpn talking to @remote
 * @lqpn: local QP number
 * @remote: the QP's remote address, IPv4 as IPv4-mapped IPv6
 * @uid: the user asking
 *
 * For dumps that show a user without CAP_NET_ADMIN only its own QPs' flows.
 * Caller holds the RCU read side.
 */
bool rocepath_qp_owned(u32 lqpn, const struct in6_addr *remote, kuid_t uid)
{
	struct rocepath_qp *e;

	hlist_for_each_entry_rcu(e, &qp_by_lqpn[lqpn_hash(lqpn)], lnode)
		if (e->info.lqpn == lqpn &&
		    ipv6_addr_equal(&e->info.remote, remote) &&
		    uid_eq(e->uid, uid))
			return true;
	return false;
}

static int put_addr(struct sk_buff *skb, int type, const struct in6_addr *a,
		    bool v4)
{
	if (v4)
		return nla_put(skb, type, 4, &a->s6_addr32[3]);
	return nla_put(skb, type, 16, a);
}

/*
 * The QP's device name as it is now (renames are followed); the one it had
 * when recorded if the device is already gone from the registry.
 */
static void qp_dev_name(const struct rocepath_qp_info *info, char *buf)
{
	if (!rocepath_dev_index_name(info->dev_index, buf, IB_DEVICE_NAME_MAX))
		strscpy(buf, info->ibdev, IB_DEVICE_NAME_MAX);
}

/* The key of the rule that pinned the QP, in the pin attribute set. */
static int put_rule(struct sk_buff *skb, const struct rocepath_qp_info *info,
		    const char *ibdev)
{
	const struct rocepath_qp_rule *r = &info->rule;
	struct nlattr *nest;

	if (!info->pinned)
		return 0;
	nest = nla_nest_start(skb, ROCEPATH_A_QP_RULE);
	if (!nest)
		return -EMSGSIZE;
	if ((r->dev && nla_put_string(skb, ROCEPATH_A_PIN_IBDEV, ibdev)) ||
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
	char ibdev[IB_DEVICE_NAME_MAX];
	struct nlattr *nest;

	qp_dev_name(info, ibdev);
	nest = nla_nest_start(skb, ROCEPATH_A_QP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, ROCEPATH_A_QP_IBDEV, ibdev) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_PORT, info->port) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_LQPN, info->lqpn) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_RQPN, info->rqpn) ||
	    put_addr(skb, ROCEPATH_A_QP_REMOTE, &info->remote,
		     info->remote_v4) ||
	    nla_put_u16(skb, ROCEPATH_A_QP_SPORT, info->sport) ||
	    nla_put_u8(skb, ROCEPATH_A_QP_PINNED, info->pinned) ||
	    nla_put_u32(skb, ROCEPATH_A_QP_TYPE, info->qp_type) ||
	    nla_put_u16(skb, ROCEPATH_A_QP_DEFAULT_SPORT, info->default_sport) ||
	    put_rule(skb, info, ibdev)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The most rocepath_qp_fill() puts: sizes notifications exactly. */
size_t rocepath_qp_fill_size(void)
{
	size_t rule = nla_total_size(0) +			/* RULE */
		      nla_total_size(IB_DEVICE_NAME_MAX) +	/* IBDEV */
		      nla_total_size(sizeof(struct in6_addr)) +	/* REMOTE */
		      2 * nla_total_size(sizeof(u32));		/* RQPN, LQPN */

	return nla_total_size(0) +				/* QP */
	       nla_total_size(IB_DEVICE_NAME_MAX) +		/* IBDEV */
	       3 * nla_total_size(sizeof(u32)) +		/* PORT, LQPN, RQPN */
	       nla_total_size(sizeof(struct in6_addr)) +	/* REMOTE */
	       nla_total_size(sizeof(u16)) +			/* SPORT */
	       nla_total_size(sizeof(u8)) +			/* PINNED */
	       nla_total_size(sizeof(u32)) +			/* TYPE */
	       nla_total_size(sizeof(u16)) +			/* DEFAULT_SPORT */
	       rule;
}

int rocepath_qp_dump_fill(struct sk_buff *skb, const void *obj,
			  const struct rocepath_dump *d)
{
	const struct rocepath_qp *e = obj;
	char ibdev[IB_DEVICE_NAME_MAX];

	if (!d->all && !uid_eq(e->uid, d->uid))
		return ROCEPATH_DUMP_SKIP;
	qp_dev_name(&e->info, ibdev);
	if (d->ibdev && strcmp(d->ibdev, ibdev))
		return ROCEPATH_DUMP_SKIP;
	return rocepath_qp_fill(skb, &e->info);
}

bool rocepath_qp_dump_walk(struct rocepath_dump *d, unsigned long b)
{
	struct rocepath_qp *e;

	if (b >= ARRAY_SIZE(qp_by_lqpn))
		return false;
	hlist_for_each_entry_rcu(e, &qp_by_lqpn[b], lnode)
		if (!rocepath_dump_obj(d, e))
			break;
	return true;
}

int rocepath_qp_init(void)
{
	get_random_bytes(&qp_key, sizeof(qp_key));
	return 0;
}

void rocepath_qp_exit(void)
{
	struct hlist_node *tmp;
	struct sport_use *u;
	unsigned int i;

	rocepath_qp_del_device(NULL);
	/* Every entry took a port use; none may be left. */
	for (i = 0; i < ARRAY_SIZE(use_hash); i++)
		hlist_for_each_entry_safe(u, tmp, &use_hash[i], node) {
			hlist_del(&u->node);
			kfree(u);
		}
}
