// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: pin rules.
 *
 * The live rules form one set: a hash table of rules keyed by (remote,
 * rqpn, lqpn, device), published through one RCU pointer. The hook looks
 * rules up without locks. pin-add and pin-del change the live set in place
 * under pin_lock; pin-replace builds a staging set owned by the netlink
 * socket and swaps the pointer, so a QP sees either the whole old set or
 * the whole new one. Flush swaps in an empty set.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "netlink.h"
#include "pin.h"

static unsigned int max_rules = 131072;
module_param(max_rules, uint, 0444);
MODULE_PARM_DESC(max_rules, "Limit on pin rules (default 131072)");

static unsigned int max_sports = 64;
module_param(max_sports, uint, 0444);
MODULE_PARM_DESC(max_sports, "Limit on ports in one path set (default 64, at most 1024)");

#define MAX_STAGING	8

/* Kinds of rules, to skip lookups for kinds the set does not hold. */
#define KIND_RQPN	4
#define KIND_LQPN	2
#define KIND_DEV	1

struct pin_set {
	u32 count;
	u32 kinds[8];
	unsigned int hbits;
	struct hlist_head buckets[];
};

struct staging {
	struct list_head list;
	u32 portid;
	struct pin_set *set;
};

static DEFINE_MUTEX(pin_lock);
static struct pin_set __rcu *live;
static u32 pin_generation;
static LIST_HEAD(stagings);
static unsigned int nstaging;

static unsigned int kind(const struct rocepath_pin_key *k)
{
	return (k->rqpn != ROCEPATH_ANY ? KIND_RQPN : 0) |
	       (k->lqpn != ROCEPATH_ANY ? KIND_LQPN : 0) |
	       (k->dev_index != ROCEPATH_ANY ? KIND_DEV : 0);
}

static struct hlist_head *bucket(const struct pin_set *s,
				 const struct rocepath_pin_key *k)
{
	u32 h = jhash2((const u32 *)k, sizeof(*k) / sizeof(u32), 0);

	return (struct hlist_head *)&s->buckets[h >> (32 - s->hbits)];
}

static struct pin_set *set_alloc(void)
{
	unsigned int hbits = ilog2(roundup_pow_of_two(max(max_rules / 2, 64U)));
	struct pin_set *s;

	s = kvzalloc(struct_size(s, buckets, 1U << hbits), GFP_KERNEL);
	if (s)
		s->hbits = hbits;
	return s;
}

static void set_free(struct pin_set *s)
{
	struct rocepath_pin *p;
	struct hlist_node *tmp;
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < (1U << s->hbits); i++)
		hlist_for_each_entry_safe(p, tmp, &s->buckets[i], node)
			kfree(p);
	kvfree(s);
}

/*
 * Readers: the hook, under rcu_read_lock(). Writers: pin-add, pin-del and
 * the staging sets of pin-replace, under pin_lock (a staging set is never
 * published, so pin_lock is all that protects it).
 */
static struct rocepath_pin *set_find(const struct pin_set *s,
				     const struct rocepath_pin_key *k)
{
	struct rocepath_pin *p;

	hlist_for_each_entry_rcu(p, bucket(s, k), node,
				 lockdep_is_held(&pin_lock))
		if (!memcmp(&p->key, k, sizeof(*k)))
			return p;
	return NULL;
}

static void set_insert(struct pin_set *s, struct rocepath_pin *p)
{
	hlist_add_head_rcu(&p->node, bucket(s, &p->key));
	s->count++;
	s->kinds[kind(&p->key)]++;
}

static void set_remove(struct pin_set *s, struct rocepath_pin *p)
{
	hlist_del_rcu(&p->node);
	s->count--;
	s->kinds[kind(&p->key)]--;
}

/*
 * Most specific first: rqpn and lqpn, rqpn, lqpn, then the path set of
 * the remote; at each step a rule scoped to the QP's device beats a rule
 * for every device.
 */
const struct rocepath_pin *rocepath_pin_lookup(u32 dev_index,
					       const struct in6_addr *remote,
					       u32 rqpn, u32 lqpn)
{
	static const u8 order[] = {
		KIND_RQPN | KIND_LQPN | KIND_DEV, KIND_RQPN | KIND_LQPN,
		KIND_RQPN | KIND_DEV, KIND_RQPN,
		KIND_LQPN | KIND_DEV, KIND_LQPN,
		KIND_DEV, 0,
	};
	struct rocepath_pin_key k;
	struct rocepath_pin *p;
	struct pin_set *s;
	unsigned int i;

	s = rcu_dereference(live);
	if (!s || !s->count)
		return NULL;
	k.remote = *remote;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!READ_ONCE(s->kinds[order[i]]))
			continue;
		k.rqpn = order[i] & KIND_RQPN ? rqpn : ROCEPATH_ANY;
		k.lqpn = order[i] & KIND_LQPN ? lqpn : ROCEPATH_ANY;
		k.dev_index = order[i] & KIND_DEV ? dev_index : ROCEPATH_ANY;
		p = set_find(s, &k);
		if (p)
			return p;
	}
	return NULL;
}

