// SPDX-License-Identifier: GPL-2.0
/* rocepath stats: module counters, table sizes and limits (one object). */
#include <string.h>

#include "cli.h"
#include "nl.h"

int cmd_stats(int argc, char **argv, const struct rp_cli *cli)
{
	struct rp_stats st;
	struct rp_nl *nl;
	int ret;

	if (argc && rp_matches(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (argc && rp_matches(argv[0], "help")) {
		printf("Usage: rocepath stats\n");
		return 0;
	}
	if (argc)
		return cli_unknown("stats", argv[0]);
	ret = cli_nl_open(cli, &nl);
	if (ret)
		return ret;
	ret = rp_stats_get(nl, &st);
	if (ret) {
		cli_nl_err(nl, ret, "stats");
		goto out;
	}
	rp_out_open_object(cli->out, NULL);
	for (int a = 0; a <= ROCEPATH_A_STATS_MAX; a++) {
		const char *name = rp_stats_name(a);
		char fmt[64];

		if (!name || !RP_HAS(&st, a))
			continue;
		snprintf(fmt, sizeof(fmt), "%-24s %%llu\n", name);
		rp_out_uint(cli->out, name, fmt, st.val[a]);
	}
	rp_out_close_object(cli->out);
out:
	rp_nl_close(nl);
	return ret;
}
