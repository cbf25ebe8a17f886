// SPDX-License-Identifier: GPL-2.0
/* rocepath qp show [dev IBDEV] */
#include <string.h>

#include "cli.h"
#include "nl.h"
#include "pins.h"

static const char *qp_type(uint32_t t)
{
	/* enum ib_qp_type */
	static const char *const names[] = {
		[0] = "smi", [1] = "gsi", [2] = "rc", [3] = "uc", [4] = "ud",
		[5] = "raw_ipv6", [6] = "raw_ethertype", [8] = "raw_packet",
		[9] = "xrc_ini", [10] = "xrc_tgt",
	};

	if (t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "unknown";
}

void cli_qp_fields(struct rp_out *o, const struct rp_qp *q)
{
	char buf[RP_ADDR_STRLEN];

	rp_out_string(o, "dev", "%s", q->ibdev);
	if (RP_HAS(q, ROCEPATH_A_QP_PORT))
		rp_out_uint(o, "port", "/%llu", q->port);
	rp_out_uint(o, "lqpn", " lqpn %llu", q->lqpn);
	if (RP_HAS(q, ROCEPATH_A_QP_RQPN))
		rp_out_uint(o, "rqpn", " rqpn %llu", q->rqpn);
	else
		rp_out_null(o, "rqpn", " rqpn %s");
	rp_out_string(o, "remote", " remote %s",
		      rp_addr_fmt(&q->remote, buf, sizeof(buf)));
	if (RP_HAS(q, ROCEPATH_A_QP_SPORT))
		rp_out_uint(o, "sport", " sport %llu", q->sport);
	else
		rp_out_null(o, "sport", " sport %s");
	rp_out_bool(o, "pinned", " pinned %s", q->pinned);
	if (RP_HAS(q, ROCEPATH_A_QP_TYPE))
		rp_out_string(o, "type", " type %s", qp_type(q->type));
	if (RP_HAS(q, ROCEPATH_A_QP_DEFAULT_SPORT))
		rp_out_uint(o, "default_sport", " default_sport %llu",
			    q->default_sport);
	rp_qp_rule_print(o, q);
}

static int qp_show(int argc, char **argv, const struct rp_cli *cli)
{
	struct rp_qps qps = { 0 };
	const char *ibdev;
	struct rp_nl *nl;
	int ret;

	ret = cli_dev_filter(argc, argv, "qp show", &ibdev);
	if (ret)
		return ret;
	ret = cli_nl_open(cli, &nl);
	if (ret)
		return ret;
	ret = rp_qp_dump(nl, ibdev, &qps);
	if (ret) {
		cli_nl_err(nl, ret, "qp show");
		goto out;
	}
	rp_out_open_array(cli->out, NULL);
	for (size_t i = 0; i < qps.n; i++) {
		rp_out_open_object(cli->out, NULL);
		cli_qp_fields(cli->out, &qps.v[i]);
		rp_out_close_object(cli->out);
		rp_out_nl(cli->out);
	}
	rp_out_close_array(cli->out);
out:
	rp_qps_free(&qps);
	rp_nl_close(nl);
	return ret;
}

int cmd_qp(int argc, char **argv, const struct rp_cli *cli)
{
	if (argc < 1 || rp_matches(argv[0], "show") || rp_matches(argv[0], "list"))
		return qp_show(argc ? argc - 1 : 0, argv + !!argc, cli);
	if (rp_matches(argv[0], "help")) {
		printf("Usage: rocepath qp show [dev IBDEV]\n");
		return 0;
	}
	return rp_error("qp: unknown command \"%s\", try \"rocepath qp help\"",
			argv[0]);
}
