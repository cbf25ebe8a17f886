// SPDX-License-Identifier: GPL-2.0
/* rocepath qp show [dev IBDEV] */
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"
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

static void qp_print(struct rp_out *o, const struct rp_qp *q)
{
	rp_out_open_object(o, NULL);
	cli_qp_fields(o, q);
	rp_out_close_object(o);
	rp_out_nl(o);
}

CLI_DUMP_PRINT(qp_dump_print, struct rp_qps, rp_qp_dump, qp_print, rp_qps_free)

static int qp_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "qp show", .by_dev = true, .dump_print = qp_dump_print,
		.own = "QPs",
	};

	return cli_show(&show, argc, argv, cli);
}

static void qp_usage(void)
{
	printf("Usage: rocepath qp show [dev IBDEV]\n");
}

int cmd_qp(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_verb verbs[] = {
		{ "show", qp_show }, { "list", qp_show }, { NULL, NULL },
	};

	return cli_dispatch("qp", verbs, qp_usage, argc, argv, cli);
}
