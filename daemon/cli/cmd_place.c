// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath place topology FILE placement FILE job ID hosts N
 *                [rails R[,R...]] [pattern ring|alltoall] [qps N]
 *                [policy advise|first-fit|random] [seed N] [out FILE]
 *
 * The placement advisor (daemon/planner/plan_advise.h): the hosts a new
 * job should get, why (per-rack fill, the plan's bound and max link load
 * before and after), and with out the placement with the job added,
 * written atomically, ready for the scheduler and `rocepath plan`.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "plan_advise.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: rocepath place topology FILE placement FILE job ID hosts N\n"
		"                      [rails R[,R...]] [pattern ring|alltoall] [qps N]\n"
		"                      [policy advise|first-fit|random] [seed N] [out FILE]\n");
}

struct place_args {
	const char *topo, *place, *out;
	struct rp_advise_req req;
};

static int parse_rails(const char *s, struct rp_advise_req *req)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int ret = 0;

	if (!dup)
		return rp_error_ret(-ENOMEM, "place: out of memory");
	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,"))
		ret = rp_error("place: rails \"%s\": expected R[,R...]", s);
	for (tok = strtok_r(dup, ",", &save); !ret && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t v;

		if (rp_parse_u32(tok, 65535, &v))
			ret = rp_error("place: rail \"%s\" is not a number in 0..65535",
				       tok);
		else if (req->nrails == RP_ADVISE_MAX_RAILS)
			ret = rp_error("place: more than %d rails",
				       RP_ADVISE_MAX_RAILS);
		else
			req->rails[req->nrails++] = v;
	}
	free(dup);
	return ret;
}

static int parse_policy(const char *s, enum rp_advise_policy *p)
{
	if (!strcmp(s, "advise"))
		*p = RP_ADVISE_BEST;
	else if (!strcmp(s, "first-fit"))
		*p = RP_ADVISE_FIRST_FIT;
	else if (!strcmp(s, "random"))
		*p = RP_ADVISE_RANDOM;
	else
		return rp_error("place: unknown policy \"%s\" (advise, first-fit, random)",
				s);
	return 0;
}

static int parse_args(int argc, char **argv, struct place_args *a)
{
	const char *rails = NULL, *policy = NULL, *seed = NULL;
	unsigned int hosts = 0, qps = 0;
	const struct cli_kw kw[] = {
		{ .name = "topology", .str = &a->topo },
		{ .name = "placement", .str = &a->place },
		{ .name = "job", .str = &a->req.job },
		{ .name = "hosts", .num = &hosts, .lo = 1, .hi = 1 << 20 },
		{ .name = "rails", .str = &rails },
		{ .name = "pattern", .str = &a->req.pattern },
		{ .name = "qps", .num = &qps, .lo = 1, .hi = 1024 },
		{ .name = "policy", .str = &policy },
		{ .name = "seed", .str = &seed },
		{ .name = "out", .str = &a->out },
		{ 0 }
	};
	int ret;

	ret = cli_kw_parse("place", argc, argv, kw, usage);
	if (ret)
		return ret;
	if (rails) {
		ret = parse_rails(rails, &a->req);
		if (ret)
			return ret;
	}
	if (a->req.pattern && strcmp(a->req.pattern, "ring") &&
	    strcmp(a->req.pattern, "alltoall"))
		return rp_error("place: unknown pattern \"%s\" (ring, alltoall)",
				a->req.pattern);
	if (policy) {
		ret = parse_policy(policy, &a->req.policy);
		if (ret)
			return ret;
	}
	if (seed && rp_parse_u32(seed, UINT32_MAX, &a->req.seed))
		return rp_error("place: seed \"%s\" is not a 32-bit number", seed);
	if (!a->topo || !a->place || !a->req.job || !hosts)
		return rp_error("place: topology, placement, job and hosts are required");
	if (seed && a->req.policy != RP_ADVISE_RANDOM)
		return rp_error("place: seed is for policy random only");
	a->req.nhosts = hosts;
	a->req.qps = qps;
	return 0;
}

static void print_eval(struct rp_out *o, const char *key,
		       const struct rp_advise_eval *e, bool job)
{
	rp_out_open_object(o, key);
	rp_out_uint(o, "lower_bound", " lower_bound %llu", e->lower_bound);
	rp_out_uint(o, "max_link_flows", " max_link_flows %llu",
		    e->max_link_flows);
	rp_out_uint(o, "unplaced", e->unplaced ? " unplaced %llu" : NULL,
		    e->unplaced);
	if (job) {
		rp_out_uint(o, "job_fabric_flows", " job_fabric_flows %llu",
			    e->job_fabric_flows);
		rp_out_uint(o, "job_max_link_flows", " job_max_link_flows %llu",
			    e->job_max_link_flows);
	}
	rp_out_close_object(o);
}

