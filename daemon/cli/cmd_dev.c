// SPDX-License-Identifier: GPL-2.0
/* rocepath dev show [dev IBDEV] */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "hwcounters.h"
#include "rp_netlink.h"
#include "parse.h"

static const char *gid_type(uint32_t t)
{
	switch (t) {
	case 0:
		return "ib";
	case 1:
		return "roce_v1";
	case 2:
		return "roce_v2";
	default:
		return "unknown";
	}
}

void cli_dev_fields(struct rp_out *o, const struct rp_dev *d)
{
	char buf[RP_ADDR_STRLEN];

	rp_out_string(o, "dev", "%s", d->ibdev);
	rp_out_uint(o, "port", "/%llu:", d->port);
	if (RP_HAS(d, ROCEPATH_A_DEV_INDEX))
		rp_out_uint(o, "index", NULL, d->index);
	if (RP_HAS(d, ROCEPATH_A_DEV_NETDEV))
		rp_out_string(o, "netdev", " netdev %s", d->netdev);
	else
		rp_out_null(o, "netdev", " netdev %s");
	if (RP_HAS(d, ROCEPATH_A_DEV_IFINDEX))
		rp_out_uint(o, "ifindex", " ifindex %llu", d->ifindex);
	if (RP_HAS(d, ROCEPATH_A_DEV_DRIVER))
		rp_out_string(o, "driver", " driver %s", d->driver);
	rp_out_bool(o, "roce_v2", " roce_v2 %s", d->roce_v2);
	if (RP_HAS(d, ROCEPATH_A_DEV_SOFT))
		rp_out_bool(o, "soft", " soft %s", d->soft);

	rp_out_open_array(o, "gids");
	if (d->ngids)
		rp_out_text(o, " gids");
	for (size_t i = 0; i < d->ngids; i++) {
		const struct rp_gid *g = &d->gids[i];

		rp_out_open_object(o, NULL);
		rp_out_uint(o, "index", i ? ",%llu:" : " %llu:", g->index);
		rp_out_string(o, "gid", "%s",
			      rp_addr_fmt(&g->addr, buf, sizeof(buf)));
		rp_out_string(o, "type", NULL, gid_type(g->type));
		rp_out_close_object(o);
	}
	rp_out_close_array(o);

	if (d->ncounters) {
		rp_out_open_object(o, "hw_counters");
		for (size_t i = 0; i < d->ncounters; i++) {
			rp_out_text(o, " %s", d->counters[i].name);
			rp_out_uint(o, d->counters[i].name, " %llu",
				    d->counters[i].value);
		}
		rp_out_close_object(o);
	}
}

static void dev_print(struct rp_out *o, struct rp_dev *d)
{
	/* Best effort: a port whose counters cannot be read shows none. */
	rp_dev_hw_counters(d, NULL);
	rp_out_open_object(o, NULL);
	cli_dev_fields(o, d);
	rp_out_close_object(o);
	rp_out_nl(o);
}

CLI_DUMP_PRINT(dev_dump_print, struct rp_devs, rp_dev_dump, dev_print, rp_devs_free)

static int dev_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "dev show", .by_dev = true, .dump_print = dev_dump_print,
	};

	return cli_show(&show, argc, argv, cli);
}

static void dev_usage(void)
{
	printf("Usage: rocepath dev show [dev IBDEV]\n");
}

int cmd_dev(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_verb verbs[] = {
		{ "show", dev_show }, { "list", dev_show }, { NULL, NULL },
	};

	return cli_dispatch("dev", verbs, dev_usage, argc, argv, cli);
}
