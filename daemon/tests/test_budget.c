// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric-wide probe budget: the slot schedule keeps every switch's
 * answers under the budget for any number of hosts and is the same on
 * every host; a budget that cannot probe every flow within the bound is
 * refused with the time it achieves (numbers, and rocepathd's config on
 * the example fabric); cached answers are reused while the topology's
 * digest is the same and dropped when it changes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "backend.h"
#include "example_path.h"
#include "plan_probe.h"
#include "plan_probe_budget.h"
#include "probe_budget.h"
#include "probe_run.h"
#include "rpd_config.h"
#include "test_files.h"

/*
 * A fabric by its rails: rail r's leaves reach spines [first[r],
 * first[r] + n[r]). Planes of S spines give each rail its plane's range.
 */
struct shape {
	unsigned int rails, nspines;
	unsigned int first[16], n[16];
};

static void planes(struct shape *f, unsigned int rails, unsigned int np,
		   unsigned int s)
{
	f->rails = rails;
	f->nspines = np * s;
	for (unsigned int r = 0; r < rails; r++) {
		f->first[r] = (r % np) * s;
		f->n[r] = s;
	}
}

/* The weight by its definition, computed here on its own. */
static double weight(const struct shape *f)
{
	double w = 0;

	for (unsigned int sp = 0; sp < f->nspines; sp++) {
		double sum = 0;

		for (unsigned int r = 0; r < f->rails; r++)
			if (sp >= f->first[r] && sp < f->first[r] + f->n[r])
				sum += 1.0 / f->n[r];
		if (sum > w)
			w = sum;
	}
	return w;
}

/*
 * The most answers per second one spine gets in any slot, hosts of a slot
 * on their first rail or all moved on by the same number of rails.
 */
static double peak(const struct shape *f, const struct rp_probe_sched *s,
		   unsigned int hosts, unsigned int rate, unsigned int *max_on_rail)
{
	unsigned int *on = calloc((size_t)s->slots * f->rails, sizeof(*on));
	double worst = 0;

	*max_on_rail = 0;
	for (unsigned int i = 0; i < hosts; i++) {
		unsigned int slot, rail;

		rp_probe_host_slot(s, i, &slot, &rail);
		if (++on[slot * f->rails + rail] > *max_on_rail)
			*max_on_rail = on[slot * f->rails + rail];
	}
	for (unsigned int sl = 0; sl < s->slots; sl++)
		for (unsigned int shift = 0; shift < f->rails; shift++)
			for (unsigned int sp = 0; sp < f->nspines; sp++) {
				double load = 0;

				for (unsigned int r = 0; r < f->rails; r++) {
					unsigned int at = (r + shift) % f->rails;

					if (sp >= f->first[at] &&
					    sp < f->first[at] + f->n[at])
						load += on[sl * f->rails + r] *
							(double)rate / f->n[at];
				}
				if (load > worst)
					worst = load;
			}
	free(on);
	return worst;
}

