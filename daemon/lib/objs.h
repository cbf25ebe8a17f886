/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel objects of the rocepath family as C structs, their netlink
 * decoders and the attribute name tables. Every struct starts with
 * `attrs`, a bitmask of the netlink attributes that were present
 * (RP_HAS()). The decoders are spec-decode.c driven by the generated
 * attribute sets (spec-gen.c) and the field maps in objs.c.
 */
#ifndef ROCEPATH_OBJS_H
#define ROCEPATH_OBJS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/rocepath.h>

#include "addr.h"
#include "spec-gen.h"

struct nlattr;

#define RP_IBDEV_LEN	64
#define RP_HAS(obj, attr)	(!!((obj)->attrs & (1ULL << (attr))))
#define RP_SET(obj, attr)	((obj)->attrs |= 1ULL << (attr))

/* One pin rule (ROCEPATH_A_PIN_*). */
struct rp_pin {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];	/* "" = every device */
	struct rp_addr remote;
	uint16_t *sports;		/* malloc'ed, nsports entries */
	size_t nsports;
	uint32_t *sport_qps;		/* dump only: live QPs per sport */
	size_t nsport_qps;
	uint32_t rqpn;			/* valid when RP_HAS(p, ..._RQPN) */
	uint32_t lqpn;			/* valid when RP_HAS(p, ..._LQPN) */
};

struct rp_pins {
	struct rp_pin *v;
	size_t n, cap;
	uint32_t generation;		/* from a dump */
};

struct rp_gid {
	uint64_t attrs;
	uint32_t index;
	uint32_t type;			/* enum ib_gid_type, 2 = RoCEv2 */
	struct rp_addr addr;		/* IPv4-mapped GIDs as IPv4 */
};

struct rp_hw_counter {
	uint64_t attrs;
	char name[64];
	uint64_t value;
};

struct rp_dev {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];
	uint32_t index;
	uint32_t port;
	char netdev[IF_NAMESIZE];
	uint32_t ifindex;
	bool roce_v2;
	bool soft;
	char driver[32];
	struct rp_gid *gids;
	size_t ngids;
	struct rp_hw_counter *counters;
	size_t ncounters;
};

struct rp_devs {
	struct rp_dev *v;
	size_t n, cap;
};

/*
 * The key of the pin rule that chose a QP's port (ROCEPATH_A_QP_RULE, in
 * the pin attribute set); attrs has ROCEPATH_A_PIN_* bits.
 */
struct rp_qp_rule {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];	/* when RP_HAS(r, ..._IBDEV): dev-scoped */
	struct rp_addr remote;		/* 4 or 16 bytes as the rule gave it */
	uint32_t rqpn;			/* valid when RP_HAS(r, ..._RQPN) */
	uint32_t lqpn;			/* valid when RP_HAS(r, ..._LQPN) */
};

struct rp_qp {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];
	uint32_t port;
	uint32_t lqpn;
	uint32_t rqpn;
	struct rp_addr remote;
	uint16_t sport;
	bool pinned;
	uint32_t type;
	uint16_t default_sport;
	struct rp_qp_rule rule;		/* valid when RP_HAS(q, ..._QP_RULE) */
};

struct rp_qps {
	struct rp_qp *v;
	size_t n, cap;
};

struct rp_flow {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];
	struct rp_addr local;
	struct rp_addr remote;
	uint16_t sport;
	uint32_t dqpn;			/* valid when rp_flow_has_dqpn() */
	uint32_t lqpn;
	/* Indexed by ROCEPATH_A_FLOW_* (tx-packets .. cnp-rx, rate, alpha). */
	uint64_t val[ROCEPATH_A_FLOW_MAX + 1];
};

struct rp_flows {
	struct rp_flow *v;
	size_t n, cap;
};

/* Indexed by ROCEPATH_A_STATS_*. */
struct rp_stats {
	uint64_t attrs;
	uint64_t val[ROCEPATH_A_STATS_MAX + 1];
};

/*
 * Indexed by ROCEPATH_A_DCQCN_*: the parameters (np-enable .. np-cnp-prio)
 * and the dump-only flags soft and fq-missing (not in rp_dcqcn_name()).
 */
struct rp_dcqcn {
	uint64_t attrs;
	char ibdev[RP_IBDEV_LEN];
	uint32_t val[ROCEPATH_A_DCQCN_MAX + 1];
};

