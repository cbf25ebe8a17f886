// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the family's registration. Its op table (netlink-ops-gen.h,
 * from the spec) names every request handler (nl_*.c), which is why it
 * is here, above them, and not with the family in netlink.c, which the
 * tables below the handlers send on. A closed netlink socket's
 * pin-replace staging set goes with it, from here too.
 */
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "netlink.h"
#include "netlink-ops-gen.h"
#include "nl_family.h"
#include "pin.h"

/* A netlink socket closed: its pin-replace staging set goes with it. */
static int nl_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net))
		rocepath_pin_release(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block nl_notifier = {
	.notifier_call = nl_event,
};

int rocepath_nl_init(void)
{
	int err;

	rocepath_nl_ntf_init();
	err = netlink_register_notifier(&nl_notifier);
	if (err)
		return err;
	/*
	 * Each op brings its own policy; resv_start_op stays 0, so an op
	 * without one (pin-get, pin-flush, stats-get) takes no attribute.
	 */
	rocepath_nl_family.ops = rocepath_nl_op_table;
	rocepath_nl_family.n_ops = ARRAY_SIZE(rocepath_nl_op_table);
	err = genl_register_family(&rocepath_nl_family);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	netlink_unregister_notifier(&nl_notifier);
	return err;
}

void rocepath_nl_exit(void)
{
	rocepath_nl_ntf_exit();
	genl_unregister_family(&rocepath_nl_family);
	netlink_unregister_notifier(&nl_notifier);
}
