// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: DCQCN parameters per RDMA device, named, scaled and defaulted
 * as mlx5's debugfs cc_params, set and shown over netlink.
 *
 * The parameters are part of each device's entry in the module's one
 * device registry (dev.c), created with the defaults when a device appears
 * and freed when it goes away. The packet path reads them locklessly;
 * dumps and writers hold the registry lock.
 */
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sch_generic.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "netlink.h"

/*
 * The ranges (checks: min/max) and defaults (each attribute's doc) are in
 * the YNL spec: the generated policy enforces the ranges and dcqcn-gen.h
 * holds the defaults.
 */

static struct net_device *dcqcn_netdev(const struct rocepath_dcqcn_dev *dd);

/*
 * The reaction point's ceiling follows the link speed of the net device
 * under a soft-RoCE device. Reading it needs RTNL, which neither the
 * packet path nor the device registry's callbacks may take, so a work
 * item reads it and the packet path reads the copy.
 */
static void dcqcn_link_work(struct work_struct *work)
{
	struct rocepath_dcqcn_dev *dd = container_of(work, struct rocepath_dcqcn_dev,
						     link_work);
	struct ethtool_link_ksettings ks;
	struct net_device *ndev;
	u32 mbps = 0;

	ndev = dcqcn_netdev(dd);
	if (!ndev)
		return;
	rtnl_lock();
	if (!__ethtool_get_link_ksettings(ndev, &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;
	rtnl_unlock();
	dev_put(ndev);
	WRITE_ONCE(dd->link_mbps, mbps);
}

void rocepath_dcqcn_dev_init(struct rocepath_dcqcn_dev *dd,
			     struct ib_device *ibdev)
{
	int i;

	dd->ibdev = ibdev;
	dd->soft = ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	INIT_WORK(&dd->link_work, dcqcn_link_work);
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		dd->p[i] = rocepath_dcqcn_defaults[i];
}

/* Read the link speed again (soon, from a work item). */
void rocepath_dcqcn_link_changed(struct rocepath_dcqcn_dev *dd)
{
	if (dd->soft)
		schedule_work(&dd->link_work);
}

/* Before the device's entry is freed: no read of its speed still runs. */
void rocepath_dcqcn_dev_stop(struct rocepath_dcqcn_dev *dd)
{
	cancel_work_sync(&dd->link_work);
}

/* The net device under a soft-RoCE device, held, or NULL. */
static struct net_device *dcqcn_netdev(const struct rocepath_dcqcn_dev *dd)
{
	struct net_device *ndev, *found = NULL;
	struct ib_device *ibdev;

	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
		if (!ibdev)
			continue;
		if (ibdev == dd->ibdev) {
			found = ndev;
			dev_hold(found);
		}
		ib_device_put(ibdev);
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * True when every transmit queue of @ndev ends in fq, which honours EDT
 * stamps. A queue's qdisc is the root for a single-queue root (fq itself)
 * and the root's child for mq, which gives each queue its own: so an mq
 * root over fq children is fine, and one child of another kind is not.
 */
static bool dcqcn_fq_ok(struct net_device *ndev)
{
	unsigned int i;
	bool ok = true;

	/* txq->qdisc is never NULL: noop_qdisc while the device is down */
	rcu_read_lock();
	for (i = 0; ok && i < ndev->real_num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(ndev, i);

		ok = !strcmp(rcu_dereference(txq->qdisc)->ops->id, "fq");
	}
	rcu_read_unlock();
	return ok;
}

static int dcqcn_fill(struct sk_buff *skb, const void *obj,
		      const struct rocepath_dump *d)
{
	const struct rocepath_dcqcn_dev *dd = obj;
	char name[IB_DEVICE_NAME_MAX];
	struct net_device *ndev;
	struct nlattr *nest;
	bool fq;
	int i;

	nest = nla_nest_start(skb, ROCEPATH_A_DCQCN);
	if (!nest)
		return -EMSGSIZE;
	rocepath_dcqcn_dev_name(dd, name);
	if (nla_put_string(skb, ROCEPATH_A_DCQCN_IBDEV, name))
		goto cancel;
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		if (nla_put_u32(skb, ROCEPATH_DCQCN_ATTR(i), rocepath_dcqcn_param(dd, i)))
			goto cancel;
	if (nla_put_u8(skb, ROCEPATH_A_DCQCN_SOFT, dd->soft))
		goto cancel;
	if (dd->soft && rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_ENABLE)) {
		ndev = dcqcn_netdev(dd);
		fq = ndev && dcqcn_fq_ok(ndev);
		dev_put(ndev);
		if (nla_put_u8(skb, ROCEPATH_A_DCQCN_FQ_MISSING, !fq))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* A list is a table of one device per bucket: bucket @b is the b-th. */
static bool dcqcn_walk(struct rocepath_dump *d, unsigned long b)
{
	struct rocepath_dcqcn_dev *dd = rocepath_dev_dcqcn_nth(b);
	char name[IB_DEVICE_NAME_MAX];

	if (!dd)
		return false;
	rocepath_dcqcn_dev_name(dd, name);
	if (!d->ibdev || !strcmp(name, d->ibdev))
		rocepath_dump_obj(d, dd);
	return true;
}

/*
 * One message per device. The helper resumes at the device that did not
 * fit (the old loop ended the dump there instead when it was the first of
 * a later pass, and failed it when it was the very first).
 */
int rocepath_nl_dcqcn_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	int ret;

	rocepath_dev_lock();
	ret = rocepath_dump_run(skb, cb, rocepath_dev_generation(), dcqcn_walk,
				dcqcn_fill);
	rocepath_dev_unlock();
	return ret;
}

int rocepath_nl_dcqcn_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[ROCEPATH_A_DCQCN_MAX + 1];
	struct rocepath_dcqcn_dev *dd;
	u32 val[ROCEPATH_DCQCN_NPARAMS];
	int err, i;

	if (GENL_REQ_ATTR_CHECK(info, ROCEPATH_A_DCQCN))
		return -EINVAL;
	/* Ranges are the policy's (from the spec): out of range never gets here. */
	err = nla_parse_nested(tb, ROCEPATH_A_DCQCN_MAX, info->attrs[ROCEPATH_A_DCQCN],
			       rocepath_dcqcn_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[ROCEPATH_A_DCQCN_IBDEV]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ROCEPATH_A_DCQCN],
				    "dcqcn set needs the device name");
		return -EINVAL;
	}
	for (i = ROCEPATH_A_DCQCN_SOFT; i <= ROCEPATH_A_DCQCN_FQ_MISSING; i++) {
		if (tb[i]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[i],
					    "attribute is output only");
			return -EINVAL;
		}
	}

	rocepath_dev_lock();
	dd = rocepath_dev_dcqcn_by_name(nla_data(tb[ROCEPATH_A_DCQCN_IBDEV]));
	if (!dd) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[ROCEPATH_A_DCQCN_IBDEV],
				    "no such rdma device");
		err = -ENODEV;
		goto unlock;
	}
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		val[i] = tb[ROCEPATH_DCQCN_ATTR(i)] ? nla_get_u32(tb[ROCEPATH_DCQCN_ATTR(i)]) :
					     dd->p[i];
	/*
	 * Cross-field: the policy checks each value on its own. Userspace
	 * has the same rule in rp_dcqcn_check() (daemon/lib/objs.c).
	 */
	if (val[ROCEPATH_DCQCN_RP_MAX_RATE] &&
	    val[ROCEPATH_DCQCN_RP_MIN_RATE] > val[ROCEPATH_DCQCN_RP_MAX_RATE]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[ROCEPATH_DCQCN_ATTR(ROCEPATH_DCQCN_RP_MIN_RATE)] ?:
				    tb[ROCEPATH_DCQCN_ATTR(ROCEPATH_DCQCN_RP_MAX_RATE)],
				    "rp_min_rate above rp_max_rate");
		err = -ERANGE;
		goto unlock;
	}
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		WRITE_ONCE(dd->p[i], val[i]);
	rocepath_dev_changed();
	/* an operator tuning the device may just have set its speed */
	rocepath_dcqcn_link_changed(dd);
	if (dd->soft && val[ROCEPATH_DCQCN_RP_ENABLE]) {
		struct net_device *ndev = dcqcn_netdev(dd);

		if (ndev && !dcqcn_fq_ok(ndev))
			pr_warn_once("%s: rp_enable set but %s has no fq qdisc on every queue: rates are not enforced (tc qdisc replace dev %s root fq)\n",
				     (char *)nla_data(tb[ROCEPATH_A_DCQCN_IBDEV]), ndev->name,
				     ndev->name);
		dev_put(ndev);
	}
unlock:
	rocepath_dev_unlock();
	return err;
}
