// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the RoCEv2 flow table.
 *
 * One record per QP direction pair, keyed by (local, remote, our UDP source
 * port, remote QPN). Lookups are RCU and lock-free; counters are per CPU,
 * except an rx-only record's, which are plain atomics allocated with it.
 * Inserting a new flow (first packet) and removing flows (aging, eviction,
 * reset, device removal) take rocepath_flow_lock. The table has a fixed
 * number of buckets and holds at most max_flows records: when full, the
 * least recently used record among a bounded scan is evicted, as
 * conntrack's early drop does. Rx-only records (packets that match no
 * live QP, so anyone can make them) are made only while the table has
 * room and are the first victims: they never push out another record.
 */
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/inet_ecn.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "flow.h"
#include "netlink.h"
#include "qp.h"

static unsigned int max_flows = 4096;
module_param(max_flows, uint, 0444);
MODULE_PARM_DESC(max_flows, "Limit on tracked RoCEv2 flows (default 4096)");

static unsigned int flow_idle_secs = 300;
module_param(flow_idle_secs, uint, 0644);
MODULE_PARM_DESC(flow_idle_secs, "Forget flows idle this long, 0 = never (default 300)");

#define FLOW_EVICT_SCAN	64	/* records looked at to find an eviction victim */
#define FLOW_MAX_LIMIT	(1024U * 1024U)

static struct hlist_head *flow_buckets;
static unsigned int flow_nbuckets;
static u32 flow_seed;
static DEFINE_SPINLOCK(rocepath_flow_lock);
static unsigned int flow_count;		/* under rocepath_flow_lock */
static unsigned int flow_evict_cursor;	/* under rocepath_flow_lock */
static atomic64_t flow_evictions;
static atomic64_t flow_alloc_failures;
static atomic64_t flow_rx_only_refused;
static atomic64_t flow_cnp_tx;
static atomic64_t flow_cnp_rx;
static u32 flow_generation;		/* under rocepath_flow_lock */
static struct delayed_work flow_aging;

static u32 flow_hash(const struct rocepath_flow_key *key)
{
	u32 h;

	/*
	 * Every packet pays for this hash. The words an IPv4 key holds in
	 * its mapped addresses never vary, so leave them out; IPv6 keys
	 * hash whole.
	 */
	if (key->v4) {
		u32 w[4] = {
			(__force u32)key->local.s6_addr32[3],
			(__force u32)key->remote.s6_addr32[3],
			key->dqpn,
			(u32)key->sport << 16 | key->rx_only,
		};

		h = jhash2(w, ARRAY_SIZE(w), flow_seed);
	} else {
		h = jhash2((const u32 *)key, sizeof(*key) / sizeof(u32),
			   flow_seed);
	}
	return h & (flow_nbuckets - 1);
}

static struct rocepath_flow *flow_find(const struct rocepath_flow_key *key,
				       u32 hash)
{
	struct rocepath_flow *f;

	hlist_for_each_entry_rcu(f, &flow_buckets[hash], node)
		if (!memcmp(&f->key, key, sizeof(*key)))
			return f;
	return NULL;
}

static void flow_free_rcu(struct rcu_head *head)
{
	struct rocepath_flow *f = container_of(head, struct rocepath_flow, rcu);

	free_percpu(f->pc);
	kfree(f->rpt);
	kfree(f);
}

/* Unlink under rocepath_flow_lock; freed after a grace period. */
static void flow_unlink(struct rocepath_flow *f)
{
	hlist_del_rcu(&f->node);
	flow_count--;
	WRITE_ONCE(flow_generation, flow_generation + 1);
	call_rcu(&f->rcu, flow_free_rcu);
}

/*
 * Eviction order: rx-only records (anyone can make them), then records of
 * no known QP, then records of QPs the QP table knows.
 */
static unsigned int flow_evict_rank(const struct rocepath_flow *f)
{
	if (f->key.rx_only)
		return 0;
	return READ_ONCE(f->lqpn) == ROCEPATH_QPN_NONE ? 1 : 2;
}

/*
 * Evict one record of a bounded scan, the lowest ranked and among those
 * the least recently seen; under the lock.
 */
