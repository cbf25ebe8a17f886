// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the pinning hooks.
 *
 * The RDMA core's static _ib_modify_qp(qp, attr, attr_mask, udata) is
 * where both ib_modify_qp() (kernel ULPs, rdma_cm) and
 * ib_modify_qp_with_udata() (uverbs) pass before the driver's modify_qp.
 * When a RoCEv2 RC, UC or XRC QP gets its address vector and destination
 * QPN (IB_QP_AV | IB_QP_DEST_QPN, normally INIT->RTR), the entry hook sets
 * ah_attr.grh.flow_label so that the driver derives the planned UDP source
 * port from it (rdma_flow_label_to_udp_sport()) and records the QP as
 * pending. The entry hook on ib_destroy_qp_user() marks its record dying.
 *
 * Entry hooks are ftrace_ops callbacks: they run in the calling task with
 * preemption disabled, on every call, and need no per-call resource, so no
 * other user can make a modify go unpinned. kprobes cannot promise that:
 * a return probe's slots are a pool any local user can hold by sleeping in
 * a modify (uverbs is open to all), and on arm64 there are no ftrace-based
 * kprobes, so their handlers would run in the breakpoint exception.
 *
 * The driver's verdict only settles the bookkeeping. It comes from a
 * return probe whose entry handler reads two registers and nothing else
 * (safe in a breakpoint exception), and whose return handler runs from the
 * return trampoline in the task. When the return probe had no slot, the
 * record is settled from the QP's own state (qp.c), and the miss counted.
 *
 * Before anything is armed, the signatures and the fields the hooks use
 * are checked against the kernel's BTF (btf_check.c), and the functions
 * are looked up in ib_core alone.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "btf_check.h"
#include "dev.h"
#include "pin.h"
#include "qp.h"
#include "qp_probe.h"
#include "stats.h"

static unsigned int probe_slots = 1024;
module_param(probe_slots, uint, 0444);
MODULE_PARM_DESC(probe_slots,
		 "Modify- and destroy-QP returns each return probe watches at once (16..65536, and at most 16 MiB of per-CPU rings per probe, default 1024); a return beyond is settled from the QP's state and counted");

#define PROBE_SLOTS_MIN		16
#define PROBE_SLOTS_MAX		65536
#define AV_DEST			(IB_QP_AV | IB_QP_DEST_QPN)
/*
 * From 6.7 a kretprobe's instances sit in an objpool, whose every possible
 * CPU has a ring of roundup_pow_of_two(slots) pointers: 65536 slots on a
 * 256-CPU host would pin 128 MiB per probe. Slots only keep verdicts (the
 * pin is set by the entry hook), so a cap by memory costs no pin.
 */
#define PROBE_RING_BYTES_MAX	(16UL << 20)

static unsigned int probe_slots_max(void)
{
	unsigned long per_slot = sizeof(void *) * num_possible_cpus();
	unsigned long fit = PROBE_RING_BYTES_MAX / per_slot;

	if (fit < PROBE_SLOTS_MIN)
		return PROBE_SLOTS_MIN;
	fit = rounddown_pow_of_two(fit);
	return min_t(unsigned long, fit, PROBE_SLOTS_MAX);
}

