// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the pinning probes.
 *
 * A return probe on the RDMA core's static _ib_modify_qp(qp, attr,
 * attr_mask, udata), which both ib_modify_qp() (kernel ULPs, rdma_cm) and
 * ib_modify_qp_with_udata() (uverbs) call before the driver's modify_qp.
 * When a RoCEv2 RC, UC or XRC QP gets its address vector and destination
 * QPN (IB_QP_AV | IB_QP_DEST_QPN, normally INIT->RTR), the entry handler
 * sets ah_attr.grh.flow_label so that the driver derives the planned UDP
 * source port from it (rdma_flow_label_to_udp_sport()) and records the QP
 * as pending; the return handler makes the record live if the driver
 * accepted the modify and drops it if not. A return probe on
 * ib_destroy_qp_user() likewise forgets a QP only once it is destroyed.
 *
 * Before arming anything, the signatures and the fields the handlers use
 * are checked against the kernel's BTF (btf_check.c), and the probes must
 * be ftrace-based: there the handlers run in the probed task's context
 * with preemption disabled, where GFP_ATOMIC allocations, kfree_rcu(),
 * queue_work() and spinlocks are allowed. Behind an int3 breakpoint they
 * would not be, and on PREEMPT_RT spinlocks sleep: the module refuses both.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "btf_check.h"
#include "dev.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"
#include "qp_probe.h"
#include "stats.h"

static unsigned int probe_slots = 1024;
module_param(probe_slots, uint, 0444);
MODULE_PARM_DESC(probe_slots,
		 "Modify- and destroy-QP calls each probe watches at once (16..65536, default 1024); a call beyond is not pinned and is counted");

#define PROBE_SLOTS_MIN		16
#define PROBE_SLOTS_MAX		65536
#define AV_DEST			(IB_QP_AV | IB_QP_DEST_QPN)

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
		rocepath_nl_ntf_drop(skb);
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

/*
 * The entry half of a modify: pin and record the QP. Returns the pending
 * record's id, 0 when there is nothing to settle at the return.
 */
static u64 modify(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_gid_attr *sgid, *held = NULL;
	struct ib_device *ibdev = qp->device;
	struct rocepath_qp_info info = {};
	const struct rocepath_pin *rule;
	struct ib_global_route *grh;
	struct net_device *ndev;
	u32 port;
	u64 id;

	port = rdma_ah_get_port_num(ah);
	if (!connected(qp) || ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) ||
	    !rdma_is_port_valid(ibdev, port) ||
	    !rdma_protocol_roce(ibdev, port))
		goto skip;
	/* Not for a device that is going away: its records are being dropped. */
	if (!rocepath_dev_name(ibdev, info.ibdev, sizeof(info.ibdev)))
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
	id = rocepath_qp_begin(qp, &info, rule ? rule->sports : NULL,
			       rule ? rule->nsports : 0);
	rcu_read_unlock();

	if (rule) {
		if (grh->flow_label)
			rocepath_stat_inc(ROCEPATH_STAT_FL_OVERRIDDEN);
		grh->flow_label = sport_to_flow_label(info.sport);
		rocepath_stat_inc(ROCEPATH_STAT_QPS_PINNED);
	} else {
		rocepath_stat_inc(ROCEPATH_STAT_RULE_MISSES);
	}
	if (!id)
		rocepath_stat_inc(ROCEPATH_STAT_QPS_UNTRACKED);
	return id;

skip_put:
	if (held)
		rdma_put_gid_attr(held);
skip:
	rocepath_stat_inc(ROCEPATH_STAT_QPS_SKIPPED);
	return 0;
}

/* What a return probe keeps of one call (ri->data). */
struct probe_call {
	const struct ib_qp *qp;
	u64 id;
};

/* _ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, ...) */
static int modify_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;
	struct ib_qp *qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	int mask = (int)regs_get_kernel_argument(regs, 2);
	struct ib_qp_attr *attr;

	rocepath_stat_inc(ROCEPATH_STAT_HOOK_CALLS);
	if ((mask & AV_DEST) != AV_DEST)
		return 1;
	attr = (struct ib_qp_attr *)regs_get_kernel_argument(regs, 1);
	call->qp = qp;
	call->id = modify(qp, attr);
	/* Non-zero: no return handler for this call. */
	return !call->id;
}

