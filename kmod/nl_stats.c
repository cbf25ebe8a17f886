// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the stats-get request, which reports the hook's counters
 * (stats.c) with every table's size and limits.
 */
#include <net/genetlink.h>

#include "flow.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"
#include "qp_probe.h"
#include "stats.h"
#include "stats-gen.h"

/*
 * What stats-get reports, gathered first so the reply is one table walk.
 * Every value is held as u64 and sent at the width the spec declares.
 */
struct stats_snapshot {
	u64 hook[ROCEPATH_STAT_MAX];
	u64 rules, rules_max, sports_max, generation;
	u64 qps, qps_max, qps_per_uid_max, qps_owner_refused;
	u64 flows, flows_max, flow_evictions, flow_alloc_failures;
	u64 flow_rx_only_refused, cnp_tx, cnp_rx;
	u64 probe_slots, probe_missed;
	u64 ntf_dropped, ntf_limit;
};

/* The width is the spec's (stats-gen.h): u32 or u64. */
#define STAT(attr, field)						\
	{ ROCEPATH_A_STATS_##attr, offsetof(struct stats_snapshot, field),	\
	  ROCEPATH_A_STATS_##attr##_WIDTH }

static const struct {
	u16 type;
	u16 off;
	u8 width;
} stats_attrs[] = {
	STAT(HOOK_CALLS, hook[ROCEPATH_STAT_HOOK_CALLS]),
	STAT(QPS_SEEN, hook[ROCEPATH_STAT_QPS_SEEN]),
	STAT(QPS_PINNED, hook[ROCEPATH_STAT_QPS_PINNED]),
	STAT(QPS_SKIPPED, hook[ROCEPATH_STAT_QPS_SKIPPED]),
	STAT(RULE_MISSES, hook[ROCEPATH_STAT_RULE_MISSES]),
	STAT(FLOW_LABELS_OVERRIDDEN, hook[ROCEPATH_STAT_FL_OVERRIDDEN]),
	STAT(QPS_UNTRACKED, hook[ROCEPATH_STAT_QPS_UNTRACKED]),
	STAT(RULES, rules),
	STAT(RULES_MAX, rules_max),
	STAT(SPORTS_MAX, sports_max),
	STAT(GENERATION, generation),
	STAT(QPS, qps),
	STAT(QPS_MAX, qps_max),
	STAT(FLOWS, flows),
	STAT(FLOWS_MAX, flows_max),
	STAT(FLOW_EVICTIONS, flow_evictions),
	STAT(FLOW_ALLOC_FAILURES, flow_alloc_failures),
	STAT(CNP_TX, cnp_tx),
	STAT(CNP_RX, cnp_rx),
	STAT(NTF_DROPPED, ntf_dropped),
	STAT(NTF_QUEUE_LIMIT, ntf_limit),
	STAT(QPS_ROLLED_BACK, hook[ROCEPATH_STAT_QPS_ROLLED_BACK]),
	STAT(PROBE_SLOTS, probe_slots),
	STAT(PROBE_MISSED, probe_missed),
	STAT(FLOW_RX_ONLY_REFUSED, flow_rx_only_refused),
	STAT(HOOK_MISSED, hook[ROCEPATH_STAT_HOOK_MISSED]),
	STAT(VERDICTS_INFERRED, hook[ROCEPATH_STAT_VERDICTS_INFERRED]),
	STAT(QPS_PER_UID_MAX, qps_per_uid_max),
	STAT(QPS_OWNER_REFUSED, qps_owner_refused),
};

static void stats_gather(struct stats_snapshot *st)
{
	struct rocepath_probe_stats prs;
	struct rocepath_flow_stats fs;
	struct rocepath_pin_stats ps;
	struct rocepath_qp_stats qs;
	u32 ntf_limit;
	int i;

	for (i = 0; i < ROCEPATH_STAT_MAX; i++)
		st->hook[i] = rocepath_stat_read(i);
	rocepath_pin_get_stats(&ps);
	st->rules = ps.rules;
	st->rules_max = ps.rules_max;
	st->sports_max = ps.sports_max;
	st->generation = ps.generation;
	rocepath_qp_get_stats(&qs);
	st->qps = qs.qps;
	st->qps_max = qs.qps_max;
	st->qps_per_uid_max = qs.qps_per_uid_max;
	st->qps_owner_refused = qs.qps_owner_refused;
	rocepath_flow_stats(&fs);
	st->flows = fs.flows;
	st->flows_max = fs.flows_max;
	st->flow_evictions = fs.flow_evictions;
	st->flow_alloc_failures = fs.flow_alloc_failures;
	st->flow_rx_only_refused = fs.flow_rx_only_refused;
	st->cnp_tx = fs.cnp_tx;
	st->cnp_rx = fs.cnp_rx;
	rocepath_qp_probe_stats(&prs);
	st->probe_slots = prs.slots;
	st->probe_missed = prs.missed;
	rocepath_nl_ntf_stats(&st->ntf_dropped, &ntf_limit);
	st->ntf_limit = ntf_limit;
}

static int stats_fill(struct sk_buff *skb, const struct stats_snapshot *st)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, ROCEPATH_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(stats_attrs); i++) {
		u64 v = *(const u64 *)((const u8 *)st + stats_attrs[i].off);
		int err;

		if (stats_attrs[i].width == 8)
			err = nla_put_u64_64bit(skb, stats_attrs[i].type, v,
						ROCEPATH_A_STATS_PAD);
		else
			err = nla_put_u32(skb, stats_attrs[i].type, v);
		if (err) {
			nla_nest_cancel(skb, nest);
			return err;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

int rocepath_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stats_snapshot st;
	struct sk_buff *msg;
	void *hdr;

	stats_gather(&st);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rocepath_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr || stats_fill(msg, &st)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
