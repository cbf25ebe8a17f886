// SPDX-License-Identifier: GPL-2.0
/* rocepath flow show [dev IBDEV] | flow reset [dev IBDEV] */
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"

static void flow_print(struct rp_out *o, const struct rp_flow *f)
{
	char buf[RP_ADDR_STRLEN];

	rp_out_open_object(o, NULL);
	rp_out_string(o, "dev", "dev %s", f->ibdev);
	rp_out_string(o, "local", " local %s",
		      rp_addr_fmt(&f->local, buf, sizeof(buf)));
	rp_out_string(o, "remote", " remote %s",
		      rp_addr_fmt(&f->remote, buf, sizeof(buf)));
	rp_out_uint(o, "sport", " sport %llu", f->sport);
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

CLI_DUMP_PRINT(flow_dump_print, struct rp_flows, rp_flow_dump, flow_print, rp_flows_free)

static int flow_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "flow show", .by_dev = true, .dump_print = flow_dump_print,
	};

	return cli_show(&show, argc, argv, cli);
}

static int flow_reset(int argc, char **argv, const struct rp_cli *cli)
{
	return cli_do("flow reset", true, rp_flow_reset, argc, argv, cli);
}

static void flow_usage(void)
{
	printf("Usage: rocepath flow show [dev IBDEV]\n"
	       "       rocepath flow reset [dev IBDEV]\n");
}

int cmd_flow(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_verb verbs[] = {
		{ "show", flow_show }, { "list", flow_show },
		{ "reset", flow_reset }, { NULL, NULL },
	};

	return cli_dispatch("flow", verbs, flow_usage, argc, argv, cli);
}
