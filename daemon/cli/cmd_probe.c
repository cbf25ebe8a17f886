// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath probe topology FILE placement FILE host NAME [out FILE]
 *                [rate PPS] [tries N] [timeout MS] [ttl N]
 *
 * Probes, from NAME's NICs, the source ports its flows through measured
 * leaves need (Documentation/fabric.rst, "Probing") and prints the
 * answers; with out, writes them as a probe file (`rocepath plan ...
 * probes FILE`), reusing the answers FILE already holds for this topology.
 * A port that gets no answer is an error naming the pair and the port.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <json-c/json.h>

#include "cli.h"
#include "parse.h"
#include "plan.h"
#include "probe_run.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: rocepath probe topology FILE placement FILE host NAME [out FILE]\n"
		"                      [rate PPS] [tries N] [timeout MS] [ttl N]\n"
		"       rocepath probe schedule topology FILE budget PPS [placement FILE]\n"
		"                      [flows N] [rate PPS] [host NAME]\n");
}

static json_object *report_json(const struct rp_topo *t, const char *host,
				const struct rp_probes *ps,
				const struct rp_probe_report *r)
{
	json_object *o = rp_probes_to_json(t, ps);
	json_object *fl = json_object_new_array();

	json_object_object_add(o, "host", json_object_new_string(host));
	json_object_object_add(o, "packets", json_object_new_int(r->packets));
	json_object_object_add(o, "ports", json_object_new_int(r->ports));
	json_object_object_add(o, "cached", json_object_new_int(r->cached));
	json_object_object_add(o, "answered", json_object_new_int(r->answered));
	json_object_object_add(o, "skipped", json_object_new_int(r->skipped));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	for (size_t i = 0; i < r->nfails; i++) {
		const struct rp_probe_fail *f = &r->fails[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "src_ip", json_object_new_string(f->src_ip));
		json_object_object_add(e, "dst_ip", json_object_new_string(f->dst_ip));
		json_object_object_add(e, "sport", json_object_new_int(f->sport));
		json_object_object_add(e, "tries", json_object_new_int(f->tries));
		json_object_object_add(e, "reason", json_object_new_string(f->why));
		json_object_array_add(fl, e);
	}
	json_object_object_add(o, "failures", fl);
	return o;
}

static void print_text(const struct rp_topo *t, const struct rp_probes *ps,
		       const struct rp_probe_report *r)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	printf("probed %u ports with %u packets in %.2f s, %u from the cache, %u answered\n",
	       r->ports, r->packets, r->seconds, r->cached, r->answered);
	for (size_t i = 0; i < ps->n; i++) {
		const struct rp_probe *p = &ps->v[i];

		rp_addr_fmt(&p->src, s, sizeof(s));
		rp_addr_fmt(&p->dst, d, sizeof(d));
		printf("%s -> %s sport %u: %s\n", s, d, p->sport,
		       rp_topo_switch_name(t, p->sw));
	}
}

int cmd_probe(int argc, char **argv, const struct rp_cli *cli)
{
	const char *topo = NULL, *place = NULL, *host = NULL, *out = NULL;
	struct rp_probe_opts o = RP_PROBE_OPTS_DEFAULT;
	struct rp_probe_report rep = { 0 };
	struct rp_probes ps = { 0 };
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	struct rp_err err;
	char buf[1200];
	int ret;
	const struct cli_kw kw[] = {
		{ .name = "topology", .str = &topo },
		{ .name = "placement", .str = &place },
		{ .name = "host", .str = &host },
		{ .name = "out", .str = &out },
		{ .name = "rate", .num = &o.rate_pps, .lo = 1, .hi = 100000 },
		{ .name = "tries", .num = &o.tries, .lo = 1, .hi = 100 },
		{ .name = "timeout", .num = &o.timeout_ms, .lo = 1, .hi = 60000 },
		{ .name = "ttl", .num = &o.ttl, .lo = 1, .hi = 255 },
		{ 0 }
	};

	if (argc && rp_matches(argv[0], "schedule"))
		return cmd_probe_schedule(argc - 1, argv + 1, cli);
	ret = cli_kw_parse("probe", argc, argv, kw, usage);
	if (ret)
		return ret > 0 ? 0 : ret;
	if (!topo || !place || !host)
		return rp_error("probe: topology, placement and host are required");
	memset(&err, 0, sizeof(err));
	ret = rp_topo_load(topo, &t, &err);
	if (!ret)
		ret = rp_place_load(place, t, &p, &err);
	if (ret) {
		ret = rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
		goto done;
	}
	if (out)
		rp_probe_cache_load(t, out, &ps);
	ret = rp_probe_host(t, p, host, &o, 0, NULL, &ps, &rep, &err);
	if (ret) {
		ret = rp_error_ret(ret, "probe: %s", err.msg);
		goto done;
	}
	if (out) {
		ret = rp_probes_save(t, &ps, out);
		if (ret) {
			ret = rp_error_ret(ret, "probe: %s: cannot write: %s", out,
					   strerror(-ret));
			goto done;
		}
	}
	rp_out_flush(cli->out);
	if (cli->json) {
		json_object *o2 = report_json(t, host, &ps, &rep);

		printf("%s\n", json_object_to_json_string_ext(o2,
			JSON_C_TO_STRING_NOSLASHESCAPE |
			(cli->pretty ? JSON_C_TO_STRING_PRETTY |
			 JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN)));
		json_object_put(o2);
	} else {
		print_text(t, &ps, &rep);
	}
	fflush(stdout);
	if (rep.unexpected) {
		char why[400];

		rp_probe_unexpected_fmt(t, &rep, why, sizeof(why));
		fprintf(stderr, "Warning: %s.\n", why);
	}
	for (size_t i = 0; i < rep.nfails; i++)
		ret = rp_error_ret(-EHOSTUNREACH, "probe %s -> %s sport %u: %s",
				   rep.fails[i].src_ip, rep.fails[i].dst_ip,
				   rep.fails[i].sport, rep.fails[i].why);
	if (!ret && rep.short_pairs)
		ret = rp_error_ret(-EHOSTUNREACH, "probe: %u pairs found too few ports onto their assigned spines",
				   rep.short_pairs);
done:
	rp_probe_report_free(&rep);
	rp_probes_free(&ps);
	rp_place_free(p);
	rp_topo_free(t);
	return ret;
}
