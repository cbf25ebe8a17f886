// SPDX-License-Identifier: GPL-2.0
/*
 * Stable re-plans when a job starts on a busy zone: at least 97 % of the
 * running jobs' flows keep their ports, the max link load is that of the
 * plan from scratch, and the plan is the same on every run.
 *
 * The zone is a small examples/ai-zone: one rail, 16 hosts per leaf, 16
 * spines, one link from every leaf to every spine, every host in one of
 * four ring jobs (1/2, 1/4, 1/8, 1/8 of the hosts) drawn from a shuffled
 * host list, so that racks are shared and every leaf is at the bound. A
 * job that starts there fills exactly the room the others left, and
 * running flows must move where its units do not fit around them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness.h"

#include "plan.h"

#define HPL	16	/* hosts per leaf */
#define SPINES	16
#define NJOBS	4

/* The host order's generator (a 64-bit LCG): the same zone on every host. */
static uint32_t next(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return *st >> 33;
}

/* The zone's topology: hosts host000.., leaves leaf0.., spines spine0... */
static char *zone_topo(int nhosts)
{
	int nleaves = (nhosts + HPL - 1) / HPL;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fprintf(f, "{\"switches\": [");
	for (int l = 0; l < nleaves; l++)
		fprintf(f, "{\"name\": \"leaf%d\", \"tier\": \"leaf\"}, ", l);
	for (int s = 0; s < SPINES; s++)
		fprintf(f, "%s{\"name\": \"spine%d\", \"tier\": \"spine\"}",
			s ? ", " : "", s);
	fprintf(f, "], \"links\": [");
	for (int l = 0; l < nleaves; l++)
		for (int s = 0; s < SPINES; s++)
			fprintf(f, "%s{\"a\": \"leaf%d\", \"a_port\": %d, \"b\": \"spine%d\", \"b_port\": %d}",
				l || s ? ", " : "", l, 33 + s, s, 1 + l);
	fprintf(f, "], \"hosts\": [");
	for (int h = 0; h < nhosts; h++)
		fprintf(f, "%s{\"name\": \"host%03d\", \"nics\": [{\"rail\": 0, \"netdev\": \"eth0\", \"ip\": \"10.0.%d.%d\", \"leaf\": \"leaf%d\"}]}",
			h ? ", " : "", h, h >> 8, h & 255, h / HPL);
	fprintf(f, "]}");
	fclose(f);
	return out;
}

/*
 * The placement: job j takes the next share of the shuffled hosts, in
 * that (ring) order; job `skip` is left out (-1: none).
 */
static char *zone_jobs(const int *order, int nhosts, int skip)
{
	static const int div[NJOBS] = { 2, 4, 8, 8 };
	char *out = NULL;
	int start = 0;
	bool first = true;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fprintf(f, "{\"jobs\": [");
	for (int j = 0; j < NJOBS; j++) {
		int n = nhosts / div[j];

		start += n;
		if (j == skip)
			continue;
		fprintf(f, "%s{\"id\": \"job%d\", \"pattern\": \"ring\", \"qps_per_connection\": 4, \"rails\": [0], \"hosts\": [",
			first ? "" : ", ", j);
		for (int i = start - n; i < start; i++)
			fprintf(f, "%s\"host%03d\"", i > start - n ? ", " : "",
				order[i]);
		fprintf(f, "]}");
		first = false;
	}
	fprintf(f, "]}");
	fclose(f);
	return out;
}

static struct rp_place *parse_place(struct rp_topo *t, const char *s)
{
	struct rp_place *p = NULL;
	struct rp_err e;

	return rp_place_parse("place", s, strlen(s), t, &p, &e) ? NULL : p;
}

/* Whether two plans give every flow the same port (and status). */
static bool same_ports(const struct rp_plan *a, const struct rp_plan *b)
{
	json_object *ja = NULL, *jb = NULL;
	bool same;

	if (rp_plan_to_json(a, NULL, &ja) || rp_plan_to_json(b, NULL, &jb))
		same = false;
	else
		same = !strcmp(json_object_to_json_string(ja),
			       json_object_to_json_string(jb));
	json_object_put(ja);
	json_object_put(jb);
	return same;
}