static int modify_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;
	bool ok = !regs_return_value(regs);
	struct rocepath_qp_info gone, live;
	unsigned int done;

	done = rocepath_qp_end(call->qp, call->id, ok, &gone, &live);
	if (!ok) {
		/* Never announced, so nothing to withdraw. */
		if (done & ROCEPATH_QP_REMOVED)
			rocepath_stat_inc(ROCEPATH_STAT_QPS_ROLLED_BACK);
		return 0;
	}
	if (done & ROCEPATH_QP_REMOVED)
		notify_qp(ROCEPATH_CMD_QP_DEL_NTF, &gone);
	if (done & ROCEPATH_QP_ADDED)
		notify_qp(ROCEPATH_CMD_QP_ADD_NTF, &live);
	return 0;
}

/* ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata) */
static int destroy_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;

	call->qp = (const struct ib_qp *)regs_get_kernel_argument(regs, 0);
	call->id = rocepath_qp_destroy_begin(call->qp);
	return !call->id;
}

static int destroy_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;
	struct rocepath_qp_info info;

	if (rocepath_qp_destroy_end(call->qp, call->id, !regs_return_value(regs),
				    &info))
		notify_qp(ROCEPATH_CMD_QP_DEL_NTF, &info);
	return 0;
}

static struct kretprobe modify_rp = {
	.kp.symbol_name	= "_ib_modify_qp",
	.entry_handler	= modify_entry,
	.handler	= modify_ret,
	.data_size	= sizeof(struct probe_call),
};

static struct kretprobe destroy_rp = {
	.kp.symbol_name	= "ib_destroy_qp_user",
	.entry_handler	= destroy_entry,
	.handler	= destroy_ret,
	.data_size	= sizeof(struct probe_call),
};

static struct kretprobe *probes[] = { &destroy_rp, &modify_rp };

void rocepath_qp_probe_stats(struct rocepath_probe_stats *s)
{
	unsigned int i;

	s->slots = probe_slots;
	s->missed = 0;
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		s->missed += READ_ONCE(probes[i]->nmissed);
}

int rocepath_qp_probe_init(void)
{
	unsigned int s, i;
	int err;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("refusing to load: on PREEMPT_RT the probe handlers' spinlocks would sleep with preemption disabled\n");
		return -EOPNOTSUPP;
	}
	if (probe_slots < PROBE_SLOTS_MIN || probe_slots > PROBE_SLOTS_MAX) {
		pr_err("probe_slots must be %u..%u\n", PROBE_SLOTS_MIN,
		       PROBE_SLOTS_MAX);
		return -EINVAL;
	}
	for (s = 0xc000; s <= 0xffff; s++) {
		if (rdma_flow_label_to_udp_sport(sport_to_flow_label(s)) != s) {
			pr_err("flow label mapping broken for port %u\n", s);
			return -EINVAL;
		}
	}
	err = rocepath_btf_check();
	if (err)
		return err;

	/*
	 * Registered disarmed: whether a probe is ftrace-based is known only
	 * once it is registered, and a handler must never run behind a
	 * breakpoint, not even until the check below refuses it.
	 */
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		probes[i]->maxactive = probe_slots;
		probes[i]->kp.flags = KPROBE_FLAG_DISABLED;
	}
	err = register_kretprobes(probes, ARRAY_SIZE(probes));
	if (err) {
		pr_err("cannot probe _ib_modify_qp/ib_destroy_qp_user: %d\n",
		       err);
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!kprobe_ftrace(&probes[i]->kp)) {
			pr_err("refusing to load: the probe on %s is not ftrace-based (needs CONFIG_KPROBES_ON_FTRACE and a traceable function); its handlers are not safe behind a breakpoint\n",
			       probes[i]->kp.symbol_name);
			err = -EOPNOTSUPP;
			goto err_unregister;
		}
	}
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		err = enable_kretprobe(probes[i]);
		if (err) {
			pr_err("cannot arm the probe on %s: %d\n",
			       probes[i]->kp.symbol_name, err);
			goto err_unregister;
		}
	}
	return 0;

err_unregister:
	unregister_kretprobes(probes, ARRAY_SIZE(probes));
	return err;
}

/*
 * Waits for running handlers (they run with preemption disabled). Calls
 * still inside the driver after this return through the kernel's return
 * trampoline without our handler; their pending or dying records are
 * freed with the QP table.
 */
void rocepath_qp_probe_exit(void)
{
	unregister_kretprobes(probes, ARRAY_SIZE(probes));
}
