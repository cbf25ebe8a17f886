// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: configure and inspect the rocepath kernel module.
 *
 *   rocepath [-j] [-p] [-d] OBJECT COMMAND [ARGS]
 *
 * Objects and commands match by prefix in table order, as in iproute2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"
#include "parse.h"

#define ROCEPATH_VERSION "0.1"

static int cmd_help(int argc, char **argv, const struct rp_cli *cli);

static const struct {
	const char *name;
	rp_cmd_fn fn;
	const char *help;
} cmds[] = {
	{ "dev", cmd_dev, "dev show [dev IBDEV]" },
	{ "pin", cmd_pin,
	  "pin { add remote ADDR sport PORT[,PORT...] [dev IBDEV] [rqpn N] [lqpn N] |\n"
	  "              del remote ADDR [dev IBDEV] [rqpn N] [lqpn N] |\n"
	  "              show | flush | replace file PINS.json }" },
	{ "qp", cmd_qp, "qp show [dev IBDEV]" },
	{ "flow", cmd_flow, "flow { show [dev IBDEV] | reset [dev IBDEV] }" },
	{ "dcqcn", cmd_dcqcn,
	  "dcqcn { show [dev IBDEV] | set dev IBDEV PARAM VALUE [PARAM VALUE ...] }" },
	{ "stats", cmd_stats, "stats" },
	{ "monitor", cmd_monitor, "monitor" },
	{ "plan", NULL, "plan topology FILE placement FILE [previous FILE] [host NAME]\n"
	  "              [probes FILE ...]" },
	{ "place", cmd_place,
	  "place topology FILE placement FILE job ID hosts N [rails R[,R...]]\n"
	  "              [pattern ring|alltoall] [qps N] [out FILE]\n"
	  "              [policy advise|first-fit|random] [seed N]" },
	{ "probe", cmd_probe,
	  "probe topology FILE placement FILE host NAME [out FILE]\n"
	  "              [rate PPS] [tries N] [timeout MS] [ttl N]\n"
	  "       rocepath probe schedule topology FILE budget PPS [placement FILE]\n"
	  "              [flows N] [rate PPS] [host NAME]" },
	{ "nccl-env", cmd_nccl_env,
	  "nccl-env [job ID] [config FILE] [host NAME] [dscp N]" },
	{ "help", cmd_help, "help" },
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: rocepath [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"OPTIONS := { -j[son] | -p[retty] | -d[ebug] | -V[ersion] | -h[elp] }\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "       rocepath %s\n", cmds[i].help);
	fprintf(fp,
		"ADDR := IPv4 or IPv6 address; PORT := 49152..65535\n"
		"PARAM := np_enable | rp_enable | rp_ai_rate | ... (as mlx5 cc_params)\n");
}

static int cmd_help(int argc, char **argv, const struct rp_cli *cli)
{
	(void)argc;
	(void)argv;
	(void)cli;
	usage(stdout);
	return 0;
}

bool rp_matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}

int cli_nl_open(const struct rp_cli *cli, struct rp_nl **nlp)
{
	int ret = rp_nl_open(nlp);

	if (ret == -ENOENT)
		return rp_error_ret(ret,
				    "rocepath generic netlink family not found: load the module with 'modprobe rocepath'");
	if (ret)
		return rp_error_ret(ret, "cannot open generic netlink socket: %s",
				    strerror(-ret));
	if (cli->debug)
		rp_nl_set_debug(*nlp, stderr);
	return 0;
}

bool cli_net_admin(void)
{
	unsigned long long caps = 0;
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return true;	/* cannot tell: say nothing */
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	fclose(f);
	/* CAP_NET_ADMIN is capability 12 */
	return !found || (caps & (1ULL << 12));
}

int cli_nl_err(struct rp_nl *nl, int ret, const char *what)
{
	const char *msg = rp_nl_errmsg(nl);

	/* The module refuses pin show and monitor to other users. */
	if (ret == -EPERM && !cli_net_admin())
		return rp_error_ret(ret, "%s: needs CAP_NET_ADMIN (run as root)",
				    msg ? msg : what);
	if (msg)
		return rp_error_ret(ret, "%s", msg);
	return rp_error_ret(ret, "%s: %s", what, strerror(-ret));
}