static bool flow_evict_one(void)
{
	struct rocepath_flow *f, *victim = NULL;
	unsigned int seen = 0, i, rank, vrank = 0;

	for (i = 0; i < flow_nbuckets && seen < FLOW_EVICT_SCAN; i++) {
		unsigned int b = (flow_evict_cursor + i) & (flow_nbuckets - 1);

		hlist_for_each_entry(f, &flow_buckets[b], node) {
			seen++;
			rank = flow_evict_rank(f);
			if (!victim || rank < vrank ||
			    (rank == vrank &&
			     time_before(READ_ONCE(f->last_seen),
					 READ_ONCE(victim->last_seen)))) {
				victim = f;
				vrank = rank;
			}
		}
	}
	flow_evict_cursor += i;
	if (!victim)
		return false;
	flow_unlink(victim);
	atomic64_inc(&flow_evictions);
	return true;
}

/* The DCQCN entry of the soft-RoCE device on @ndev; RCU held by caller. */
static struct rocepath_dcqcn_dev *flow_dev(struct net_device *ndev)
{
	struct rocepath_dcqcn_dev *dd;
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NULL;
	dd = rocepath_dev_dcqcn_rcu(ibdev);
	ib_device_put(ibdev);
	return dd;
}

/*
 * A new record: per-CPU counters for a QP's flow, plain ones in the same
 * allocation for an rx-only flow (64 bytes, not 64 per possible CPU).
 */
static struct rocepath_flow *flow_alloc(bool rx_only)
{
	struct rocepath_flow *f;

	if (rx_only) {
		f = kzalloc(sizeof(*f) + sizeof(*f->plain), GFP_ATOMIC);
		if (f)
			f->plain = (struct rocepath_flow_plain *)(f + 1);
		return f;
	}
	f = kzalloc(sizeof(*f), GFP_ATOMIC);
	if (!f)
		return NULL;
	f->pc = alloc_percpu_gfp(struct rocepath_flow_pcpu, GFP_ATOMIC);
	if (!f->pc) {
		kfree(f);
		return NULL;
	}
	return f;
}

/**
 * rocepath_flow_get - find or create the record of a flow
 * @key: the flow key
 * @ndev: net device the packet uses (selects the soft-RoCE device)
 * @lqpn: local QPN when known, else ROCEPATH_QPN_NONE
 *
 * Packet path: RCU read side held, bottom halves disabled. Returns NULL
 * when @ndev carries no soft-RoCE device or no record could be made. A
 * new rx-only record (@key->rx_only) is made only while the table has
 * room: it never evicts another record.
 */
struct rocepath_flow *rocepath_flow_get(const struct rocepath_flow_key *key,
					struct net_device *ndev, u32 lqpn)
{
	struct rocepath_flow *f, *old;
	struct rocepath_dcqcn_dev *dd;
	u32 hash = flow_hash(key);

	f = flow_find(key, hash);
	if (likely(f)) {
		if (time_after(jiffies, READ_ONCE(f->last_seen)))
			WRITE_ONCE(f->last_seen, jiffies);
		if (unlikely(lqpn != ROCEPATH_QPN_NONE && f->lqpn != lqpn))
			WRITE_ONCE(f->lqpn, lqpn);
		return f;
	}

	dd = flow_dev(ndev);
	if (!dd)
		return NULL;
	/* cheap early refusal: forged traffic at a full table allocates nothing */
	if (key->rx_only && READ_ONCE(flow_count) >= max_flows)
		goto full;
	f = flow_alloc(key->rx_only);
	if (!f)
		goto fail;
	f->key = *key;
	f->lqpn = lqpn;
	/* differs from the table's generation: the first packet looks */
	f->qp_miss_gen = rocepath_qp_generation() - 1;
	f->dd = dd;
	f->last_seen = jiffies;

