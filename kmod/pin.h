/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: pin rules, the live rule set and replace transactions.
 */
#ifndef _ROCEPATH_PIN_H
#define _ROCEPATH_PIN_H

#include <linux/in6.h>
#include <linux/types.h>
#include <net/genetlink.h>

struct rocepath_dump;

/* Unset rqpn/lqpn, and the device index of a rule that is not scoped. */
#define ROCEPATH_ANY		U32_MAX
/* Hard cap on max_sports. */
#define ROCEPATH_SPORTS_LIMIT	1024

/* Must stay free of padding: it is hashed as 7 words. */
struct rocepath_pin_key {
	struct in6_addr remote;		/* IPv4 as IPv4-mapped IPv6 */
	u32 rqpn;			/* ROCEPATH_ANY when unset */
	u32 lqpn;			/* ROCEPATH_ANY when unset */
	u32 dev_index;			/* ROCEPATH_ANY for every device */
};

/**
 * struct rocepath_pin - one rule
 * @node: hash chain of its set
 * @rcu: for freeing after a single delete
 * @key: what it matches
 * @remote_v4: the remote was given as 4 bytes
 * @nsports: number of @sports
 * @sports: the ports, ascending, without duplicates
 */
struct rocepath_pin {
	struct hlist_node node;
	struct rcu_head rcu;
	struct rocepath_pin_key key;
	bool remote_v4;
	u16 nsports;
	u16 sports[];
};

int rocepath_pin_init(void);
void rocepath_pin_exit(void);

/* Hook side: call under rcu_read_lock(); the rule stays valid until unlock. */
const struct rocepath_pin *rocepath_pin_lookup(u32 dev_index,
					       const struct in6_addr *remote,
					       u32 rqpn, u32 lqpn);

/* A netlink socket closed: its pin-replace staging set goes with it. */
void rocepath_pin_release(u32 portid);
void rocepath_pin_dev_gone(u32 index);

struct rocepath_pin_stats {
	u32 rules;
	u32 rules_max;
	u32 sports_max;
	u32 generation;
	u32 staging;
};

void rocepath_pin_get_stats(struct rocepath_pin_stats *s);

/*
 * For the pin requests (nl_pin.c). Add and del take one pin nest, replace
 * the whole request; each returns the generation it produced in @gen.
 */
int rocepath_pin_add(const struct nlattr *nest,
		     struct netlink_ext_ack *extack, u32 *gen);
int rocepath_pin_del(const struct nlattr *nest,
		     struct netlink_ext_ack *extack, u32 *gen);
int rocepath_pin_flush(u32 *gen);
int rocepath_pin_replace(struct genl_info *info, u32 *gen);
u32 rocepath_pin_generation(void);
/* Under rcu_read_lock(): the live set's bucket @b; false past the end. */
bool rocepath_pin_dump_walk(struct rocepath_dump *d, unsigned long b);

#endif /* _ROCEPATH_PIN_H */
