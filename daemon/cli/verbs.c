// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's table-driven glue (cli.h): verb dispatch and the one show and
 * change path every object shares, so a command body is its table entry,
 * its dump and its printer.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "rp_netlink.h"
#include "parse.h"

int cli_dispatch(const char *object, const struct cli_verb *verbs,
		 void (*usage)(void), int argc, char **argv,
		 const struct rp_cli *cli)
{
	if (argc < 1)
		return verbs[0].fn(0, argv, cli);
	for (const struct cli_verb *v = verbs; v->name; v++)
		if (rp_matches(argv[0], v->name))
			return v->fn(argc - 1, argv + 1, cli);
	if (rp_matches(argv[0], "help")) {
		usage();
		return 0;
	}
	return rp_error("%s: unknown command \"%s\", try \"rocepath %s help\"",
			object, argv[0], object);
}

/* Arguments ([dev IBDEV] or none), then an open family socket. */
static int open_for(const char *cmd, bool by_dev, int argc, char **argv,
		    const struct rp_cli *cli, const char **ibdev,
		    struct rp_nl **nl)
{
	int ret;

	*ibdev = NULL;
	if (by_dev)
		ret = cli_dev_filter(argc, argv, cmd, ibdev);
	else
		ret = argc ? cli_unknown(cmd, argv[0]) : 0;
	return ret ? ret : cli_nl_open(cli, nl);
}

int cli_show(const struct cli_show *s, int argc, char **argv,
	     const struct rp_cli *cli)
{
	const char *ibdev;
	struct rp_nl *nl;
	int ret;

	ret = open_for(s->cmd, s->by_dev, argc, argv, cli, &ibdev, &nl);
	if (ret)
		return ret;
	if (s->own && !cli_net_admin())
		fprintf(stderr,
			"Note: %s: without CAP_NET_ADMIN only the %s of uid %u are shown; run as root to see every user's.\n",
			s->cmd, s->own, (unsigned int)getuid());
	if (s->single)
		rp_out_open_object(cli->out, NULL);
	else
		rp_out_open_array(cli->out, NULL);
	ret = s->dump_print(nl, ibdev, cli->out);
	if (ret) {
		/* Nothing of a failed dump is printed, not even "[]". */
		rp_out_discard(cli->out);
		cli_nl_err(nl, ret, s->cmd);
	} else if (s->single) {
		rp_out_close_object(cli->out);
	} else {
		rp_out_close_array(cli->out);
	}
	rp_nl_close(nl);
	return ret;
}

int cli_do(const char *cmd, bool by_dev,
	   int (*fn)(struct rp_nl *nl, const char *ibdev), int argc,
	   char **argv, const struct rp_cli *cli)
{
	const char *ibdev;
	struct rp_nl *nl;
	int ret;

	ret = open_for(cmd, by_dev, argc, argv, cli, &ibdev, &nl);
	if (ret)
		return ret;
	ret = fn(nl, ibdev);
	if (ret)
		cli_nl_err(nl, ret, cmd);
	rp_nl_close(nl);
	return ret;
}