/* Flow label that makes the driver derive UDP source port @sport. */
static u32 sport_to_flow_label(u16 sport)
{
	u32 fl = sport & 0x3fff;

	/* 0 means "derive from the QPNs"; 0x4001 folds to 0xC000 too. */
	return fl ? fl : 0x4001;
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

/* The entry half of a modify: pin and record the QP. */
static void modify(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_gid_attr *sgid, *held = NULL;
	struct ib_device *ibdev = qp->device;
	struct rocepath_qp_info info = {};
	const struct rocepath_pin *rule;
	struct ib_global_route *grh;
	struct net_device *ndev;
	bool tracked;
	u32 port;

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

	/* The address a received packet must be sent to, to count as the QP's. */
	memcpy(&info.local, sgid->gid.raw, sizeof(info.local));
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
	/* @sgid is compared by address only from here on. */
	tracked = rocepath_qp_begin(qp, &info, rule ? rule->sports : NULL,
				    rule ? rule->nsports : 0, sgid);
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
	return;

skip_put:
	if (held)
		rdma_put_gid_attr(held);
skip:
	rocepath_stat_inc(ROCEPATH_STAT_QPS_SKIPPED);
}

/*
 * Arguments from the tracer: the ftrace_regs accessor where the kernel has
 * one (a macro on x86-64 from 6.2; arm64 has it wherever it traces with
 * arguments only, and nothing else there), else the pt_regs that
 * FTRACE_OPS_FL_SAVE_REGS asks for (6.1 on x86-64 and arm64).
 */
#if defined(ftrace_regs_get_argument) || \
	(defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
#define HOOK_FLAGS	FTRACE_OPS_FL_RECURSION
static bool hook_args(struct ftrace_regs *fregs, unsigned long *a,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		a[i] = ftrace_regs_get_argument(fregs, i);
	return true;
}
#else
#define HOOK_FLAGS	(FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS)
static bool hook_args(struct ftrace_regs *fregs, unsigned long *a,
		      unsigned int n)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned int i;

	if (!regs)
		return false;
	for (i = 0; i < n; i++)
		a[i] = regs_get_kernel_argument(regs, i);
	return true;
}
#endif

static struct ftrace_ops destroy_ops;

/*
 * Both entry hooks: _ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr
 * *attr, int mask, ...) and ib_destroy_qp_user(struct ib_qp *qp, ...).
 */
static void hook(unsigned long ip, unsigned long parent_ip,
		 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	unsigned long a[3];
	int bit;

	/* Disables preemption too, until the unlock. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		rocepath_stat_inc(ROCEPATH_STAT_HOOK_MISSED);
		return;
	}
	if (!hook_args(fregs, a, ARRAY_SIZE(a))) {
		rocepath_stat_inc(ROCEPATH_STAT_HOOK_MISSED);
	} else if (op == &destroy_ops) {
		rocepath_qp_destroy_begin((const struct ib_qp *)a[0]);
	} else {
		rocepath_stat_inc(ROCEPATH_STAT_HOOK_CALLS);
		if (((int)a[2] & AV_DEST) == AV_DEST)
			modify((struct ib_qp *)a[0], (struct ib_qp_attr *)a[1]);
	}
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops modify_ops = {
	.func	= hook,
	.flags	= HOOK_FLAGS,
};

static struct ftrace_ops destroy_ops = {
	.func	= hook,
	.flags	= HOOK_FLAGS,
};

/*
 * What a return probe keeps of one call (ri->data). The entry handlers may
 * run in a breakpoint exception (arm64, or x86-64 without ftrace-based
 * kprobes): they read registers and write here, nothing else.
 */
struct probe_call {
	const struct ib_qp *qp;
};

static int modify_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;

	/* Non-zero: no return handler for this call. */
	if (((int)regs_get_kernel_argument(regs, 2) & AV_DEST) != AV_DEST)
		return 1;
	call->qp = (const struct ib_qp *)regs_get_kernel_argument(regs, 0);
	return 0;
}

static int modify_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;

	rocepath_qp_end(call->qp, !(int)regs_return_value(regs));
	return 0;
}

static int destroy_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;

	call->qp = (const struct ib_qp *)regs_get_kernel_argument(regs, 0);
	return 0;
}

static int destroy_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct probe_call *call = (struct probe_call *)ri->data;

	rocepath_qp_destroy_end(call->qp, !(int)regs_return_value(regs));
	return 0;
}

static struct kretprobe modify_rp = {
	.entry_handler	= modify_entry,
	.handler	= modify_ret,
	.data_size	= sizeof(struct probe_call),
};

static struct kretprobe destroy_rp = {
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
	/* Slots exhausted (nmissed) and recursions (kp.nmissed) alike. */
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		s->missed += READ_ONCE(probes[i]->nmissed) +
			     READ_ONCE(probes[i]->kp.nmissed);
}

/* A hooked function: its name, and where the lookup must find it. */
struct hooked {
	const char *name;
	struct kretprobe *rp;
	struct ftrace_ops *ops;
	char sym[KSYM_NAME_LEN];
};

static struct hooked hooked[] = {
	{ "_ib_modify_qp", &modify_rp, &modify_ops },
	{ "ib_destroy_qp_user", &destroy_rp, &destroy_ops },
};

