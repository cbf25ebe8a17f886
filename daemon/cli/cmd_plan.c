// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath plan topology FILE placement FILE [previous FILE] [host NAME]
 *               [probes FILE ...]
 *
 * Without host: the plan ({flows, unplaced, links, summary} with -j, a
 * summary and one line per flow in text). With host: that host's pins as
 * `pin show` prints pins: the array `rocepath pin replace file` accepts
 * (-j), or one line per pin.
 * With previous: a stable re-plan of the plan of that placement (flows
 * that it also has keep their ports where the new plan allows). With
 * probes (one or more files, the key repeatable): flows through measured
 * leaves take probed ports.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "objs.h"
#include "pins.h"
#include "plan.h"
#include "plan_probe.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: rocepath plan topology FILE placement FILE [previous FILE]\n"
		"                     [host NAME] [probes FILE ...]\n");
}

int cmd_plan(int argc, char **argv, const struct rp_cli *cli)
{
	const char *topo = NULL, *place = NULL, *host = NULL, *prev = NULL;
	const char *probes[16];
	size_t nprobes = 0;
	struct rp_pins pins = { 0 };
	struct rp_plan *plan = NULL;
	struct rp_err err;
	char buf[1200];
	int ret;
	const struct cli_kw kw[] = {
		{ .name = "topology", .str = &topo },
		{ .name = "placement", .str = &place },
		{ .name = "host", .str = &host },
		{ .name = "previous", .str = &prev },
		{ .name = "probes", .list = probes, .nlist = &nprobes,
		  .max = sizeof(probes) / sizeof(probes[0]) },
		{ 0 }
	};

	ret = cli_kw_parse("plan", argc, argv, kw, usage);
	if (ret)
		return ret > 0 ? 0 : ret;
	/* Errors are one line (Documentation/cli.rst); "plan help" shows usage. */
	if (!topo || !place)
		return rp_error("plan: topology and placement files are required");
	memset(&err, 0, sizeof(err));
	ret = rp_plan_from_files_probed(topo, place, prev, probes, nprobes,
					&plan, &err);
	if (ret)
		return rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
	if (!host) {
		/*
		 * Streamed, not through cli->out: a plan of 32k GPUs is never
		 * held as a document (Documentation/cli.rst).
		 */
		rp_out_flush(cli->out);
		ret = rp_plan_write(plan, NULL, !cli->json ? RP_PLAN_TEXT :
				    cli->pretty ? RP_PLAN_JSON_PRETTY :
				    RP_PLAN_JSON, stdout);
		if (ret)
			ret = rp_error_ret(ret, "plan: %s", strerror(-ret));
		goto out;
	}
	ret = rp_plan_host_pins(plan, host, &pins);
	if (ret == -ENOENT) {
		ret = rp_error_ret(ret, "%s: unknown host \"%s\"", topo, host);
		goto out;
	}
	if (ret) {
		ret = rp_error_ret(ret, "plan: %s", strerror(-ret));
		goto out;
	}
	/* The host's pins as `pin show` prints pins: the same printer. */
	rp_out_open_array(cli->out, NULL);
	for (size_t i = 0; i < pins.n; i++)
		rp_pin_print(cli->out, &pins.v[i]);
	rp_out_close_array(cli->out);
out:
	rp_pins_free(&pins);
	rp_plan_free(plan);
	return ret;
}
