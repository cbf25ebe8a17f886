/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: table of live RoCEv2 queue pairs, filled by the modify-QP hook.
 *
 * Lookups are RCU-protected and lock-free: they may be called from any
 * context, softirq included, and never sleep. They see a QP only while
 * the driver holds it: from the accepted modify that gave it its path to
 * the start of its destroy. The table is written only by the modify and
 * destroy hooks, by dumps settling what no return probe answered, and by
 * device removal.
 */
#ifndef _ROCEPATH_QP_H
#define _ROCEPATH_QP_H

#include <linux/in6.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <rdma/ib_verbs.h>

struct net_device;
struct netlink_callback;
struct rocepath_dump;
struct sk_buff;

/**
 * struct rocepath_qp_rule - key of the pin rule that chose a QP's port
 * @rqpn: the rule's remote QP number, ROCEPATH_ANY when it has none
 * @lqpn: the rule's local QP number, ROCEPATH_ANY when it has none
 * @dev: the rule is scoped to the QP's device
 * @remote_v4: the rule's remote (the QP's remote) was given as 4 bytes
 */
struct rocepath_qp_rule {
	u32 rqpn;
	u32 lqpn;
	bool dev;
	bool remote_v4;
};

/**
 * struct rocepath_qp_info - what the module knows about one live QP
 * @ibdev: RDMA device name
 * @dev_index: RDMA device index
 * @port: port number
 * @ifindex: interface index of the port's net device (the GID's netdev)
 * @lqpn: local QP number
 * @rqpn: remote (destination) QP number
 * @remote: remote address; IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d)
 * @remote_v4: true when @remote is an IPv4-mapped address
 * @local: the QP's source GID as an address (IPv4-mapped for IPv4); all
 *	zero when the hook did not give it, and then not compared
 * @qp_type: enum ib_qp_type
 * @sport: UDP source port the QP leaves on
 * @default_sport: port the RDMA core would have derived without the module
 * @pinned: a pin rule chose @sport
 * @rule: that rule's key, valid when @pinned
 */
struct rocepath_qp_info {
	char ibdev[IB_DEVICE_NAME_MAX];
	u32 dev_index;
	u32 port;
	int ifindex;
	u32 lqpn;
	u32 rqpn;
	struct in6_addr remote;
	bool remote_v4;
	struct in6_addr local;
	u32 qp_type;
	u16 sport;
	u16 default_sport;
	bool pinned;
	struct rocepath_qp_rule rule;
};

/**
 * rocepath_qp_lookup_remote - find a live QP by its peer
 * @ndev: net device the QP's traffic uses
 * @remote: remote address, IPv4 as IPv4-mapped IPv6
 * @rqpn: remote QP number (the BTH destination QPN of a sent packet)
 * @info: filled on success
 *
 * RCU-safe, lock-free, callable from softirq and hard irq. Returns false
 * when no live QP matches.
 */
bool rocepath_qp_lookup_remote(const struct net_device *ndev,
			       const struct in6_addr *remote, u32 rqpn,
			       struct rocepath_qp_info *info);

/**
 * rocepath_qp_rx_match - find the live QP a received packet belongs to
 * @ndev: net device the packet arrived on
 * @lqpn: local QP number (the BTH destination QPN of the packet)
 * @remote: the packet's source address, IPv4 as IPv4-mapped IPv6
 * @local: the packet's destination address, same form
 * @sport: set to the QP's UDP source port on success
 * @rqpn: set to the QP's remote QP number on success
 *
 * Matches the interface, the local QPN, the QP's remote address and its
 * source GID, so a packet naming a live QPN from another address, or to
 * another of the host's addresses, matches nothing. Copies
 * only what the receive path needs. Same context rules as
 * rocepath_qp_lookup_remote().
 */
bool rocepath_qp_rx_match(const struct net_device *ndev, u32 lqpn,
			  const struct in6_addr *remote,
			  const struct in6_addr *local, u16 *sport, u32 *rqpn);

/* Internal to the pinning code (hook, netlink, device removal). */
struct rocepath_qp_stats {
	u32 qps;
	u32 qps_max;
	u32 qps_per_uid_max;
	u64 qps_owner_refused;
};

int rocepath_qp_init(void);
void rocepath_qp_exit(void);

bool rocepath_qp_begin(const struct ib_qp *qp, struct rocepath_qp_info *info,
		       const u16 *sports, unsigned int nsports,
		       const struct ib_gid_attr *sgid);
void rocepath_qp_end(const struct ib_qp *qp, bool ok);
void rocepath_qp_destroy_begin(const struct ib_qp *qp);
void rocepath_qp_destroy_end(const struct ib_qp *qp, bool ok);
void rocepath_qp_notify(u8 cmd, const struct rocepath_qp_info *info);
void rocepath_qp_del_device(const struct ib_device *ibdev);
u32 rocepath_qp_sport_count(const struct in6_addr *remote, u16 sport);
void rocepath_qp_get_stats(struct rocepath_qp_stats *s);
u32 rocepath_qp_generation(void);
bool rocepath_qp_owned(u32 lqpn, const struct in6_addr *remote, kuid_t uid);
int rocepath_qp_fill(struct sk_buff *skb, const struct rocepath_qp_info *info);
size_t rocepath_qp_fill_size(void);

/* For qp-get (nl_qp.c): the table's buckets and one entry's message. */
void rocepath_qp_settle_pending(void);
bool rocepath_qp_dump_walk(struct rocepath_dump *d, unsigned long b);
int rocepath_qp_dump_fill(struct sk_buff *skb, const void *obj,
			  const struct rocepath_dump *d);

#endif /* _ROCEPATH_QP_H */