static void print_advice(struct rp_out *o, const struct rp_advice *a,
			 const char *out)
{
	rp_out_open_object(o, NULL);
	rp_out_string(o, "job", "job %s ", a->job);
	rp_out_string(o, "pattern", "pattern %s ", a->pattern);
	rp_out_uint(o, "qps_per_connection", "qps %llu ", a->qps);
	rp_out_text(o, "rails ");
	rp_out_open_array(o, "rails");
	for (int i = 0; i < a->nrails; i++)
		rp_out_uint(o, NULL, i ? ",%llu" : "%llu", a->rails[i]);
	rp_out_close_array(o);
	rp_out_uint(o, "free_hosts", " free_hosts %llu", a->free_hosts);
	rp_out_nl(o);
	rp_out_string(o, "strategy", "strategy \"%s\"", a->strategy);
	rp_out_nl(o);

	rp_out_open_array(o, "racks");
	for (int i = 0; i < a->nracks; i++) {
		const struct rp_advise_rack *r = &a->racks[i];

		rp_out_open_object(o, NULL);
		rp_out_text(o, "rack ");
		rp_out_open_array(o, "leaves");
		for (int k = 0; k < r->nleaves; k++)
			rp_out_string(o, NULL, k ? ",%s" : "%s", r->leaves[k]);
		rp_out_close_array(o);
		rp_out_uint(o, "taken", " taken %llu", r->taken);
		rp_out_uint(o, "free", " of free %llu", r->free);
		rp_out_uint(o, "size", " size %llu", r->size);
		rp_out_uint(o, "load", " load %llu", r->load);
		rp_out_close_object(o);
		rp_out_nl(o);
	}
	rp_out_close_array(o);

	rp_out_text(o, "before:");
	print_eval(o, "before", &a->before, false);
	rp_out_nl(o);
	rp_out_text(o, "after: ");
	print_eval(o, "after", &a->after, true);
	rp_out_nl(o);

	rp_out_open_array(o, "candidates");
	for (int i = 0; i < a->ncands; i++) {
		const struct rp_advise_cand *c = &a->cands[i];

		rp_out_open_object(o, NULL);
		rp_out_string(o, "strategy", "candidate \"%s\"", c->strategy);
		rp_out_uint(o, "racks", " racks %llu", c->nracks);
		rp_out_bool(o, "chosen", NULL, i == a->chosen);
		print_eval(o, "result", &c->eval, true);
		if (i == a->chosen)
			rp_out_text(o, " (chosen)");
		rp_out_close_object(o);
		rp_out_nl(o);
	}
	rp_out_close_array(o);

	rp_out_text(o, "hosts");
	rp_out_open_array(o, "hosts");
	for (int i = 0; i < a->nhosts; i++)
		rp_out_string(o, NULL, " %s", a->hosts[i]);
	rp_out_close_array(o);
	rp_out_nl(o);
	if (out)
		rp_out_string(o, "placement", "placement written to %s", out);
	else
		rp_out_null(o, "placement", NULL);
	if (out)
		rp_out_nl(o);
	rp_out_close_object(o);
}

/* glibc's largest mmap threshold on 64 bits; trim only beyond 1 GiB free */
#define RP_PLACE_MMAP_MIN	(32 << 20)
#define RP_PLACE_TRIM_MIN	(1 << 30)

int cmd_place(int argc, char **argv, const struct rp_cli *cli)
{
	struct place_args a = { 0 };
	struct rp_advice *adv = NULL;
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	struct rp_err err;
	char buf[1200];
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? 0 : ret;
	/*
	 * The advisor plans every candidate, each with arrays of tens of MB
	 * that glibc would mmap and unmap, faulting them in anew: at 131k GPUs
	 * a quarter more CPU than keeping them in the heap for the next
	 * candidate. A one-shot command, so holding that memory costs nothing.
	 */
	mallopt(M_MMAP_THRESHOLD, RP_PLACE_MMAP_MIN);
	mallopt(M_TRIM_THRESHOLD, RP_PLACE_TRIM_MIN);
	memset(&err, 0, sizeof(err));
	ret = rp_topo_load(a.topo, &t, &err);
	if (!ret)
		ret = rp_place_load(a.place, t, &p, &err);
	if (ret) {
		ret = rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
		goto out;
	}
	ret = rp_place_advise(t, p, &a.req, &adv, &err);
	if (ret) {
		/* the placement's own problem names the file; others the verb */
		if (ret == -EEXIST)
			snprintf(err.file, sizeof(err.file), "%s", a.place);
		else if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "place");
		ret = rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
		goto out;
	}
	if (a.out) {
		ret = rp_advice_save(adv, a.place, a.out, &err);
		if (ret) {
			ret = rp_error_ret(ret, "%s",
					   rp_err_str(&err, buf, sizeof(buf)));
			goto out;
		}
	}
	print_advice(cli->out, adv, a.out);
out:
	rp_advice_free(adv);
	rp_place_free(p);
	rp_topo_free(t);
	return ret;
}
