// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath probe schedule topology FILE budget PPS [placement FILE]
 *                         [flows N] [rate PPS] [host NAME]
 *
 * The fabric-wide probe budget's schedule for a topology, as every
 * rocepathd with "probe_budget_pps" computes it (plan_probe_budget.h):
 * hosts per slot, slots, the model's answers per second on one switch,
 * the time until every host is answered at best, and each host's slot and
 * first rail. A budget rocepathd would refuse is an error with the same
 * reason. scripts/bench/probe_budget.py simulates this schedule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plan.h"
#include "probe_budget.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: rocepath probe schedule topology FILE budget PPS [placement FILE]\n"
		"                               [flows N] [rate PPS] [host NAME]\n");
}

static void print_host(struct rp_out *o, const struct rp_topo *t,
		       const struct rp_probe_sched *s, unsigned int i)
{
	unsigned int slot, rail;

	rp_probe_host_slot(s, i, &slot, &rail);
	rp_out_open_object(o, NULL);
	rp_out_string(o, "host", "host %s ", rp_probe_host_name(t, i));
	rp_out_uint(o, "index", "index %llu ", i);
	rp_out_uint(o, "slot", "slot %llu ", slot);
	rp_out_uint(o, "first_rail", "first_rail %llu", rail);
	rp_out_close_object(o);
	rp_out_nl(o);
}

static void print_sched(struct rp_out *o, const struct rp_topo *t,
			const struct rp_probe_budget *b,
			const struct rp_probe_sched *s, int host)
{
	rp_out_open_object(o, NULL);
	rp_out_uint(o, "budget_pps", "budget %llu answers/s per switch, ",
		    b->budget_pps);
	rp_out_uint(o, "rate_pps", "rate %llu probes/s per host: ", b->rate_pps);
	rp_out_uint(o, "hosts", "%llu hosts, ", b->hosts);
	rp_out_uint(o, "rails", "%llu rails, ", b->rails);
	rp_out_double(o, "weight", "weight %g", b->weight);
	rp_out_nl(o);
	rp_out_uint(o, "hosts_per_rail", "%llu hosts per rail and ",
		    s->per_rail);
	rp_out_uint(o, "hosts_per_slot", "%llu per slot, ", s->per_slot);
	rp_out_uint(o, "slots", "%llu slots ", s->slots);
	rp_out_uint(o, "slot_ms", "of %llu ms ", s->slot_ms);
	rp_out_uint(o, "cycle_ms", "(cycle %llu ms), ", s->cycle_ms);
	rp_out_double(o, "peak_pps", "at most %.1f answers/s on a switch",
		      s->peak_pps);
	rp_out_nl(o);
	rp_out_uint(o, "max_flows", "busiest host %llu flows, ", b->max_flows);
	rp_out_uint(o, "host_slots", "cycles needed %llu: ", s->host_slots);
	rp_out_double(o, "min_s", "every host answered after %.0f s at best ",
		      s->min_ms / 1000.0);
	rp_out_uint(o, "bound_s", "(bound %llu s)", RP_PROBE_BUDGET_BOUND_S);
	rp_out_nl(o);
	rp_out_open_array(o, "schedule");
	for (unsigned int i = 0; i < b->hosts; i++)
		if (host < 0 || (unsigned int)host == i)
			print_host(o, t, s, i);
	rp_out_close_array(o);
	rp_out_close_object(o);
}

int cmd_probe_schedule(int argc, char **argv, const struct rp_cli *cli)
{
	const char *topo = NULL, *place = NULL, *host = NULL;
	unsigned int budget = 0, rate = 50, flows = 0;
	struct rp_probe_budget b = { 0 };
	struct rp_plan *plan = NULL;
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	struct rp_probe_slot sl;
	char buf[1200];
	struct rp_err err;
	int ret, h = -1;
	const struct cli_kw kw[] = {
		{ .name = "topology", .str = &topo },
		{ .name = "budget", .num = &budget, .lo = 1, .hi = 1000000 },
		{ .name = "placement", .str = &place },
		{ .name = "flows", .num = &flows, .lo = 1, .hi = 1000000 },
		{ .name = "rate", .num = &rate, .lo = 1, .hi = 100000 },
		{ .name = "host", .str = &host },
		{ 0 }
	};

	ret = cli_kw_parse("probe schedule", argc, argv, kw, usage);
	if (ret)
		return ret > 0 ? 0 : ret;
	if (!topo || !budget || (!place && !flows))
		return rp_error("probe schedule: topology, budget and placement or flows are required");
	memset(&err, 0, sizeof(err));
	ret = rp_topo_load(topo, &t, &err);
	if (!ret && place)
		ret = rp_place_load(place, t, &p, &err);
	if (!ret && place)
		ret = rp_plan_compute(t, p, &plan, &err);
	if (ret) {
		ret = rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
		goto out;
	}
	if (host) {
		h = rp_probe_host_index(t, host);
		if (h < 0) {
			ret = rp_error_ret(h, "probe schedule: host \"%s\" is not in %s",
					   host, topo);
			goto out;
		}
	}
	ret = rp_probe_budget_topo(t, &b);
	/* flows: the busiest host's, said outright (a fleet not yet placed) */
	if (!ret && flows)
		b.max_flows = flows;
	else if (!ret)
		ret = rp_plan_probe_max_flows(plan, &b.max_flows);
	if (ret) {
		ret = rp_error_ret(ret, "probe schedule: %s: %s", topo,
				   ret == -ENOENT ? "no leaf has an up link to a spine" :
				   strerror(-ret));
		goto out;
	}
	b.rate_pps = rate;
	b.budget_pps = budget;
	memset(&sl, 0, sizeof(sl));
	ret = rp_probe_budget_verdict(&b, &sl, buf, sizeof(buf));
	if (ret) {
		ret = rp_error_ret(ret, "probe schedule: %s", buf);
		goto out;
	}
	print_sched(cli->out, t, &b, &sl.s, h);
out:
	rp_plan_free(plan);
	rp_place_free(p);
	rp_topo_free(t);
	return ret;
}
