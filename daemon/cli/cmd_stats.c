// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath stats [config FILE]: module counters, table sizes and limits,
 * and what rocepathd plans with (its status file, daemon/lib/rpd_status.h):
 * one object, the daemon's part under "daemon".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"
#include "rpd_config.h"
#include "rpd_status.h"

/*
 * What rocepathd plans with, read before the module is asked, so that a
 * bad daemon config is the one error printed. A status file that cannot
 * be read or parsed is a warning: the module's counters are still shown.
 */
static struct {
	bool show;		/* print a "daemon" part */
	char *path;		/* the status file; NULL: "status_file": null */
	bool have;		/* st read */
	bool running;
	struct rpd_status st;
} daemon;

/*
 * The status file the config names. The default config missing means no
 * daemon on this host: no "daemon" part, no error. A given config that
 * does not load is an error; the default one a note. A status file that
 * is there but does not read or parse is a warning naming the file and
 * why, and no "daemon" part: its keys would be guesses.
 */
static int daemon_load(const char *cfgpath, bool given)
{
	struct rpd_config cfg;
	char err[1200];
	int ret;

	ret = rpd_config_load(cfgpath, &cfg, err, sizeof(err));
	if (ret == -ENOENT && !given)
		return 0;
	if (ret && given)
		return rp_error_ret(ret, "stats: %s", err);
	if (ret) {
		fprintf(stderr, "Note: stats: %s; rocepathd's status not shown.\n", err);
		return 0;
	}
	daemon.show = true;
	if (cfg.status_file) {
		daemon.path = strdup(cfg.status_file);
		ret = daemon.path ? 0 : -ENOMEM;
	}
	if (!ret && daemon.path) {
		/* none (-ENOENT) is a daemon not running here: "running": false */
		ret = rpd_status_read(daemon.path, &daemon.st, err, sizeof(err));
		daemon.have = !ret;
		daemon.running = !ret && rpd_status_running(&daemon.st);
		if (ret && ret != -ENOENT) {
			fprintf(stderr, "Warning: stats: %s; rocepathd's status not shown.\n",
				err);
			daemon.show = false;
		}
		ret = 0;
	}
	rpd_config_free(&cfg);
	return ret;
}

static void daemon_print(struct rp_out *o)
{
	if (!daemon.show)
		return;
	rp_out_open_object(o, "daemon");
	if (daemon.path) {
		rpd_status_print(o, daemon.path, daemon.have ? &daemon.st : NULL,
				 daemon.running);
	} else {
		rp_out_null(o, "status_file", NULL);
		rp_out_text(o, "rocepathd: no status file (\"status_file\": null)\n");
	}
	rp_out_close_object(o);
}

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
	if (!ret)
		daemon_print(o);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "Usage: rocepath stats [config FILE]\n");
}

/* "stats" and "stats show" are the same; other words are arguments. */
int cmd_stats(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "stats", .single = true, .dump_print = stats_print,
	};
	const char *cfg = NULL;
	const struct cli_kw kw[] = {
		{ .name = "config", .str = &cfg },
		{ 0 }
	};
	int ret;

	if (argc && rp_matches(argv[0], "show")) {
		argc--;
		argv++;
	}
	ret = cli_kw_parse("stats", argc, argv, kw, usage);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = daemon_load(cfg ? cfg : RPD_CONFIG_DEFAULT, cfg);
	if (!ret)
		ret = cli_show(&show, 0, NULL, cli);
	free(daemon.path);
	daemon.path = NULL;
	return ret;
}