static int cmp_u16(const void *a, const void *b)
{
	return *(const u16 *)a - *(const u16 *)b;
}

/*
 * Parse one pin nest into a new rule (sports only when @sports_needed).
 * The policy has already checked types, port range and QPN range. The
 * remote's length is checked here: ynl-gen cannot put a binary length
 * range (min-len with max-len) into a policy.
 */
static struct rocepath_pin *parse(const struct nlattr *nest,
				  bool sports_needed,
				  struct netlink_ext_ack *extack, int *errp)
{
	struct nlattr *tb[ROCEPATH_A_PIN_MAX + 1];
	struct rocepath_pin *p = NULL;
	unsigned int n = 0, i, j;
	const struct nlattr *a;
	int err, rem, len;

	err = nla_parse_nested(tb, ROCEPATH_A_PIN_MAX, nest,
			       rocepath_pin_nl_policy, extack);
	if (err)
		goto err;

	if (tb[ROCEPATH_A_PIN_SPORT_QPS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[ROCEPATH_A_PIN_SPORT_QPS],
				    "attribute is output only");
		err = -EINVAL;
		goto err;
	}
	if (!tb[ROCEPATH_A_PIN_REMOTE]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "pin needs a remote address");
		err = -EINVAL;
		goto err;
	}
	len = nla_len(tb[ROCEPATH_A_PIN_REMOTE]);
	if (len != 4 && len != 16) {
		NL_SET_ERR_MSG_ATTR(extack, tb[ROCEPATH_A_PIN_REMOTE],
				    "remote address must be 4 (IPv4) or 16 (IPv6) bytes");
		err = -EINVAL;
		goto err;
	}

	if (sports_needed) {
		nla_for_each_nested(a, nest, rem)
			if (nla_type(a) == ROCEPATH_A_PIN_SPORT)
				n++;
		if (!n) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "path set is empty: give at least one sport");
			err = -EINVAL;
			goto err;
		}
		if (n > max_sports) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "path set has more sports than max_sports");
			err = -E2BIG;
			goto err;
		}
	}

	p = kzalloc(struct_size(p, sports, n), GFP_KERNEL);
	if (!p) {
		err = -ENOMEM;
		goto err;
	}
	if (len == 4) {
		ipv6_addr_set_v4mapped(nla_get_in_addr(tb[ROCEPATH_A_PIN_REMOTE]),
				       &p->key.remote);
		p->remote_v4 = true;
	} else {
		nla_memcpy(&p->key.remote, tb[ROCEPATH_A_PIN_REMOTE], 16);
	}
	p->key.rqpn = tb[ROCEPATH_A_PIN_RQPN] ?
		      nla_get_u32(tb[ROCEPATH_A_PIN_RQPN]) : ROCEPATH_ANY;
	p->key.lqpn = tb[ROCEPATH_A_PIN_LQPN] ?
		      nla_get_u32(tb[ROCEPATH_A_PIN_LQPN]) : ROCEPATH_ANY;
	p->key.dev_index = ROCEPATH_ANY;
	if (tb[ROCEPATH_A_PIN_IBDEV]) {
		err = rocepath_dev_index(nla_data(tb[ROCEPATH_A_PIN_IBDEV]),
					 &p->key.dev_index);
		if (err) {
			NL_SET_ERR_MSG_ATTR(extack, tb[ROCEPATH_A_PIN_IBDEV],
					    "unknown RDMA device");
			goto err;
		}
	}

	if (sports_needed) {
		i = 0;
		nla_for_each_nested(a, nest, rem)
			if (nla_type(a) == ROCEPATH_A_PIN_SPORT)
				p->sports[i++] = nla_get_u16(a);
		sort(p->sports, n, sizeof(u16), cmp_u16, NULL);
		for (i = 1, j = 1; i < n; i++)
			if (p->sports[i] != p->sports[j - 1])
				p->sports[j++] = p->sports[i];
		p->nsports = j;
	}
	return p;

err:
	kfree(p);
	*errp = err;
	return NULL;
}

static int set_add(struct pin_set *s, const struct nlattr *nest,
		   struct netlink_ext_ack *extack)
{
	struct rocepath_pin *p;
	int err;

