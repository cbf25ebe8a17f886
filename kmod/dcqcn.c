// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: DCQCN parameters per RDMA device, named, scaled and defaulted
 * as mlx5's debugfs cc_params; set and shown over netlink by nl_dcqcn.c.
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
#include <net/sch_generic.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"

/*
 * The ranges (checks: min/max) and defaults (each attribute's doc) are in
 * the YNL spec: the generated policy enforces the ranges and dcqcn-gen.h
 * holds the defaults.
 */

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

	ndev = rocepath_dcqcn_netdev(dd);
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
struct net_device *rocepath_dcqcn_netdev(const struct rocepath_dcqcn_dev *dd)
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
bool rocepath_dcqcn_fq_ok(struct net_device *ndev)
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
