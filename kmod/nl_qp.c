// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the qp-get request (the QP table is qp.c's).
 */
#include <net/genetlink.h>

#include "netlink.h"
#include "qp.h"

/*
 * One message per QP; qp_generation flags a dump racing a change. A caller
 * without CAP_NET_ADMIN sees only the QPs its uid owns: a QPN and its peer
 * are what the receive path's forged-packet check treats as secret.
 */
int rocepath_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	int ret;

	if (!cb->args[0])
		rocepath_qp_settle_pending();

	rcu_read_lock();
	ret = rocepath_dump_run(skb, cb, rocepath_qp_generation(),
				rocepath_qp_dump_walk, rocepath_qp_dump_fill);
	rcu_read_unlock();
	return ret;
}