	p = parse(nest, true, extack, &err);
	if (!p)
		return err;
	if (s->count >= max_rules) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "pin rule table is full (max_rules)");
		kfree(p);
		return -ENOSPC;
	}
	if (set_find(s, &p->key)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a pin rule with this remote, device, rqpn and lqpn exists");
		kfree(p);
		return -EEXIST;
	}
	set_insert(s, p);
	return 0;
}

static u32 bump_generation(void)
{
	lockdep_assert_held(&pin_lock);
	WRITE_ONCE(pin_generation, pin_generation + 1);
	return pin_generation;
}

int rocepath_pin_add(const struct nlattr *nest,
		     struct netlink_ext_ack *extack, u32 *gen)
{
	int err;

	mutex_lock(&pin_lock);
	err = set_add(rcu_dereference_protected(live,
						lockdep_is_held(&pin_lock)),
		      nest, extack);
	if (!err)
		*gen = bump_generation();
	mutex_unlock(&pin_lock);
	return err;
}

int rocepath_pin_del(const struct nlattr *nest,
		     struct netlink_ext_ack *extack, u32 *gen)
{
	struct rocepath_pin *p, *old;
	struct pin_set *s;
	int err = 0;

	p = parse(nest, false, extack, &err);
	if (!p)
		return err;

	mutex_lock(&pin_lock);
	s = rcu_dereference_protected(live, lockdep_is_held(&pin_lock));
	old = set_find(s, &p->key);
	if (old) {
		set_remove(s, old);
		kfree_rcu(old, rcu);
		*gen = bump_generation();
	} else {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no pin rule with this key");
		err = -ENOENT;
	}
	mutex_unlock(&pin_lock);
	kfree(p);
	return err;
}

/* Swap @s in as the live set; the caller frees the old one after a grace period. */
static struct pin_set *swap_live(struct pin_set *s, u32 *gen)
{
	struct pin_set *old;

	old = rcu_replace_pointer(live, s, lockdep_is_held(&pin_lock));
	*gen = bump_generation();
	return old;
}

static void free_old(struct pin_set *old)
{
	synchronize_rcu();
	set_free(old);
}

int rocepath_pin_flush(u32 *gen)
{
	struct pin_set *s = set_alloc();

	if (!s)
		return -ENOMEM;
	mutex_lock(&pin_lock);
	s = swap_live(s, gen);
	mutex_unlock(&pin_lock);
	free_old(s);
	return 0;
}

static struct staging *staging_find(u32 portid)
{
	struct staging *st;

	list_for_each_entry(st, &stagings, list)
		if (st->portid == portid)
			return st;
	return NULL;
}

static void staging_drop(struct staging *st)
{
	list_del(&st->list);
	nstaging--;
	set_free(st->set);
	kfree(st);
}

/*
 * begin: start a staging set for the sending socket (dropping its older
 * one); pins: add to it; commit: swap it in. Any error drops the staging
 * set, so a failed transaction never half-applies.
 */
int rocepath_pin_replace(struct genl_info *info, u32 *gen)
{
	struct netlink_ext_ack *extack = info->extack;
	u32 portid = info->snd_portid, flags = 0;
	struct pin_set *old = NULL;
	struct staging *st;
	struct nlattr *a;
	int err = 0, rem;

	if (info->attrs[ROCEPATH_A_REPLACE_FLAGS])
		flags = nla_get_u32(info->attrs[ROCEPATH_A_REPLACE_FLAGS]);

	mutex_lock(&pin_lock);
	st = staging_find(portid);
	if (flags & ROCEPATH_REPLACE_FLAGS_BEGIN) {
		if (st)
			staging_drop(st);
		if (nstaging >= MAX_STAGING) {
			NL_SET_ERR_MSG_MOD(extack,
					   "too many replace transactions in progress");
			err = -EBUSY;
			goto out;
		}
		st = kzalloc(sizeof(*st), GFP_KERNEL);
		if (st)
			st->set = set_alloc();
		if (!st || !st->set) {
			kfree(st);
			err = -ENOMEM;
			goto out;
		}
		st->portid = portid;
		list_add(&st->list, &stagings);
		nstaging++;
	}
	if (!st) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no replace transaction on this socket: send begin first");
		err = -EINVAL;
		goto out;
	}

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != ROCEPATH_A_PIN)
			continue;
		err = set_add(st->set, a, extack);
		if (err)
			goto drop;
	}

	if (flags & ROCEPATH_REPLACE_FLAGS_COMMIT) {
		if (info->attrs[ROCEPATH_A_GENERATION] &&
		    nla_get_u32(info->attrs[ROCEPATH_A_GENERATION]) !=
		    pin_generation) {
			NL_SET_ERR_MSG_ATTR(extack,
					    info->attrs[ROCEPATH_A_GENERATION],
					    "pin rules changed since this generation");
			err = -ESTALE;
			goto drop;
		}
		list_del(&st->list);
		nstaging--;
		old = swap_live(st->set, gen);
		kfree(st);
	} else {
		*gen = pin_generation;
	}
	goto out;