int cli_missing(const char *what)
{
	return rp_error("%s: missing argument", what);
}

int cli_unknown(const char *object, const char *arg)
{
	return rp_error("%s: unknown argument \"%s\", try \"rocepath help\"",
			object, arg);
}

int cli_dup(const char *what)
{
	return rp_error("%s: given twice", what);
}

int cli_ibdev_arg(const char *val, char *ibdev)
{
	if (ibdev[0])
		return cli_dup("dev");
	if (!val)
		return cli_missing("dev");
	if (rp_parse_ibdev(val))
		return rp_error("dev: \"%s\" is not a valid device name", val);
	strcpy(ibdev, val);
	return 0;
}

int cli_dev_filter(int argc, char **argv, const char *cmd, const char **ibdev)
{
	char name[RP_IBDEV_LEN] = "";

	*ibdev = NULL;
	while (argc > 0) {
		int ret;

		if (strcmp(argv[0], "dev"))
			return cli_unknown(cmd, argv[0]);
		ret = cli_ibdev_arg(argc > 1 ? argv[1] : NULL, name);
		if (ret)
			return ret;
		*ibdev = argv[1];
		argc -= 2;
		argv += 2;
	}
	return 0;
}

/* Accepts -j, --json, -jp, -pretty (iproute2 single-dash long forms). */
static int parse_opt(const char *arg, struct rp_cli *cli)
{
	const char *o = arg + 1;

	if (*o == '-')
		o++;
	if (rp_matches(o, "json")) {
		cli->json = true;
	} else if (rp_matches(o, "pretty")) {
		cli->pretty = true;
	} else if (rp_matches(o, "debug")) {
		cli->debug = true;
	} else if (rp_matches(o, "Version")) {
		printf("rocepath %s\n", ROCEPATH_VERSION);
		exit(0);
	} else if (rp_matches(o, "help")) {
		usage(stdout);
		exit(0);
	} else if (arg[1] != '-' && strspn(o, "jpd") == strlen(o)) {
		cli->json |= !!strchr(o, 'j');
		cli->pretty |= !!strchr(o, 'p');
		cli->debug |= !!strchr(o, 'd');
	} else {
		return rp_error("option \"%s\" is unknown, try \"rocepath -help\"",
				arg);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rp_cli cli = { 0 };
	rp_cmd_fn fn = NULL;
	int ret;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-' && argv[0][1]) {
		if (!strcmp(argv[0], "--")) {
			argc--;
			argv++;
			break;
		}
		if (parse_opt(argv[0], &cli))
			return 1;
		argc--;
		argv++;
	}
	if (!argc) {
		usage(stderr);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!rp_matches(argv[0], cmds[i].name))
			continue;
		fn = cmds[i].fn;
		if (!strcmp(cmds[i].name, "plan")) {
			fn = cmd_plan;
			if (!fn) {
				rp_error("plan: the planner is not built into this rocepath");
				return 1;
			}
		}
		break;
	}
	if (!fn) {
		rp_error("object \"%s\" is unknown, try \"rocepath help\"",
			 argv[0]);
		return 1;
	}
	if (cli.debug)
		rp_nl_set_default_debug(stderr);
	cli.out = rp_out_new(stdout, cli.json, cli.pretty);
	if (!cli.out) {
		rp_error("out of memory");
		return 1;
	}
	ret = fn(argc - 1, argv + 1, &cli);
	if (ret) {
		/* A failed command prints no (partial) JSON document. */
		rp_out_discard(cli.out);
	}
	rp_out_free(cli.out);
	if (!ret && (ferror(stdout) || fflush(stdout))) {
		rp_error("cannot write output: %s", strerror(errno));
		ret = -EIO;
	}
	return ret ? 1 : 0;
}