	spin_lock(&rocepath_flow_lock);
	old = flow_find(key, hash);
	if (old) {
		spin_unlock(&rocepath_flow_lock);
		free_percpu(f->pc);
		kfree(f);
		return old;
	}
	/* rx-only records never evict */
	if (flow_count >= max_flows &&
	    (key->rx_only || !flow_evict_one())) {
		spin_unlock(&rocepath_flow_lock);
		free_percpu(f->pc);
		kfree(f);
		goto full;
	}
	hlist_add_head_rcu(&f->node, &flow_buckets[hash]);
	flow_count++;
	WRITE_ONCE(flow_generation, flow_generation + 1);
	spin_unlock(&rocepath_flow_lock);
	return f;

full:
	if (key->rx_only)
		atomic64_inc(&flow_rx_only_refused);
fail:
	atomic64_inc(&flow_alloc_failures);
	return NULL;
}

/* Index of each counter in struct rocepath_flow_plain and in dumps. */
enum {
	FC_TX_PACKETS, FC_TX_BYTES, FC_RX_PACKETS, FC_RX_BYTES,
	FC_RX_ECT, FC_RX_CE, FC_CNP_TX, FC_CNP_RX, FC_MAX,
};

static void flow_count_plain(struct rocepath_flow_plain *pl,
			     enum rocepath_flow_ctr c, unsigned int len, u8 ecn)
{
	switch (c) {
	case RP_FLOW_TX:
		atomic64_inc(&pl->v[FC_TX_PACKETS]);
		atomic64_add(len, &pl->v[FC_TX_BYTES]);
		break;
	case RP_FLOW_RX:
		atomic64_inc(&pl->v[FC_RX_PACKETS]);
		atomic64_add(len, &pl->v[FC_RX_BYTES]);
		if (ecn == INET_ECN_CE)
			atomic64_inc(&pl->v[FC_RX_CE]);
		else if (ecn != INET_ECN_NOT_ECT)
			atomic64_inc(&pl->v[FC_RX_ECT]);
		break;
	case RP_FLOW_CNP_TX:
		atomic64_inc(&pl->v[FC_CNP_TX]);
		break;
	case RP_FLOW_CNP_RX:
		atomic64_inc(&pl->v[FC_CNP_RX]);
		break;
	}
}

/* Count one packet; bottom halves disabled by the caller. */
void rocepath_flow_count(struct rocepath_flow *f, enum rocepath_flow_ctr c,
			 unsigned int len, u8 ecn)
{
	struct rocepath_flow_pcpu *pc;

	if (unlikely(!f->pc)) {
		flow_count_plain(f->plain, c, len, ecn);
		return;
	}
	pc = this_cpu_ptr(f->pc);
	u64_stats_update_begin(&pc->syncp);
	switch (c) {
	case RP_FLOW_TX:
		u64_stats_inc(&pc->tx_packets);
		u64_stats_add(&pc->tx_bytes, len);
		break;
	case RP_FLOW_RX:
		u64_stats_inc(&pc->rx_packets);
		u64_stats_add(&pc->rx_bytes, len);
		if (ecn == INET_ECN_CE)
			u64_stats_inc(&pc->rx_ce);
		else if (ecn != INET_ECN_NOT_ECT)
			u64_stats_inc(&pc->rx_ect);
		break;
	case RP_FLOW_CNP_TX:
		u64_stats_inc(&pc->cnp_tx);
		break;
	case RP_FLOW_CNP_RX:
		u64_stats_inc(&pc->cnp_rx);
		break;
	}
	u64_stats_update_end(&pc->syncp);
}

void rocepath_flow_cnp_counted(bool tx)
{
	atomic64_inc(tx ? &flow_cnp_tx : &flow_cnp_rx);
}

void rocepath_flow_stats(struct rocepath_flow_stats *s)
{
	s->flows = READ_ONCE(flow_count);
	s->flows_max = max_flows;
	s->flow_evictions = atomic64_read(&flow_evictions);
	s->flow_alloc_failures = atomic64_read(&flow_alloc_failures);
	s->flow_rx_only_refused = atomic64_read(&flow_rx_only_refused);
	s->cnp_tx = atomic64_read(&flow_cnp_tx);
	s->cnp_rx = atomic64_read(&flow_cnp_rx);
}

static bool flow_on_dev(const struct rocepath_flow *f, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];

	rocepath_dcqcn_dev_name(f->dd, buf);
	return !strcmp(buf, name);
}

