// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the flow-get and flow-reset requests (the flow table is
 * flow.c's).
 */
#include <net/genetlink.h>

#include "flow.h"
#include "netlink.h"

/* One message per flow; flow_generation flags a dump racing a change. */
int rocepath_nl_flow_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	int ret;

	rcu_read_lock();
	ret = rocepath_dump_run(skb, cb, rocepath_flow_generation(),
				rocepath_flow_dump_walk, rocepath_flow_dump_fill);
	rcu_read_unlock();
	return ret;
}

int rocepath_nl_flow_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = NULL;

	if (info->attrs[ROCEPATH_A_IBDEV])
		name = nla_data(info->attrs[ROCEPATH_A_IBDEV]);
	rocepath_flow_reset(name);
	return 0;
}