/*
 * Name the function as ib_core's ("ib_core:_ib_modify_qp"), so that a
 * static function of the same name elsewhere is never hooked; when ib_core
 * is built in, the name must resolve to the kernel image itself.
 */
static int hooked_register(struct hooked *h)
{
	struct kretprobe *rp = h->rp;
	int err;

	rp->maxactive = probe_slots;
	rp->kp.flags = KPROBE_FLAG_DISABLED;
	snprintf(h->sym, sizeof(h->sym), "ib_core:%s", h->name);
	rp->kp.symbol_name = h->sym;
	err = register_kretprobe(rp);
	if (err == -ENOENT || err == -EINVAL) {
		if (IS_MODULE(CONFIG_INFINIBAND))
			return -ENOENT;
		memset(&rp->kp, 0, sizeof(rp->kp));
		rp->kp.flags = KPROBE_FLAG_DISABLED;
		rp->kp.symbol_name = h->name;
		err = register_kretprobe(rp);
		if (!err && __module_address((unsigned long)rp->kp.addr)) {
			unregister_kretprobe(rp);
			return -ENOENT;
		}
	}
	return err;
}

int rocepath_qp_probe_init(void)
{
	unsigned int s, i, n;
	int err;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("refusing to load: on PREEMPT_RT the hooks' spinlocks would sleep with preemption disabled\n");
		return -EOPNOTSUPP;
	}
	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE)) {
		pr_err("refusing to load: the pinning hook needs CONFIG_DYNAMIC_FTRACE\n");
		return -EOPNOTSUPP;
	}
	if (probe_slots < PROBE_SLOTS_MIN || probe_slots > probe_slots_max()) {
		pr_err("probe_slots must be %u..%u on this host (%u possible CPUs, at most %lu MiB of per-CPU rings per probe)\n",
		       PROBE_SLOTS_MIN, probe_slots_max(), num_possible_cpus(),
		       PROBE_RING_BYTES_MAX >> 20);
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
	 * The return probes are registered disarmed, to resolve each name in
	 * ib_core; the entry hooks filter on the address they found.
	 */
	for (n = 0; n < ARRAY_SIZE(hooked); n++) {
		err = hooked_register(&hooked[n]);
		if (err) {
			pr_err("refusing to load: cannot find %s in ib_core: %d\n",
			       hooked[n].name, err);
			goto err_unregister;
		}
	}
	for (i = 0; i < ARRAY_SIZE(hooked); i++) {
		struct hooked *h = &hooked[i];

		err = ftrace_set_filter_ip(h->ops, (unsigned long)h->rp->kp.addr,
					   0, 0);
		if (!err)
			err = register_ftrace_function(h->ops);
		if (err) {
			pr_err("refusing to load: cannot hook %s with ftrace (needs CONFIG_DYNAMIC_FTRACE%s and a traceable function): %d\n",
			       h->name,
			       HOOK_FLAGS & FTRACE_OPS_FL_SAVE_REGS ?
			       "_WITH_REGS" : "_WITH_ARGS", err);
			goto err_ftrace;
		}
	}
	for (i = 0; i < ARRAY_SIZE(hooked); i++) {
		err = enable_kretprobe(hooked[i].rp);
		if (err) {
			pr_err("cannot arm the return probe on %s: %d\n",
			       hooked[i].name, err);
			goto err_ftrace_all;
		}
	}
	return 0;

err_ftrace_all:
	i = ARRAY_SIZE(hooked);
err_ftrace:
	while (i--)
		unregister_ftrace_function(hooked[i].ops);
	for (i = 0; i < ARRAY_SIZE(hooked); i++)
		ftrace_free_filter(hooked[i].ops);
err_unregister:
	while (n--)
		unregister_kretprobe(hooked[n].rp);
	return err;
}

/*
 * unregister_ftrace_function() waits for running entry hooks. The return
 * probes go next: calls still inside the driver then return through the
 * kernel's trampoline without our handler; their pending or dying records
 * are freed with the QP table.
 */
void rocepath_qp_probe_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hooked); i++) {
		unregister_ftrace_function(hooked[i].ops);
		ftrace_free_filter(hooked[i].ops);
	}
	unregister_kretprobes(probes, ARRAY_SIZE(probes));
}