/* Remove every record matching; NULL @dd and @name match all. */
static void flow_remove(const struct rocepath_dcqcn_dev *dd, const char *name,
			unsigned long idle_before, bool aged)
{
	struct rocepath_flow *f;
	struct hlist_node *tmp;
	unsigned int b;

	if (!flow_buckets)
		return;
	spin_lock_bh(&rocepath_flow_lock);
	for (b = 0; b < flow_nbuckets; b++) {
		hlist_for_each_entry_safe(f, tmp, &flow_buckets[b], node) {
			if (dd && f->dd != dd)
				continue;
			if (name && !flow_on_dev(f, name))
				continue;
			if (aged && !time_before(READ_ONCE(f->last_seen), idle_before))
				continue;
			flow_unlink(f);
			if (aged)
				atomic64_inc(&flow_evictions);
		}
		if (!(b & 255)) {
			spin_unlock_bh(&rocepath_flow_lock);
			cond_resched();
			spin_lock_bh(&rocepath_flow_lock);
		}
	}
	spin_unlock_bh(&rocepath_flow_lock);
}

void rocepath_flow_forget_dev(const struct rocepath_dcqcn_dev *dd)
{
	flow_remove(dd, NULL, 0, false);
}

static unsigned long flow_aging_period(void)
{
	unsigned int idle = READ_ONCE(flow_idle_secs);

	/* idle 0 still polls, so that a new flow_idle_secs takes effect */
	return idle ? clamp_t(unsigned long, idle * HZ / 2, HZ, 10 * HZ) : 10 * HZ;
}

static void flow_aging_fn(struct work_struct *work)
{
	unsigned int idle = READ_ONCE(flow_idle_secs);

	if (idle)
		flow_remove(NULL, NULL, jiffies - (unsigned long)idle * HZ, true);
	queue_delayed_work(system_power_efficient_wq, &flow_aging,
			   flow_aging_period());
}

static int flow_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, ROCEPATH_A_FLOW_PAD);
}

static void flow_read(const struct rocepath_flow *f, u64 *c)
{
	int cpu, i;

	if (!f->pc) {
		for (i = 0; i < FC_MAX; i++)
			c[i] = atomic64_read(&f->plain->v[i]);
		return;
	}
	for_each_possible_cpu(cpu) {
		const struct rocepath_flow_pcpu *pc = per_cpu_ptr(f->pc, cpu);
		unsigned int start;
		u64 v[FC_MAX];

		do {
			start = u64_stats_fetch_begin(&pc->syncp);
			v[FC_TX_PACKETS] = u64_stats_read(&pc->tx_packets);
			v[FC_TX_BYTES] = u64_stats_read(&pc->tx_bytes);
			v[FC_RX_PACKETS] = u64_stats_read(&pc->rx_packets);
			v[FC_RX_BYTES] = u64_stats_read(&pc->rx_bytes);
			v[FC_RX_ECT] = u64_stats_read(&pc->rx_ect);
			v[FC_RX_CE] = u64_stats_read(&pc->rx_ce);
			v[FC_CNP_TX] = u64_stats_read(&pc->cnp_tx);
			v[FC_CNP_RX] = u64_stats_read(&pc->cnp_rx);
		} while (u64_stats_fetch_retry(&pc->syncp, start));
		for (i = 0; i < FC_MAX; i++)
			c[i] += v[i];
	}
}

/*
 * A caller without CAP_NET_ADMIN sees a flow only while it belongs to a
 * live QP of its own: rx-only flows and flows whose QP is gone are not
 * anybody's.
 */
static bool flow_owned(const struct rocepath_flow *f, kuid_t uid)
{
	u32 lqpn = READ_ONCE(f->lqpn);

	return !f->key.rx_only && lqpn != ROCEPATH_QPN_NONE &&
	       rocepath_qp_owned(lqpn, &f->key.remote, uid);
}

