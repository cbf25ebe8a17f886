// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: pin RoCEv2 QPs to planned UDP source ports, count ECN and CNPs
 * per flow, and run a software DCQCN on soft-RoCE.
 *
 * Start-up order: counters, rule set, QP table, flow accounting, the
 * netlink family, the RDMA client (which announces devices on it), and last
 * the hooks, which feed all of the above. Shutdown is the reverse: the
 * hooks go first, so nothing new arrives while the tables are torn down.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "dev.h"
#include "flow.h"
#include "hook.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"
#include "stats.h"

static int __init rocepath_init(void)
{
	int err;

	err = rocepath_stats_init();
	if (err)
		return err;
	err = rocepath_pin_init();
	if (err)
		goto err_stats;
	err = rocepath_qp_init();
	if (err)
		goto err_pin;
	err = rocepath_flow_init();
	if (err)
		goto err_qp;
	err = rocepath_nl_init();
	if (err)
		goto err_flow;
	err = rocepath_dev_init();
	if (err)
		goto err_nl;
	err = rocepath_hook_init();
	if (err)
		goto err_dev;
	return 0;

err_dev:
	rocepath_dev_exit();
err_nl:
	rocepath_nl_exit();
err_flow:
	rocepath_flow_exit();
err_qp:
	rocepath_qp_exit();
err_pin:
	rocepath_pin_exit();
err_stats:
	rocepath_stats_exit();
	return err;
}

static void __exit rocepath_exit(void)
{
	rocepath_hook_exit();
	rocepath_dev_exit();
	rocepath_nl_exit();
	rocepath_flow_exit();
	rocepath_qp_exit();
	rocepath_pin_exit();
	rocepath_stats_exit();
	rcu_barrier();
}

module_init(rocepath_init);
module_exit(rocepath_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Pin RoCEv2 queue pairs to planned UDP source ports (ECMP paths)");
