/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: per-flow RoCEv2 ECN/CNP accounting and software DCQCN for rxe.
 */
#ifndef _ROCEPATH_FLOW_H
#define _ROCEPATH_FLOW_H

#include <linux/in6.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

struct net;
struct net_device;
struct rocepath_dcqcn_dev;
struct rocepath_dump;
struct rocepath_rpt;
struct sk_buff;

/**
 * struct rocepath_flow_stats - flow table counters for stats-get
 * @flows: flows tracked now
 * @flows_max: limit on tracked flows (module parameter max_flows)
 * @flow_evictions: flows evicted to make room or aged out
 * @flow_alloc_failures: flows not tracked because an allocation failed
 *	or the table was full with nothing to evict (rx-only flows included)
 * @flow_rx_only_refused: rx-only flows not tracked because the table was
 *	full (they never evict); no netlink attribute yet
 * @cnp_tx: CNPs sent by the software notification point
 * @cnp_rx: CNPs received on soft-RoCE devices
 */
struct rocepath_flow_stats {
	u32 flows;
	u32 flows_max;
	u64 flow_evictions;
	u64 flow_alloc_failures;
	u64 flow_rx_only_refused;
	u64 cnp_tx;
	u64 cnp_rx;
};

int rocepath_flow_init(void);
void rocepath_flow_exit(void);
void rocepath_flow_stats(struct rocepath_flow_stats *s);

/* Internal to the flow, CNP and DCQCN code. */

#define ROCEPATH_ROCE_PORT	4791
#define ROCEPATH_QPN_MASK	0xffffff
#define ROCEPATH_QPN_NONE	U32_MAX
#define ROCEPATH_OP_CNP		0x81

/**
 * struct rocepath_flow_key - one QP's flow as seen from this host
 * @local: local address (IPv4 as IPv4-mapped IPv6)
 * @remote: remote address (IPv4 as IPv4-mapped IPv6)
 * @dqpn: destination QPN of the packets we send (the remote QP); for an
 *	rx-only flow, the BTH destination QPN of the packets we receive
 * @sport: UDP source port our QP sends with; for an rx-only flow, the
 *	UDP source port of the packets we receive
 * @v4: 1 for IPv4
 * @rx_only: 1 when received packets named a QP the QP table does not know
 */
struct rocepath_flow_key {
	struct in6_addr local;
	struct in6_addr remote;
	u32 dqpn;
	u16 sport;
	u8 v4;
	u8 rx_only;
};

struct rocepath_flow_pcpu {
	u64_stats_t tx_packets;
	u64_stats_t tx_bytes;
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t rx_ect;
	u64_stats_t rx_ce;
	u64_stats_t cnp_tx;
	u64_stats_t cnp_rx;
	struct u64_stats_sync syncp;
};

/*
 * An rx-only record's counters: anyone can make such records, so they
 * cost one small allocation with the record rather than one per possible
 * CPU. Same order as the per-CPU ones; only the receive side moves.
 */
struct rocepath_flow_plain {
	atomic64_t v[8];
};

/**
 * struct rocepath_flow - a flow record
 * @node: hash chain (RCU)
 * @key: the key
 * @lqpn: local QPN, ROCEPATH_QPN_NONE until the QP table knows it
 * @qp_miss_gen: the QP table's generation when the transmit path last
 *	looked the flow's QP up in vain; it looks again only once the table
 *	has changed
 * @last_seen: jiffies of the last packet
 * @last_cnp: ktime ns of the last CNP sent (notification point)
 * @dd: DCQCN parameters of the flow's device
 * @rpt: reaction point state, created with the first packet sent while
 *	rp_enable is set
 * @pc: per-CPU counters, NULL for an rx-only record
 * @plain: an rx-only record's counters (allocated with it), else NULL
 * @rcu: for the deferred free
 */
struct rocepath_flow {
	struct hlist_node node;
	struct rocepath_flow_key key;
	u32 lqpn;
	u32 qp_miss_gen;
	unsigned long last_seen;
	u64 last_cnp;
	struct rocepath_dcqcn_dev *dd;
	struct rocepath_rpt *rpt;
	struct rocepath_flow_pcpu __percpu *pc;
	struct rocepath_flow_plain *plain;
	struct rcu_head rcu;
};

enum rocepath_flow_ctr {
	RP_FLOW_TX,
	RP_FLOW_RX,
	RP_FLOW_CNP_TX,
	RP_FLOW_CNP_RX,
};

struct rocepath_flow *rocepath_flow_get(const struct rocepath_flow_key *key,
					struct net_device *ndev, u32 lqpn);
void rocepath_flow_count(struct rocepath_flow *f, enum rocepath_flow_ctr c,
			 unsigned int len, u8 ecn);
void rocepath_flow_cnp_counted(bool tx);
void rocepath_flow_forget_dev(const struct rocepath_dcqcn_dev *dd);

/*
 * For flow-get and flow-reset (nl_flow.c): the change counter, the table's
 * buckets, one flow's message, and removing every flow (of device @name,
 * unless NULL).
 */
u32 rocepath_flow_generation(void);
bool rocepath_flow_dump_walk(struct rocepath_dump *d, unsigned long b);
int rocepath_flow_dump_fill(struct sk_buff *skb, const void *obj,
			    const struct rocepath_dump *d);
void rocepath_flow_reset(const char *name);
int rocepath_flow_hooks_init(void);
void rocepath_flow_hooks_exit(void);
int rocepath_cnp_send(struct net *net, const struct net_device *ndev,
		      const struct rocepath_flow_key *key,
		      const struct rocepath_dcqcn_dev *dd, u32 rx_priority);

#endif /* _ROCEPATH_FLOW_H */
