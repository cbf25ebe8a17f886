// SPDX-License-Identifier: GPL-2.0
/* rocepath flow show [dev IBDEV] | flow reset [dev IBDEV] */
#include <string.h>

#include "cli.h"
#include "nl.h"

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

static int flow_show(int argc, char **argv, const struct rp_cli *cli)
{
	struct rp_flows flows = { 0 };
	const char *ibdev;
	struct rp_nl *nl;
	int ret;

	ret = cli_dev_filter(argc, argv, "flow show", &ibdev);
	if (ret)
		return ret;
	ret = cli_nl_open(cli, &nl);
	if (ret)
		return ret;
	ret = rp_flow_dump(nl, ibdev, &flows);
	if (ret) {
		cli_nl_err(nl, ret, "flow show");
		goto out;
	}
	rp_out_open_array(cli->out, NULL);
	for (size_t i = 0; i < flows.n; i++)
		flow_print(cli->out, &flows.v[i]);
	rp_out_close_array(cli->out);
out:
	rp_flows_free(&flows);
	rp_nl_close(nl);
	return ret;
}

static int flow_reset(int argc, char **argv, const struct rp_cli *cli)
{
	const char *ibdev;
	struct rp_nl *nl;
	int ret;

	ret = cli_dev_filter(argc, argv, "flow reset", &ibdev);
	if (ret)
		return ret;
	ret = cli_nl_open(cli, &nl);
	if (ret)
		return ret;
	ret = rp_flow_reset(nl, ibdev);
	if (ret)
		cli_nl_err(nl, ret, "flow reset");
	rp_nl_close(nl);
	return ret;
}

int cmd_flow(int argc, char **argv, const struct rp_cli *cli)
{
	if (argc < 1 || rp_matches(argv[0], "show") || rp_matches(argv[0], "list"))
		return flow_show(argc ? argc - 1 : 0, argv + !!argc, cli);
	if (rp_matches(argv[0], "reset"))
		return flow_reset(argc - 1, argv + 1, cli);
	if (rp_matches(argv[0], "help")) {
		printf("Usage: rocepath flow show [dev IBDEV]\n"
		       "       rocepath flow reset [dev IBDEV]\n");
		return 0;
	}
	return rp_error("flow: unknown command \"%s\", try \"rocepath flow help\"",
			argv[0]);
}