/* The schedule gives the simulation's figures (fabric.rst's table). */
TEST(simulation_figures)
{
	static const struct {
		unsigned int budget, np, per_slot, slots;
	} want[] = {
		{ 5000, 1, 1280, 13 }, { 5000, 8, 10240, 2 },
		{ 1000, 1, 256, 64 }, { 1000, 8, 2048, 8 },
		{ 500, 1, 128, 128 }, { 500, 8, 1024, 16 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct rp_probe_budget b = { .hosts = 16384, .rails = 8,
					     .rate_pps = 50, .max_flows = 32,
					     .budget_pps = want[i].budget };
		struct rp_probe_sched s;
		struct shape f;

		planes(&f, 8, want[i].np, 16);
		b.weight = weight(&f);
		ASSERT_EQ(0, rp_probe_schedule(&b, &s));
		EXPECT_EQ(want[i].per_slot, s.per_slot);
		EXPECT_EQ(want[i].slots, s.slots);
		EXPECT_EQ(want[i].slots * 1000ULL, s.cycle_ms);
		EXPECT_EQ(1, s.host_slots);
	}
}

/* For 1 to 16,384 hosts on five fabrics, no switch gets more than the budget. */
TEST(rate_under_budget)
{
	static const unsigned int hosts[] = { 1, 2, 7, 64, 100, 1000, 4097, 16384 };
	static const unsigned int budgets[] = { 20, 100, 333, 1000, 5000, 100000 };
	static const unsigned int rates[] = { 10, 50, 200 };
	struct shape shapes[5];
	unsigned int checked = 0;

	planes(&shapes[0], 1, 1, 4);	/* the example fabric */
	planes(&shapes[1], 8, 1, 16);	/* one plane for every rail */
	planes(&shapes[2], 8, 8, 16);	/* rail-optimised */
	planes(&shapes[3], 8, 4, 8);	/* two rails per plane */
	planes(&shapes[4], 3, 2, 5);	/* rails and planes out of step */
	for (size_t fi = 0; fi < 5; fi++)
		for (size_t hi = 0; hi < sizeof(hosts) / sizeof(*hosts); hi++)
			for (size_t bi = 0; bi < sizeof(budgets) / sizeof(*budgets); bi++)
				for (size_t ri = 0; ri < 3; ri++) {
					const struct shape *f = &shapes[fi];
					struct rp_probe_budget b = {
						.hosts = hosts[hi], .rails = f->rails,
						.weight = weight(f), .rate_pps = rates[ri],
						.budget_pps = budgets[bi], .max_flows = 1,
					};
					struct rp_probe_sched s;
					unsigned int most;
					double p;

					if (rp_probe_schedule(&b, &s)) {
						/* refused: one host per rail is too much */
						EXPECT_GT(rates[ri] * b.weight,
							  budgets[bi] * RP_PROBE_BUDGET_HEADROOM / 100.0);
						continue;
					}
					p = peak(f, &s, hosts[hi], rates[ri], &most);
					EXPECT_LE(most, s.per_rail);
					EXPECT_LE(p, budgets[bi] * RP_PROBE_BUDGET_HEADROOM / 100.0 + 1e-6);
					EXPECT_LE(p, s.peak_pps + 1e-6);
					EXPECT_GE(s.per_slot * s.slots, hosts[hi]);
					/* no slot could be spared */
					EXPECT_LT(s.per_slot * (s.slots - 1), hosts[hi]);
					checked++;
				}
	TH_LOG("%u schedules checked", checked);
	ASSERT_GT(checked, 300);
}

/* Every host computes the same: equal inputs, equal slots. */
TEST(deterministic)
{
	struct rp_probe_budget b = { .hosts = 1000, .rails = 8, .weight = 0.5,
				     .rate_pps = 50, .budget_pps = 700,
				     .max_flows = 40 };
	struct rp_probe_sched s1, s2;
	unsigned int *count;

	ASSERT_EQ(0, rp_probe_schedule(&b, &s1));
	ASSERT_EQ(0, rp_probe_schedule(&b, &s2));
	ASSERT_EQ(0, memcmp(&s1, &s2, sizeof(s1)));
	count = calloc(s1.slots, sizeof(*count));
	for (unsigned int i = 0; i < b.hosts; i++) {
		unsigned int a, ar, c, cr;

		rp_probe_host_slot(&s1, i, &a, &ar);
		rp_probe_host_slot(&s2, i, &c, &cr);
		ASSERT_EQ(a, c);
		ASSERT_EQ(ar, cr);
		ASSERT_LT(a, s1.slots);
		ASSERT_LT(ar, b.rails);
		count[a]++;
	}
	/* the slots are as full as the hosts allow, within one */
	for (unsigned int k = 0; k < s1.slots; k++) {
		EXPECT_LE(count[k], s1.per_slot);
		EXPECT_GE(count[k] + 1, b.hosts / s1.slots);
	}
	free(count);
}

/* The wait until a slot opens, on the wall clock, across cycles. */
TEST(slot_wait)
{
	struct rp_probe_budget b = { .hosts = 8, .rails = 1, .weight = 1,
				     .rate_pps = 100, .budget_pps = 125,
				     .max_flows = 1 };
	struct rp_probe_sched s;

	ASSERT_EQ(0, rp_probe_schedule(&b, &s));
	ASSERT_EQ(8, s.slots);			/* one host per slot */
	EXPECT_EQ(0, rp_probe_slot_wait_ms(&s, 3, 3000));
	EXPECT_EQ(0, rp_probe_slot_wait_ms(&s, 3, 3999));
	EXPECT_EQ(7000, rp_probe_slot_wait_ms(&s, 3, 4000));
	EXPECT_EQ(1, rp_probe_slot_wait_ms(&s, 3, 2999));
	EXPECT_EQ(3000, rp_probe_slot_wait_ms(&s, 3, 8000000));
	EXPECT_EQ(0, rp_probe_slot_wait_ms(&s, 0, 1764800000000ULL));
}

/* A budget past the bound is refused with the time it achieves and what fits. */
TEST(bound_refused)
{
	struct rp_probe_budget b = { .hosts = 16384, .rails = 8, .weight = 0.5,
				     .rate_pps = 50, .budget_pps = 100,
				     .max_flows = 32 };
	struct rp_probe_slot sl;
	struct rp_probe_sched s;
	char why[512];
	unsigned int need;

	memset(&sl, 0, sizeof(sl));
	ASSERT_EQ(-EDOM, rp_probe_budget_verdict(&b, &sl, why, sizeof(why)));
	TH_LOG("%s", why);
	/* 3 hosts per rail, 24 per slot, 683 slots of 1 s */
	EXPECT_NE(NULL, strstr(why, "at least 683 s"));
	EXPECT_NE(NULL, strstr(why, "above the 300 s bound"));
	EXPECT_NE(NULL, strstr(why, "a budget of at least 219 fits"));
	need = rp_probe_budget_needed(&b, RP_PROBE_BUDGET_BOUND_S);
	ASSERT_EQ(219, need);
	b.budget_pps = need;
	ASSERT_EQ(0, rp_probe_schedule(&b, &s));
	EXPECT_LE(s.min_ms, RP_PROBE_BUDGET_BOUND_S * 1000);
	ASSERT_EQ(0, rp_probe_budget_verdict(&b, &sl, why, sizeof(why)));
	b.budget_pps = need - 1;
	ASSERT_EQ(0, rp_probe_schedule(&b, &s));
	EXPECT_GT(s.min_ms, RP_PROBE_BUDGET_BOUND_S * 1000);

	/* a host's flows alone outlast the bound: no budget fits */
	b.budget_pps = 1000000;
	b.max_flows = 50 * RP_PROBE_BUDGET_BOUND_S + 1;
	ASSERT_EQ(-EDOM, rp_probe_budget_verdict(&b, &sl, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "no budget fits"));
	EXPECT_EQ(0, rp_probe_budget_needed(&b, RP_PROBE_BUDGET_BOUND_S));

	/* one host per rail at 50/s asks a spine for 25/s: 30 is too little */
	b.max_flows = 32;
	b.budget_pps = 30;
	ASSERT_EQ(-EDOM, rp_probe_budget_verdict(&b, &sl, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "already asks a switch for 25/s"));
}

static void example(char *buf, size_t len, const char *file)
{
	rp_test_example(buf, len, "fabric", file);
}

/* The figures rocepathd takes from the example fabric: 4 hosts, 1 rail, 4 spines. */
TEST(topology_figures)
{
	char path[PATH_MAX + 64];
	struct rp_probe_budget b = { 0 };
	struct rp_topo *t = NULL;
	struct rp_err e;

	example(path, sizeof(path), "topology-measured.json");
	ASSERT_EQ(0, rp_topo_load(path, &t, &e));
	ASSERT_EQ(0, rp_probe_budget_topo(t, &b));
	EXPECT_EQ(4, b.hosts);
	EXPECT_EQ(1, b.rails);
	EXPECT_EQ(0.25, b.weight);
	EXPECT_EQ(0, rp_probe_host_index(t, "h1"));
	EXPECT_EQ(3, rp_probe_host_index(t, "h4"));
	EXPECT_EQ(-ENOENT, rp_probe_host_index(t, "h9"));
	rp_topo_free(t);
}

/* A config whose budget is refused: --check and start-up both say why. */
TEST(config_error)
{
	char dir[] = "/tmp/rp-budget-XXXXXX", cfgpath[64], text[3 * PATH_MAX];
	char topo[PATH_MAX + 64], place[PATH_MAX + 64];
	char summary[512], err[1024] = "", want[128];
	struct rp_pins pins = { 0 };
	struct rpd_config cfg;

	ASSERT_NE(NULL, mkdtemp(dir));
	example(topo, sizeof(topo), "topology-measured.json");
	example(place, sizeof(place), "placement.json");
	snprintf(text, sizeof(text),
		 "{\"topology\": \"%s\", \"placement\": \"%s\", \"host\": \"h1\","
		 " \"state_dir\": \"%s\", \"metrics\": {\"path\": null},"
		 " \"probe_budget_pps\": 10}", topo, place, dir);
	test_put_file(dir, "rocepathd.conf", text, 0644);
	snprintf(cfgpath, sizeof(cfgpath), "%s/rocepathd.conf", dir);
	ASSERT_EQ(0, rpd_config_load(cfgpath, &cfg, err, sizeof(err))) TH_LOG("%s", err);

	/* one host at 50/s over 4 spines asks each for 12.5/s; 80 % of 10 is 8 */
	ASSERT_EQ(-EDOM, rpd_plan_files(&cfg, &pins, summary, sizeof(summary),
					err, sizeof(err)));
	TH_LOG("%s", err);
	snprintf(want, sizeof(want), "%s: key 'probe_budget_pps': 10 answers/s per switch", cfgpath);
	EXPECT_EQ(0, strncmp(err, want, strlen(want)));
	EXPECT_NE(NULL, strstr(err, "asks a switch for 12.5/s"));
	EXPECT_EQ(0, pins.n);
	err[0] = '\0';
	ASSERT_EQ(-EDOM, rpd_budget_check(&cfg, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, want, strlen(want)));

	/* 16 fits: the plan goes on (with the cache alone) and start-up passes */
	cfg.probe_budget_pps = 16;
	EXPECT_EQ(0, rpd_budget_check(&cfg, err, sizeof(err)));
	EXPECT_EQ(0, rpd_plan_files(&cfg, &pins, summary, sizeof(summary),
				    err, sizeof(err))) TH_LOG("%s", err);
	rp_pins_free(&pins);
	rpd_config_free(&cfg);
	unlink(cfgpath);
	rmdir(dir);
}

/* A fabric in a function: the spine a port reaches mixes pair and port. */
static int fake_fn(void *ctx, const struct rp_probe_pair *pp, uint16_t sport,
		   const struct rp_probe_opts *o, int *sw, char *why, size_t len)
{
	unsigned int *calls = ctx;
	uint32_t h = (sport * 2654435761u) ^ (pp->dst.raw[3] * 9973u);

	(*calls)++;
	/* switches sort leaf0, leaf1, spine0..3 */
	*sw = 2 + (h >> 13) % 4;
	return 1;
}

static int walk(const struct rp_topo *t, const struct rp_place *p,
		struct rp_probes *ps, unsigned int *calls)
{
	struct rp_probe_opts o = RP_PROBE_OPTS_DEFAULT;
	struct rp_probe_report rep = { 0 };
	struct rp_probe_pair *pairs = NULL;
	struct rp_plan *plan = NULL;
	struct rp_err e;
	size_t n = 0;
	int ret;

	ret = rp_plan_compute(t, p, &plan, &e);
	if (!ret)
		ret = rp_plan_probe_pairs(plan, "h1", &pairs, &n);
	if (!ret)
		ret = rp_probe_walk(pairs, n, rp_topo_nswitches(t), &o, fake_fn,
				    calls, ps, &rep);
	rp_probe_report_free(&rep);
	rp_probe_pairs_free(pairs, n);
	rp_plan_free(plan);
	return ret;
}

/*
 * The cache as rocepathd keeps it: a re-plan on the same topology bytes
 * sends nothing; other bytes (a link marked down) drop every answer.
 */
TEST(cache_by_topology_digest)
{
	char dir[] = "/tmp/rp-cache-XXXXXX", cache[64], path[PATH_MAX + 64];
	struct rp_probes ps = { 0 }, again = { 0 }, stale = { 0 };
	struct rp_topo *t = NULL, *t2 = NULL;
	struct rp_place *p = NULL, *p2 = NULL;
	unsigned int calls = 0;
	char *text, *down;
	struct rp_err e;
	FILE *f;
	long len;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cache, sizeof(cache), "%s/probes.json", dir);
	example(path, sizeof(path), "topology-measured.json");
	ASSERT_EQ(0, rp_topo_load(path, &t, &e));
	example(path, sizeof(path), "placement.json");
	ASSERT_EQ(0, rp_place_load(path, t, &p, &e));

	rp_probe_cache_load(t, cache, &ps);		/* no file: empty */
	ASSERT_EQ(0, ps.n);
	ASSERT_EQ(0, walk(t, p, &ps, &calls));
	ASSERT_GE(calls, 4);
	ASSERT_EQ(0, rp_probes_save(t, &ps, cache));

	/* the same bytes: every answer back, nothing sent */
	rp_probe_cache_load(t, cache, &again);
	ASSERT_EQ(ps.n, again.n);
	calls = 0;
	ASSERT_EQ(0, walk(t, p, &again, &calls));
	EXPECT_EQ(0, calls);
	EXPECT_EQ(rp_probes_digest(&ps), rp_probes_digest(&again));

	/* leaf0-spine0 down: another digest, so the answers are stale */
	example(path, sizeof(path), "topology-measured.json");
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(len + 1, 1);
	ASSERT_EQ(len, fread(text, 1, len, f));
	fclose(f);
	down = strstr(text, "\"up\": true");
	ASSERT_NE(NULL, down);
	memcpy(down, "\"up\":false", 10);
	ASSERT_EQ(0, rp_topo_parse("down.json", text, len, &t2, &e)) TH_LOG("%s", e.msg);
	ASSERT_NE(rp_topo_digest(t), rp_topo_digest(t2));
	ASSERT_EQ(0, rp_place_parse("placement", "{\"jobs\": []}", 12, t2, &p2, &e));
	rp_probe_cache_load(t2, cache, &stale);
	EXPECT_EQ(0, stale.n);
	EXPECT_EQ(rp_topo_digest(t2), stale.digest);
	rp_place_free(p2);
	example(path, sizeof(path), "placement.json");
	ASSERT_EQ(0, rp_place_load(path, t2, &p2, &e));
	calls = 0;
	ASSERT_EQ(0, walk(t2, p2, &stale, &calls));
	EXPECT_GT(calls, 0);

	free(text);
	rp_probes_free(&ps);
	rp_probes_free(&again);
	rp_probes_free(&stale);
	rp_place_free(p);
	rp_place_free(p2);
	rp_topo_free(t);
	rp_topo_free(t2);
	unlink(cache);
	rmdir(dir);
}

TEST_HARNESS_MAIN
