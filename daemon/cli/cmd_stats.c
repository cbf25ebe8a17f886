// SPDX-License-Identifier: GPL-2.0
/* rocepath stats: module counters, table sizes and limits (one object). */
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"

static int stats_print(struct rp_nl *nl, const char *ibdev, struct rp_out *o)
{
	struct rp_stats st;
	int ret;

	(void)ibdev;
	ret = rp_stats_get(nl, &st);
	for (int a = 0; !ret && a <= ROCEPATH_A_STATS_MAX; a++) {
		const char *name = rp_stats_name(a);
		char fmt[64];

		if (!name || !RP_HAS(&st, a))
			continue;
		snprintf(fmt, sizeof(fmt), "%-24s %%llu\n", name);
		rp_out_uint(o, name, fmt, st.val[a]);
	}
	return ret;
}

/* "stats" and "stats show" are the same; other words are arguments. */
int cmd_stats(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "stats", .single = true, .dump_print = stats_print,
	};

	if (argc && rp_matches(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (argc && rp_matches(argv[0], "help")) {
		printf("Usage: rocepath stats\n");
		return 0;
	}
	return cli_show(&show, argc, argv, cli);
}