struct rp_dcqcns {
	struct rp_dcqcn *v;
	size_t n, cap;
};

/*
 * Name tables: the spec's attribute names with '-' turned into '_'
 * ("rp_ai_rate", "tx_packets", "qps_max"); NULL for unspec/pad/ibdev and
 * attributes that are not plain numbers. rp_*_attr() map a name back to
 * the attribute type, or -ENOENT.
 */
const char *rp_dcqcn_name(int attr);
int rp_dcqcn_attr(const char *name);
/* Index into rp_dcqcn_params (spec-gen.h) of parameter @name, or -ENOENT. */
int rp_dcqcn_param_find(const char *name);
/*
 * The module's rules between DCQCN parameters (rp_min_rate at most
 * rp_max_rate unless that is 0), on the values a device would hold:
 * @val is indexed like rp_dcqcn_params, bit i of @known says val[i] is
 * known, and a rule with an unknown side is not judged. Returns 0, or
 * -ERANGE with the broken rule and its values in @why ("rp_min_rate 200
 * above rp_max_rate 100").
 */
int rp_dcqcn_check(const uint32_t *val, uint64_t known, char *why, size_t len);
const char *rp_stats_name(int attr);
/* tx_packets .. alpha, rate_kbps, rp_paced */
const char *rp_flow_counter_name(int attr);
/*
 * Whether the kernel sent the flow's dqpn: an rx-only record (a packet
 * that names no live QP of its sender) has none, and 0 is a valid QPN,
 * so f->dqpn == 0 says nothing (Documentation/flows-dcqcn.rst).
 */
bool rp_flow_has_dqpn(const struct rp_flow *f);

/*
 * Decoders of one nest (ROCEPATH_A_PIN/DEV/QP/FLOW/STATS/DCQCN): unknown
 * attributes are skipped, malformed known ones fail with -EINVAL (the
 * struct is then released and zeroed). A pin and a QP's rule need a
 * remote, a hardware counter a name.
 */
int rp_pin_parse(const struct nlattr *nest, struct rp_pin *p);
int rp_dev_parse(const struct nlattr *nest, struct rp_dev *d);
int rp_qp_parse(const struct nlattr *nest, struct rp_qp *q);
int rp_flow_parse(const struct nlattr *nest, struct rp_flow *f);
int rp_stats_parse(const struct nlattr *nest, struct rp_stats *s);
int rp_dcqcn_parse(const struct nlattr *nest, struct rp_dcqcn *d);

/* The decoders behind them, and all of them (NULL-terminated), for tests. */
struct rp_decoder;
extern const struct rp_decoder rp_pin_decoder, rp_gid_decoder,
	rp_hw_counter_decoder, rp_dev_decoder, rp_qp_rule_decoder,
	rp_qp_decoder, rp_flow_decoder, rp_stats_decoder, rp_dcqcn_decoder;
extern const struct rp_decoder *const rp_obj_decoders[];

/* Releasing (all accept zeroed structs; the containers end up empty). */
void rp_pin_release(struct rp_pin *p);
void rp_dev_release(struct rp_dev *d);
/*
 * dev-get sends a port's GIDs in messages of their own after the port's
 * (at most 32 GID table slots each): when @from is such a message for
 * @into's port, its GIDs join @into's and @from is released (1); 0 when
 * it is another port's, -ENOMEM.
 */
int rp_dev_merge(struct rp_dev *into, struct rp_dev *from);
void rp_pins_free(struct rp_pins *s);
void rp_devs_free(struct rp_devs *s);
void rp_qps_free(struct rp_qps *s);
void rp_flows_free(struct rp_flows *s);
void rp_dcqcns_free(struct rp_dcqcns *s);

/*
 * Appends a copy of *p (its arrays move into the set: *p is left zeroed).
 * Returns 0 or -ENOMEM (then *p is untouched).
 */
int rp_pins_push(struct rp_pins *s, struct rp_pin *p);
/* Deep copy helper for pins: sets sports from an array. -ENOMEM. */
int rp_pin_set_sports(struct rp_pin *p, const uint16_t *sports, size_t n);

/*
 * Makes room for element n of a zero-filled vector of `size`-byte items
 * (doubling, new items zeroed). -ENOMEM.
 */
int rp_vec_grow(void **v, size_t *cap, size_t n, size_t size);

#endif /* ROCEPATH_OBJS_H */
