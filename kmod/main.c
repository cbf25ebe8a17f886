// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: pin RoCEv2 QPs to planned UDP source ports, count ECN and CNPs
 * per flow, and run a software DCQCN on soft-RoCE.
 *
 * Start-up order: counters, rule set, QP table, flow table, the netlink
 * family, the device registry's ib_client (dev_client.c, which announces
 * devices on the family), then what feeds them all: the netfilter hooks
 * and last the QP probes. Shutdown is the reverse, so nothing new arrives
 * while the tables are torn down; both feeders look devices up in the
 * registry through ib_get_client_data(), valid only while its client is
 * registered.
 *
 * What each exit step waits for, so no CPU runs module code once it is
 * freed: unregister_ftrace_function() waits for running entry hooks and
 * unregister_kretprobes() for running return handlers; the
 * hooks' exit calls synchronize_net() for packets inside them
 * (nf_unregister_net_hooks() does not wait for those); the registry and
 * the flow table rcu_barrier() for their call_rcu() callbacks. kfree_rcu()
 * runs no module code; the last rcu_barrier() only makes the tables'
 * memory free by the time rmmod returns, where a leak check looks.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "dev_client.h"
#include "flow.h"
#include "nl_family.h"
#include "pin.h"
#include "qp.h"
#include "qp_probe.h"
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
	err = rocepath_dev_client_init();
	if (err)
		goto err_nl;
	err = rocepath_flow_hooks_init();
	if (err)
		goto err_dev;
	err = rocepath_qp_probe_init();
	if (err)
		goto err_hooks;
	return 0;

err_hooks:
	rocepath_flow_hooks_exit();
err_dev:
	rocepath_dev_client_exit();
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
	rocepath_qp_probe_exit();
	rocepath_flow_hooks_exit();
	rocepath_dev_client_exit();
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