drop:
	staging_drop(st);
out:
	mutex_unlock(&pin_lock);
	if (old)
		free_old(old);
	return err;
}

static bool set_has_dev_rules(const struct pin_set *s)
{
	return s->kinds[KIND_DEV] || s->kinds[KIND_DEV | KIND_LQPN] ||
	       s->kinds[KIND_DEV | KIND_RQPN] ||
	       s->kinds[KIND_DEV | KIND_RQPN | KIND_LQPN];
}

/* Remove @s's rules scoped to device @index; @live: readers may hold them. */
static unsigned int set_drop_dev(struct pin_set *s, u32 index, bool live)
{
	struct rocepath_pin *p;
	struct hlist_node *tmp;
	unsigned int i, n = 0;

	if (!set_has_dev_rules(s))
		return 0;
	for (i = 0; i < (1U << s->hbits); i++) {
		hlist_for_each_entry_safe(p, tmp, &s->buckets[i], node) {
			if (p->key.dev_index != index)
				continue;
			set_remove(s, p);
			if (live)
				kfree_rcu(p, rcu);
			else
				kfree(p);
			n++;
		}
		if (!(i & 1023))
			cond_resched();
	}
	return n;
}

/*
 * A device went away. The core never reuses its index (xa_alloc_cyclic),
 * so rules scoped to it cannot match again, and a dump, which names the
 * device from the registry, would show them without one, as if they held
 * for every device. They go from the live set (monitors hear of it) and
 * from staged transactions, which then commit what the live set would
 * hold had the device gone after the commit.
 */
void rocepath_pin_dev_gone(u32 index)
{
	struct staging *st;
	unsigned int n;
	u32 gen = 0;

	mutex_lock(&pin_lock);
	n = set_drop_dev(rcu_dereference_protected(live,
						   lockdep_is_held(&pin_lock)),
			 index, true);
	list_for_each_entry(st, &stagings, list)
		set_drop_dev(st->set, index, false);
	if (n)
		gen = bump_generation();
	mutex_unlock(&pin_lock);
	if (n)
		rocepath_nl_pins_replaced(gen);
}

/* The socket went away: drop its staging set. */
void rocepath_pin_release(u32 portid)
{
	struct staging *st;

	mutex_lock(&pin_lock);
	st = staging_find(portid);
	if (st)
		staging_drop(st);
	mutex_unlock(&pin_lock);
}

bool rocepath_pin_dump_walk(struct rocepath_dump *d, unsigned long b)
{
	struct pin_set *s = rcu_dereference(live);
	struct rocepath_pin *p;

	if (!s || b >= (1UL << s->hbits))
		return false;
	hlist_for_each_entry_rcu(p, &s->buckets[b], node)
		if (!rocepath_dump_obj(d, p))
			break;
	return true;
}

u32 rocepath_pin_generation(void)
{
	return READ_ONCE(pin_generation);
}

void rocepath_pin_get_stats(struct rocepath_pin_stats *s)
{
	struct pin_set *set;

	rcu_read_lock();
	set = rcu_dereference(live);
	s->rules = set ? READ_ONCE(set->count) : 0;
	rcu_read_unlock();
	s->rules_max = max_rules;
	s->sports_max = max_sports;
	s->generation = READ_ONCE(pin_generation);
	s->staging = READ_ONCE(nstaging);
}

int rocepath_pin_init(void)
{
	struct pin_set *s;

	if (!max_sports || max_sports > ROCEPATH_SPORTS_LIMIT) {
		pr_err("max_sports must be 1..%u\n", ROCEPATH_SPORTS_LIMIT);
		return -EINVAL;
	}
	s = set_alloc();
	if (!s)
		return -ENOMEM;
	RCU_INIT_POINTER(live, s);
	return 0;
}

void rocepath_pin_exit(void)
{
	struct staging *st, *tmp;

	list_for_each_entry_safe(st, tmp, &stagings, list)
		staging_drop(st);
	/*
	 * The probes are gone, so no reader holds the live set; rules deleted
	 * earlier are kfree_rcu()'d on their own, which runs no module code.
	 */
	set_free(rcu_dereference_protected(live, 1));
	RCU_INIT_POINTER(live, NULL);
}
