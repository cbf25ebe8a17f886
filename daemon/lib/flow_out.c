// SPDX-License-Identifier: GPL-2.0
/* One flow record for `rocepath flow show` (flow_out.h). */
#include <stdio.h>

#include "flow_out.h"

void rp_flow_print(struct rp_out *o, const struct rp_flow *f)
{
	char buf[RP_ADDR_STRLEN];

	rp_out_open_object(o, NULL);
	rp_out_string(o, "dev", "dev %s", f->ibdev);
	rp_out_string(o, "local", " local %s",
		      rp_addr_fmt(&f->local, buf, sizeof(buf)));
	rp_out_string(o, "remote", " remote %s",
		      rp_addr_fmt(&f->remote, buf, sizeof(buf)));
	rp_out_uint(o, "sport", " sport %llu", f->sport);
	if (rp_flow_has_dqpn(f))
		rp_out_uint(o, "dqpn", " dqpn %llu", f->dqpn);
	if (RP_HAS(f, ROCEPATH_A_FLOW_LQPN))
		rp_out_uint(o, "lqpn", " lqpn %llu", f->lqpn);
	for (int a = ROCEPATH_A_FLOW_TX_PACKETS; a <= ROCEPATH_A_FLOW_MAX; a++) {
		const char *name = rp_flow_counter_name(a);
		char fmt[64];

		if (!name)
			continue;
		/* The counters are always there (0); DCQCN state only where it runs. */
		if (a >= ROCEPATH_A_FLOW_RATE_MBPS && !RP_HAS(f, a))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%%s", name,
			 a == ROCEPATH_A_FLOW_RP_PACED ? "s" : "llu");
		if (a == ROCEPATH_A_FLOW_RP_PACED)
			rp_out_bool(o, name, fmt, f->val[a]);
		else
			rp_out_uint(o, name, fmt, f->val[a]);
	}
	rp_out_close_object(o);
	rp_out_nl(o);
}
