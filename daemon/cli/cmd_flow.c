// SPDX-License-Identifier: GPL-2.0
/* rocepath flow show [dev IBDEV] | flow reset [dev IBDEV] */
#include <string.h>

#include "cli.h"
#include "flow_out.h"
#include "rp_netlink.h"

CLI_DUMP_PRINT(flow_dump_print, struct rp_flows, rp_flow_dump, rp_flow_print, rp_flows_free)

static int flow_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "flow show", .by_dev = true, .dump_print = flow_dump_print,
		.own = "flows of live QPs",
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