int rocepath_flow_dump_fill(struct sk_buff *skb, const void *obj,
			    const struct rocepath_dump *d)
{
	const struct rocepath_flow *f = obj;
	char name[IB_DEVICE_NAME_MAX];
	u64 c[FC_MAX] = {};
	struct nlattr *nest;
	const void *loc, *rem;
	int alen, i;

	if (!d->all && !flow_owned(f, d->uid))
		return ROCEPATH_DUMP_SKIP;
	rocepath_dcqcn_dev_name(f->dd, name);
	if (d->ibdev && strcmp(name, d->ibdev))
		return ROCEPATH_DUMP_SKIP;
	flow_read(f, c);

	nest = nla_nest_start(skb, ROCEPATH_A_FLOW);
	if (!nest)
		return -EMSGSIZE;
	alen = f->key.v4 ? 4 : 16;
	loc = f->key.v4 ? (const void *)&f->key.local.s6_addr32[3] : &f->key.local;
	rem = f->key.v4 ? (const void *)&f->key.remote.s6_addr32[3] : &f->key.remote;
	if (nla_put_string(skb, ROCEPATH_A_FLOW_IBDEV, name) ||
	    nla_put(skb, ROCEPATH_A_FLOW_LOCAL, alen, loc) ||
	    nla_put(skb, ROCEPATH_A_FLOW_REMOTE, alen, rem) ||
	    nla_put_u16(skb, ROCEPATH_A_FLOW_SPORT, f->key.sport))
		goto cancel;
	if (!f->key.rx_only &&
	    nla_put_u32(skb, ROCEPATH_A_FLOW_DQPN, f->key.dqpn))
		goto cancel;
	if (READ_ONCE(f->lqpn) != ROCEPATH_QPN_NONE &&
	    nla_put_u32(skb, ROCEPATH_A_FLOW_LQPN, READ_ONCE(f->lqpn)))
		goto cancel;
	for (i = 0; i < FC_MAX; i++)
		if (flow_put_u64(skb, ROCEPATH_A_FLOW_TX_PACKETS + i, c[i]))
			goto cancel;
	if (READ_ONCE(f->rpt)) {
		struct rocepath_rpt *rpt = READ_ONCE(f->rpt);
		u32 rc, alpha, ceil;

		rc = rocepath_rpt_rate(rpt, f->dd, ktime_get_ns(), &alpha);
		ceil = rocepath_rpt_ceiling(f->dd);
		if (nla_put_u32(skb, ROCEPATH_A_FLOW_RATE_MBPS, rc / 1000) ||
		    nla_put_u32(skb, ROCEPATH_A_FLOW_ALPHA, alpha) ||
		    nla_put_u32(skb, ROCEPATH_A_FLOW_RATE_KBPS, rc) ||
		    nla_put_u8(skb, ROCEPATH_A_FLOW_RP_PACED, rc < ceil))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

bool rocepath_flow_dump_walk(struct rocepath_dump *d, unsigned long b)
{
	struct rocepath_flow *f;

	if (b >= flow_nbuckets)
		return false;
	hlist_for_each_entry_rcu(f, &flow_buckets[b], node)
		if (!rocepath_dump_obj(d, f))
			break;
	return true;
}

u32 rocepath_flow_generation(void)
{
	return READ_ONCE(flow_generation);
}

void rocepath_flow_reset(const char *name)
{
	flow_remove(NULL, name, 0, false);
}

int rocepath_flow_init(void)
{
	if (!max_flows || max_flows > FLOW_MAX_LIMIT) {
		pr_err("max_flows %u out of range 1..%u\n", max_flows, FLOW_MAX_LIMIT);
		return -EINVAL;
	}
	flow_nbuckets = roundup_pow_of_two(max_flows);
	flow_buckets = kvcalloc(flow_nbuckets, sizeof(*flow_buckets), GFP_KERNEL);
	if (!flow_buckets)
		return -ENOMEM;
	get_random_bytes(&flow_seed, sizeof(flow_seed));

	INIT_DEFERRABLE_WORK(&flow_aging, flow_aging_fn);
	queue_delayed_work(system_power_efficient_wq, &flow_aging,
			   flow_aging_period());
	return 0;
}

/* The netfilter hooks are gone (main.c): nothing adds flows any more. */
void rocepath_flow_exit(void)
{
	cancel_delayed_work_sync(&flow_aging);
	flow_remove(NULL, NULL, 0, false);
	/* flow_free_rcu() is this module's code */
	rcu_barrier();
	kvfree(flow_buckets);
	flow_buckets = NULL;
}