/*
 * Two host orders on which the colouring before plan_colour_stable.c kept
 * 96.4 % and 96.9 % of the running flows' ports when job3 started (98.7 %
 * with it); RP_TEST_SEED replaces the first.
 */
FIXTURE(zone) {
	struct rp_topo *t;
	char *ts;
	int order[256];
};

FIXTURE_VARIANT(zone) {
	uint64_t seed;
};

FIXTURE_VARIANT_ADD(zone, seed17) { .seed = 17 };
FIXTURE_VARIANT_ADD(zone, seed18) { .seed = 18 };

FIXTURE_SETUP(zone)
{
	const char *env = getenv("RP_TEST_SEED");
	uint64_t st = env && variant->seed == 17 ? strtoull(env, NULL, 0) :
		      variant->seed;
	struct rp_err e;

	for (int i = 0; i < 256; i++)
		self->order[i] = i;
	for (int i = 256; i > 1; i--) {
		int k = next(&st) % i, x = self->order[i - 1];

		self->order[i - 1] = self->order[k];
		self->order[k] = x;
	}
	self->ts = zone_topo(256);
	ASSERT_NE(NULL, self->ts);
	ASSERT_EQ(0, rp_topo_parse("topo", self->ts, strlen(self->ts),
				   &self->t, &e));
}

FIXTURE_TEARDOWN(zone)
{
	rp_topo_free(self->t);
	free(self->ts);
}

/*
 * Each job in turn starts where the other three run: the stable re-plan
 * keeps >= 97 % of their ports, meets the bound and the plan from
 * scratch's max link load, and is the same plan when computed again.
 */
TEST_F(zone, job_starts)
{
	struct rp_topo *t = self->t;
	struct rp_err e;

	for (int j = 0; j < NJOBS; j++) {
		char *sb = zone_jobs(self->order, 256, j);
		char *sa = zone_jobs(self->order, 256, -1);
		struct rp_place *pb, *pa;
		struct rp_plan *b = NULL, *plain = NULL, *st = NULL, *st2 = NULL;
		unsigned int common = 0, kept = 0;

		ASSERT_NE(NULL, sb);
		ASSERT_NE(NULL, sa);
		pb = parse_place(t, sb);
		pa = parse_place(t, sa);
		ASSERT_NE(NULL, pb);
		ASSERT_NE(NULL, pa);
		ASSERT_EQ(0, rp_plan_compute(t, pb, &b, &e));
		ASSERT_EQ(0, rp_plan_compute(t, pa, &plain, &e));
		ASSERT_EQ(0, rp_plan_compute_stable(t, pa, b, &st, &e));
		ASSERT_EQ(0, rp_plan_compute_stable(t, pa, b, &st2, &e));
		ASSERT_EQ(0, rp_plan_stability(b, st, &common, &kept));
		TH_LOG("job%d starts: %u of %u running flows keep their port (%.1f %%), max %u, bound %u",
		       j, kept, common, 100.0 * kept / common,
		       rp_plan_summary(st)->max_link_flows,
		       rp_plan_summary(st)->lower_bound);
		EXPECT_GE(kept * 100, common * 97);
		EXPECT_EQ(rp_plan_summary(plain)->max_link_flows,
			  rp_plan_summary(st)->max_link_flows);
		EXPECT_EQ(rp_plan_summary(st)->lower_bound,
			  rp_plan_summary(st)->max_link_flows);
		EXPECT_EQ(0, rp_plan_summary(st)->unplaced);
		EXPECT_TRUE(same_ports(st, st2));
		rp_plan_free(st2);
		rp_plan_free(st);
		rp_plan_free(plain);
		rp_plan_free(b);
		rp_place_free(pa);
		rp_place_free(pb);
		free(sa);
		free(sb);
	}
}

TEST_HARNESS_MAIN
