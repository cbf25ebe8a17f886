// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the pinning hook.
 *
 * A kprobe on the RDMA core's static _ib_modify_qp(qp, attr, attr_mask,
 * udata), which both ib_modify_qp() (kernel ULPs, rdma_cm) and
 * ib_modify_qp_with_udata() (uverbs) call before the driver's modify_qp.
 * When a RoCEv2 RC, UC or XRC QP gets its address vector and destination
 * QPN (IB_QP_AV | IB_QP_DEST_QPN, normally INIT->RTR), the pre-handler
 * sets ah_attr.grh.flow_label so that the driver derives the planned UDP
 * source port from it (rdma_flow_label_to_udp_sport()), and records the
 * QP. A kprobe on ib_destroy_qp_user() forgets it.
 *
 * Handlers run with preemption disabled: nothing here sleeps (GFP_ATOMIC,
 * RCU rule lookup, the GID attribute lookup takes a rwlock only).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "hook.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"
#include "stats.h"

/* Flow label that makes the driver derive UDP source port @sport. */
static u32 sport_to_flow_label(u16 sport)
{
	u32 fl = sport & 0x3fff;

	/* 0 means "derive from the QPNs"; 0x4001 folds to 0xC000 too. */
	return fl ? fl : 0x4001;
}

static void notify_qp(u8 cmd, const struct rocepath_qp_info *info)
{
	struct sk_buff *skb;
	void *hdr;

	skb = rocepath_nl_ntf_new(cmd, GFP_ATOMIC, &hdr);
	if (!skb)
		return;
	if (rocepath_qp_fill(skb, info)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rocepath_nl_notify(skb, GFP_ATOMIC);
}

static bool connected(const struct ib_qp *qp)
{
	switch (qp->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return true;
	default:
		return false;
	}
}

static void modify(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_gid_attr *sgid, *held = NULL;
	struct ib_device *ibdev = qp->device;
	struct rocepath_qp_info info = {};
	const struct rocepath_pin *rule;
	struct net_device *ndev;
	struct ib_global_route *grh;
	bool tracked;
	u32 port;

	port = rdma_ah_get_port_num(ah);
	if (!connected(qp) || ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) ||
	    !rdma_is_port_valid(ibdev, port) ||
	    !rdma_protocol_roce(ibdev, port))
		goto skip;

	grh = rdma_ah_retrieve_grh(ah);
	sgid = grh->sgid_attr;
	if (!sgid) {
		held = rdma_get_gid_attr(ibdev, port, grh->sgid_index);
		if (IS_ERR(held))
			goto skip;
		sgid = held;
	}
	if (sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		goto skip_put;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid);
	if (!IS_ERR_OR_NULL(ndev))
		info.ifindex = ndev->ifindex;
	rcu_read_unlock();
	if (held)
		rdma_put_gid_attr(held);

	strscpy(info.ibdev, dev_name(&ibdev->dev), sizeof(info.ibdev));
	info.dev_index = ibdev->index;
	info.port = port;
	info.lqpn = qp->qp_num;
	info.rqpn = attr->dest_qp_num;
	memcpy(&info.remote, grh->dgid.raw, sizeof(info.remote));
	info.remote_v4 = ipv6_addr_v4mapped(&info.remote);
	info.qp_type = qp->qp_type;
	info.default_sport = rdma_get_udp_sport(grh->flow_label, info.lqpn,
						info.rqpn);
	info.sport = info.default_sport;
	rocepath_stat_inc(ROCEPATH_STAT_QPS_SEEN);

	rcu_read_lock();
	rule = rocepath_pin_lookup(info.dev_index, &info.remote, info.rqpn,
				   info.lqpn);
	if (rule) {
		info.rule.rqpn = rule->key.rqpn;
		info.rule.lqpn = rule->key.lqpn;
		info.rule.dev = rule->key.dev_index != ROCEPATH_ANY;
		info.rule.remote_v4 = rule->remote_v4;
	}
	rocepath_qp_add(qp, &info, rule ? rule->sports : NULL,
			rule ? rule->nsports : 0, &tracked);
	rcu_read_unlock();

	if (rule) {
		if (grh->flow_label)
			rocepath_stat_inc(ROCEPATH_STAT_FL_OVERRIDDEN);
		grh->flow_label = sport_to_flow_label(info.sport);
		rocepath_stat_inc(ROCEPATH_STAT_QPS_PINNED);
	} else {
		rocepath_stat_inc(ROCEPATH_STAT_RULE_MISSES);
	}
	if (!tracked)
		rocepath_stat_inc(ROCEPATH_STAT_QPS_UNTRACKED);
	notify_qp(ROCEPATH_CMD_QP_ADD_NTF, &info);
	return;

skip_put:
	if (held)
		rdma_put_gid_attr(held);
skip:
	rocepath_stat_inc(ROCEPATH_STAT_QPS_SKIPPED);
}

/* _ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, ...) */
static int modify_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ib_qp *qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	struct ib_qp_attr *attr;
	int mask;

	attr = (struct ib_qp_attr *)regs_get_kernel_argument(regs, 1);
	mask = (int)regs_get_kernel_argument(regs, 2);
	rocepath_stat_inc(ROCEPATH_STAT_HOOK_CALLS);
	if ((mask & (IB_QP_AV | IB_QP_DEST_QPN)) == (IB_QP_AV | IB_QP_DEST_QPN))
		modify(qp, attr);
	return 0;
}

/* ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata) */
static int destroy_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ib_qp *qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	struct rocepath_qp_info info;

	if (rocepath_qp_del(qp, &info))
		notify_qp(ROCEPATH_CMD_QP_DEL_NTF, &info);
	return 0;
}

static struct kprobe modify_kp = {
	.symbol_name	= "_ib_modify_qp",
	.pre_handler	= modify_pre,
};

static struct kprobe destroy_kp = {
	.symbol_name	= "ib_destroy_qp_user",
	.pre_handler	= destroy_pre,
};

static struct kprobe *probes[] = { &destroy_kp, &modify_kp };

int rocepath_hook_init(void)
{
	unsigned int s;
	int err;

	for (s = 0xc000; s <= 0xffff; s++) {
		if (rdma_flow_label_to_udp_sport(sport_to_flow_label(s)) != s) {
			pr_err("flow label mapping broken for port %u\n", s);
			return -EINVAL;
		}
	}
	err = register_kprobes(probes, ARRAY_SIZE(probes));
	if (err) {
		pr_err("cannot probe _ib_modify_qp/ib_destroy_qp_user: %d\n",
		       err);
		return err;
	}
	return 0;
}

void rocepath_hook_exit(void)
{
	/* Waits for running handlers (they run under RCU-sched). */
	unregister_kprobes(probes, ARRAY_SIZE(probes));
}
