// SPDX-License-Identifier: GPL-2.0
/*
 * The placement advisor: on small oversubscribed fabrics with fragmented
 * jobs its choice plans to a max link load no higher than first fit's and
 * every random choice's (each planned independently here), on tiny ones it
 * reaches the best of all host sets (brute force), its reported
 * figures are those of planning its placement file, it takes a whole free
 * rack when one fits, it is deterministic, it rejects bad requests with the
 * reason, and its placement file keeps the input and is written atomically.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"

#include "plan_advise.h"
#include "plan_int.h"

/* ---- a small rail-optimised fabric as JSON text --------------------- */

struct fab {
	int leaves, hpl, spines, uplinks, rails;
};

/* Host h of the fabric: "h<leaf group><index>", e.g. h03 = group 0, #3. */
static void host_name(char *b, size_t n, const struct fab *f, int h)
{
	snprintf(b, n, "h%d%d", h / f->hpl, h % f->hpl);
}

static char *topo_json(const struct fab *f)
{
	char *s = NULL, b[32];
	size_t len;
	FILE *m = open_memstream(&s, &len);
	bool first = true;

	fprintf(m, "{\"switches\": [");
	for (int r = 0; r < f->rails; r++) {
		for (int l = 0; l < f->leaves; l++) {
			fprintf(m, "%s{\"name\": \"leaf%d-%d\", \"tier\": \"leaf\"}",
				first ? "" : ", ", r, l);
			first = false;
		}
		/* CRC-32 at the spines: uncorrelated with the leaves' CRC-16 */
		for (int k = 0; k < f->spines; k++)
			fprintf(m, ", {\"name\": \"spine%d-%d\", \"tier\": \"spine\", \"hash\": {\"algorithm\": \"crc32\", \"select\": \"lo16\", \"seed\": %d}}",
				r, k, 81 + k);
	}
	fprintf(m, "], \"links\": [");
	first = true;
	for (int r = 0; r < f->rails; r++) {
		int sport[16] = { 0 };

		for (int l = 0; l < f->leaves; l++)
			for (int u = 0; u < f->uplinks; u++) {
				int k = u % f->spines;

				fprintf(m, "%s{\"a\": \"leaf%d-%d\", \"a_port\": %d, \"b\": \"spine%d-%d\", \"b_port\": %d, \"up\": true}",
					first ? "" : ", ", r, l, 33 + u, r, k,
					++sport[k]);
				first = false;
			}
	}
	fprintf(m, "], \"hosts\": [");
	for (int h = 0; h < f->leaves * f->hpl; h++) {
		host_name(b, sizeof(b), f, h);
		fprintf(m, "%s{\"name\": \"%s\", \"nics\": [", h ? ", " : "", b);
		for (int r = 0; r < f->rails; r++)
			fprintf(m, "%s{\"rail\": %d, \"netdev\": \"eth%d\", \"ip\": \"10.%d.%d.%d\", \"leaf\": \"leaf%d-%d\"}",
				r ? ", " : "", r, r, r, h / 200, h % 200 + 1, r,
				h / f->hpl);
		fprintf(m, "]}");
	}
	fprintf(m, "]}\n");
	fclose(m);
	return s;
}

static uint64_t rng;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return rng >> 33;
}

/* One job's JSON element; hosts[] in ring order. */
static void job_json(FILE *m, const struct fab *f, const char *id,
		     const char *pattern, int qps, const int *hosts, int n)
{
	char b[32];

	fprintf(m, "{\"id\": \"%s\", \"pattern\": \"%s\", \"qps_per_connection\": %d, \"rails\": [",
		id, pattern, qps);
	for (int r = 0; r < f->rails; r++)
		fprintf(m, "%s%d", r ? ", " : "", r);
	fprintf(m, "], \"hosts\": [");
	for (int i = 0; i < n; i++) {
		host_name(b, sizeof(b), f, hosts[i]);
		fprintf(m, "%s\"%s\"", i ? ", " : "", b);
	}
	fprintf(m, "]}");
}

/*
 * Fragmented placement: jobs of the given sizes on hosts drawn at random
 * (seeded), ring order random too, as a busy scheduler leaves them.
 * busy[] marks the hosts taken.
 */
static char *frag_json(const struct fab *f, uint64_t seed, const int *sizes,
		       int njobs, int *busy)
{
	int nh = f->leaves * f->hpl, *perm = calloc(nh, sizeof(int)), at = 0;
	char *s = NULL, id[16];
	size_t len;
	FILE *m = open_memstream(&s, &len);

	rng = seed;
	for (int i = 0; i < nh; i++)
		perm[i] = i;
	for (int i = nh - 1; i > 0; i--) {
		int j = rnd() % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	memset(busy, 0, nh * sizeof(int));
	fprintf(m, "{\"comment\": \"kept as is\", \"jobs\": [");
	for (int j = 0; j < njobs; j++) {
		snprintf(id, sizeof(id), "old%d", j);
		if (j)
			fprintf(m, ", ");
		job_json(m, f, id, "ring", 2, &perm[at], sizes[j]);
		for (int i = 0; i < sizes[j]; i++)
			busy[perm[at + i]] = 1;
		at += sizes[j];
	}
	fprintf(m, "]}\n");
	fclose(m);
	free(perm);
	return s;
}

/* The placement text with one more job appended (the advisor's format). */
static char *with_job(const char *place, const struct fab *f, const char *id,
		      const char *pattern, int qps, const int *hosts, int n)
{
	char *s = NULL, *cut = strrchr(place, ']');
	size_t len;
	FILE *m = open_memstream(&s, &len);

	const char *prev = cut;

	while (prev > place && (prev[-1] == ' ' || prev[-1] == '\n'))
		prev--;
	/* no comma after "[" when the placement has no jobs yet */
	fprintf(m, "%.*s%s", (int)(cut - place), place,
		prev > place && prev[-1] == '[' ? "" : ", ");
	job_json(m, f, id, pattern, qps, hosts, n);
	fprintf(m, "%s", cut);
	fclose(m);
	return s;
}

/* Plans topology + placement text independently of the advisor. */
static int plan_of(const struct rp_topo *t, const char *place,
		   struct rp_plan_summary *sum)
{
	struct rp_place *p = NULL;
	struct rp_plan *pl = NULL;
	struct rp_err e;
	char b[1200];
	int ret;

	ret = rp_place_parse("place", place, strlen(place), t, &p, &e);
	if (!ret)
		ret = rp_plan_compute(t, p, &pl, &e);
	if (ret)
		fprintf(stderr, "# %s\n", rp_err_str(&e, b, sizeof(b)));
	else
		*sum = *rp_plan_summary(pl);
	rp_plan_free(pl);
	rp_place_free(p);
	return ret;
}

static int advise(const struct rp_topo *t, const char *place,
		  const struct rp_advise_req *req, struct rp_advice **a,
		  struct rp_err *e)
{
	struct rp_place *p = NULL;
	int ret;

	memset(e, 0, sizeof(*e));
	ret = rp_place_parse("place", place, strlen(place), t, &p, e);
	if (!ret)
		ret = rp_place_advise(t, p, req, a, e);
	rp_place_free(p);
	return ret;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * One scenario: the advisor's max link load is <= first fit's and <= that
 * of 8 random choices (N free hosts drawn here, listed by name as a
 * scheduler would), and what it reports is what planning its file gives.
 */
static void not_worse(struct __test_metadata *_metadata, const struct fab *f,
		      uint64_t seed, const int *sizes, int njobs,
		      const char *pattern, int n, int qps)
{
	int nh = f->leaves * f->hpl, *busy = calloc(nh, sizeof(int));
	char *ts = topo_json(f), *ps = frag_json(f, seed, sizes, njobs, busy);
	struct rp_advise_req req = { .job = "new", .nhosts = n,
				     .pattern = pattern, .qps = qps };
	int *pick = calloc(n, sizeof(int)), nfree = 0, *fr;
	struct rp_plan_summary sum, mine;
	struct rp_advice *a = NULL;
	struct rp_topo *t = NULL;
	char *text = NULL, *q;
	struct rp_err e;

	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	ASSERT_EQ(n, a->nhosts);
	/* names group racks here: ring order is name order, as Slurm lists */
	for (int i = 1; i < n; i++)
		EXPECT_GT(0, strcmp(a->hosts[i - 1], a->hosts[i]));

	/* the reported figures are those of the advised placement */
	ASSERT_EQ(0, rp_advice_placement_text(a, "place", ps, strlen(ps),
					      &text, &e));
	ASSERT_EQ(0, plan_of(t, text, &mine));
	EXPECT_EQ(mine.max_link_flows, a->after.max_link_flows);
	EXPECT_EQ(mine.lower_bound, a->after.lower_bound);
	ASSERT_EQ(0, plan_of(t, ps, &sum));
	EXPECT_EQ(sum.max_link_flows, a->before.max_link_flows);

	fr = calloc(nh, sizeof(int));
	for (int h = 0; h < nh; h++)
		if (!busy[h])
			fr[nfree++] = h;
	/* first fit: the first n free hosts by name (= host order here) */
	q = with_job(ps, f, "new", pattern, qps, fr, n);
	ASSERT_EQ(0, plan_of(t, q, &sum));
	free(q);
	TH_LOG("seed %llu %s n=%d: advisor %u (lb %u), first fit %u (lb %u)",
	       (unsigned long long)seed, pattern, n, mine.max_link_flows,
	       mine.lower_bound, sum.max_link_flows, sum.lower_bound);
	EXPECT_LE(mine.max_link_flows, sum.max_link_flows);
	for (int s = 1; s <= 8; s++) {
		rng = seed * 1000 + s;
		for (int i = 0; i < n; i++) {
			int j = i + rnd() % (nfree - i), tmp = fr[i];

			fr[i] = fr[j];
			fr[j] = tmp;
			pick[i] = fr[i];
		}
		qsort(pick, n, sizeof(int), cmp_int);
		qsort(fr, nfree, sizeof(int), cmp_int);
		q = with_job(ps, f, "new", pattern, qps, pick, n);
		ASSERT_EQ(0, plan_of(t, q, &sum));
		free(q);
		EXPECT_LE(mine.max_link_flows, sum.max_link_flows)
			TH_LOG("random draw %d: %u", s, sum.max_link_flows);
	}
	free(fr);
	free(text);
	free(pick);
	free(busy);
	free(ts);
	free(ps);
	rp_advice_free(a);
	rp_topo_free(t);
}

/* 8 leaves x 4 hosts, 2 spines, 2 uplinks: 2:1 oversubscribed */
static const struct fab small = { .leaves = 8, .hpl = 4, .spines = 2,
				  .uplinks = 2, .rails = 1 };

TEST(not_worse_than_first_fit_and_random)
{
	static const int sizes[] = { 8, 6, 5, 3 };	/* 22 of 32 busy */

	for (uint64_t seed = 1; seed <= 3; seed++) {
		not_worse(_metadata, &small, seed, sizes, 4, "ring", 6, 4);
		not_worse(_metadata, &small, seed, sizes, 4, "ring", 4, 2);
		not_worse(_metadata, &small, seed, sizes, 4, "alltoall", 4, 1);
		not_worse(_metadata, &small, seed, sizes, 4, "alltoall", 8, 1);
	}
}

TEST(not_worse_two_rails)
{
	static const struct fab f = { .leaves = 6, .hpl = 4, .spines = 2,
				      .uplinks = 2, .rails = 2 };
	static const int sizes[] = { 6, 5, 4 };

	for (uint64_t seed = 4; seed <= 5; seed++) {
		not_worse(_metadata, &f, seed, sizes, 3, "ring", 5, 4);
		not_worse(_metadata, &f, seed, sizes, 3, "alltoall", 4, 1);
	}
}

/*
 * Brute force on tiny fabrics: every n-subset of the free hosts (listed by
 * name, the advisor's ring order here) is planned; the advice reaches the
 * lowest max link load of them all. (Not a property of the heuristics in
 * general -- see random_fabrics -- but of every instance of this class
 * tried: 60 of 60 while developing.)
 */
static void brute_force(struct __test_metadata *_metadata, uint64_t seed,
			const char *pattern, int n, int qps)
{
	static const struct fab f = { .leaves = 6, .hpl = 4, .spines = 2,
				      .uplinks = 2, .rails = 1 };
	static const int sizes[] = { 5, 4, 3 };
	int busy[24], fr[24] = { 0 }, nfree = 0, idx[24], pick[24];
	char *ts = topo_json(&f), *ps = frag_json(&f, seed, sizes, 3, busy);
	struct rp_advise_req req = { .job = "new", .nhosts = n,
				     .pattern = pattern, .qps = qps };
	struct rp_plan_summary sum;
	struct rp_advice *a = NULL;
	struct rp_topo *t = NULL;
	unsigned int best = ~0u;
	struct rp_err e;
	int sets = 0;

	for (int h = 0; h < 24; h++)
		if (!busy[h])
			fr[nfree++] = h;
	ASSERT_LE(n, nfree);
	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (;;) {
		char *q;
		int i;

		for (i = 0; i < n; i++)
			pick[i] = fr[idx[i]];
		q = with_job(ps, &f, "new", pattern, qps, pick, n);
		ASSERT_EQ(0, plan_of(t, q, &sum));
		free(q);
		sets++;
		if (sum.max_link_flows < best)
			best = sum.max_link_flows;
		/* next n-combination of nfree, in lexicographic order */
		for (i = n - 1; i >= 0 && idx[i] == nfree - n + i; i--)
			;
		if (i < 0)
			break;
		idx[i]++;
		for (int k = i + 1; k < n; k++)
			idx[k] = idx[k - 1] + 1;
	}
	TH_LOG("seed %llu %s n=%d: advisor %u, best of %d host sets %u",
	       (unsigned long long)seed, pattern, n, a->after.max_link_flows,
	       sets, best);
	EXPECT_EQ(best, a->after.max_link_flows);
	rp_advice_free(a);
	rp_topo_free(t);
	free(ts);
	free(ps);
}

TEST(optimal_on_tiny_fabrics)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		brute_force(_metadata, seed, "ring", 5, 2);
		brute_force(_metadata, seed, "alltoall", 4, 1);
	}
}

/*
 * Random small fabrics and fragmented placements: the advice is always N
 * distinct free hosts with NICs on the job's rails, its figures are those
 * of planning its file, and it never plans worse than first fit, one of
 * its candidates (RP_TEST_TRIALS, RP_TEST_SEED to explore further).
 */
TEST(random_fabrics)
{
	const char *e1 = getenv("RP_TEST_TRIALS"), *e2 = getenv("RP_TEST_SEED");
	int trials = e1 ? atoi(e1) : 40, worse = 0, draws = 0, ffwin = 0;
	uint64_t base = e2 ? strtoull(e2, NULL, 0) : 12;

	for (int tr = 0; tr < trials; tr++) {
		struct fab f;
		int sizes[3], nj, nh, *busy, nfree = 0, *fr, n;
		struct rp_advise_req req = { .job = "new" };
		struct rp_plan_summary mine, ff;
		struct rp_advice *a = NULL;
		struct rp_topo *t = NULL;
		char *ts, *ps, *q, *text;
		struct rp_err e;

		rng = base * 7919 + tr;
		f.leaves = 2 + rnd() % 5;
		f.hpl = 1 + rnd() % 5;
		f.spines = 1 + rnd() % 3;
		f.uplinks = 1 + rnd() % 4;
		f.rails = 1 + rnd() % 2;
		nh = f.leaves * f.hpl;
		/* busy jobs, leaving at least one host free */
		nj = 0;
		for (int j = 0, left = nh - 1, want = rnd() % 4; j < want; j++) {
			int sz = 1 + rnd() % (nh / 4 + 1);

			if (sz > left)
				break;
			sizes[nj++] = sz;
			left -= sz;
		}
		busy = calloc(nh, sizeof(int));
		fr = calloc(nh, sizeof(int));
		req.pattern = rnd() % 2 ? "alltoall" : "ring";
		req.qps = 1 + rnd() % 3;
		ts = topo_json(&f);
		ps = frag_json(&f, base * 31 + tr, sizes, nj, busy);
		for (int h = 0; h < nh; h++)
			if (!busy[h])
				fr[nfree++] = h;
		rng = base * 131 + tr;
		n = req.nhosts = 1 + rnd() % nfree;
		ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
		ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
		ASSERT_EQ(n, a->nhosts);
		for (int i = 0; i < n; i++) {
			int h = rp_topo_find_host(t, a->hosts[i]);
			char b[32];

			ASSERT_LE(0, h);
			for (int k = 0; k < i; k++)
				EXPECT_STRNE(a->hosts[k], a->hosts[i]);
			/* topology order of names is not generator order: find it */
			for (int g = 0; g < nh; g++) {
				host_name(b, sizeof(b), &f, g);
				if (!strcmp(b, a->hosts[i]))
					EXPECT_EQ(0, busy[g]) TH_LOG("%s is busy", b);
			}
		}
		ASSERT_EQ(0, rp_advice_placement_text(a, "place", ps, strlen(ps),
						      &text, &e));
		ASSERT_EQ(0, plan_of(t, text, &mine));
		EXPECT_EQ(mine.max_link_flows, a->after.max_link_flows);
		q = with_job(ps, &f, "new", req.pattern, req.qps, fr, n);
		ASSERT_EQ(0, plan_of(t, q, &ff));
		ffwin += !strcmp(a->strategy, "first fit");
		/* random draws (listed by name): how often one beats it */
		for (int d = 0; d < 3; d++) {
			int *pick = calloc(n, sizeof(int));
			struct rp_plan_summary rs;

			for (int i = 0; i < n; i++) {
				int j = i + rnd() % (nfree - i), tmp = fr[i];

				fr[i] = fr[j];
				fr[j] = tmp;
				pick[i] = fr[i];
			}
			qsort(pick, n, sizeof(int), cmp_int);
			qsort(fr, nfree, sizeof(int), cmp_int);
			free(q);
			q = with_job(ps, &f, "new", req.pattern, req.qps, pick, n);
			ASSERT_EQ(0, plan_of(t, q, &rs));
			draws++;
			worse += mine.max_link_flows > rs.max_link_flows;
			free(pick);
		}
		EXPECT_LE(mine.max_link_flows, ff.max_link_flows)
			TH_LOG("trial %d: %d leaves x %d hosts, %d spines, %d uplinks, %d rails, %s n=%d",
			       tr, f.leaves, f.hpl, f.spines, f.uplinks, f.rails,
			       req.pattern, n);
		free(q);
		free(text);
		free(ts);
		free(ps);
		free(busy);
		free(fr);
		rp_advice_free(a);
		rp_topo_free(t);
	}
	/* figures for the documentation, not assertions */
	TH_LOG("%d trials: first fit chosen in %d; %d of %d random draws plan better",
	       trials, ffwin, worse, draws);
}

/* A free rack that holds the job is taken whole, in one leaf. */
TEST(whole_rack_preferred)
{
	static const struct fab f = { .leaves = 4, .hpl = 4, .spines = 2,
				      .uplinks = 2, .rails = 1 };
	/* two hosts busy in each of leaves 0..2, leaf 3 free */
	static const int old[] = { 0, 5, 8, 1, 4, 9 };
	struct rp_advise_req req = { .job = "new", .nhosts = 4, .qps = 2 };
	struct rp_advice *a = NULL;
	struct rp_topo *t = NULL;
	char *ts = topo_json(&f), *ps, *s = NULL;
	struct rp_err e;
	size_t len;
	int w;
	FILE *m = open_memstream(&s, &len);

	fprintf(m, "{\"jobs\": [");
	job_json(m, &f, "old", "ring", 2, old, 6);
	fprintf(m, "]}");
	fclose(m);
	ps = s;
	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	ASSERT_EQ(1, a->nracks);
	EXPECT_STREQ("leaf0-3", a->racks[0].leaves[0]);
	EXPECT_EQ(4, a->racks[0].taken);
	EXPECT_EQ(4, a->racks[0].free);
	EXPECT_EQ(0, a->after.job_fabric_flows);
	EXPECT_STREQ("h30", a->hosts[0]);
	EXPECT_STREQ("h33", a->hosts[3]);
	rp_advice_free(a);

	/* two hosts: one leaf (best fit: a half-free rack, not the free one) */
	req.nhosts = 2;
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	ASSERT_EQ(1, a->nracks);
	EXPECT_NE(0, strcmp("leaf0-3", a->racks[0].leaves[0]));
	EXPECT_EQ(0, a->after.job_fabric_flows);
	rp_advice_free(a);

	/* six hosts: the free rack whole plus two from one other leaf */
	req.nhosts = 6;
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	ASSERT_EQ(2, a->nracks);
	w = !strcmp("leaf0-3", a->racks[1].leaves[0]);
	EXPECT_STREQ("leaf0-3", a->racks[w].leaves[0]);
	EXPECT_EQ(4, a->racks[w].taken);
	EXPECT_EQ(2, a->racks[!w].taken);
	rp_advice_free(a);
	free(ts);
	free(ps);
	rp_topo_free(t);
}

/* Same files (jobs in any order) and request: the same hosts. */
TEST(deterministic)
{
	static const int sizes[] = { 8, 6, 5, 3 };
	int busy[32];
	char *ts = topo_json(&small), *ps = frag_json(&small, 7, sizes, 4, busy);
	struct rp_advise_req req = { .job = "new", .nhosts = 5, .qps = 2 };
	struct rp_advice *a = NULL, *b = NULL;
	struct rp_topo *t = NULL;
	json_object *root, *jobs, *rev;
	struct rp_err e;
	const char *ps2;

	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	root = json_tokener_parse(ps);
	jobs = json_object_object_get(root, "jobs");
	rev = json_object_new_array();
	for (int i = json_object_array_length(jobs) - 1; i >= 0; i--)
		json_object_array_add(rev, json_object_get(
			json_object_array_get_idx(jobs, i)));
	json_object_object_add(root, "jobs", rev);
	ps2 = json_object_to_json_string(root);
	ASSERT_EQ(0, advise(t, ps2, &req, &b, &e));
	ASSERT_EQ(a->nhosts, b->nhosts);
	for (int i = 0; i < a->nhosts; i++)
		EXPECT_STREQ(a->hosts[i], b->hosts[i]);
	EXPECT_STREQ(a->strategy, b->strategy);
	json_object_put(root);
	rp_advice_free(a);
	rp_advice_free(b);
	free(ts);
	free(ps);
	rp_topo_free(t);
}

/* Bad requests fail with the reason; nothing is advised. */
TEST(errors)
{
	static const int sizes[] = { 8, 6, 5, 3 };
	int busy[32];
	char *ts = topo_json(&small), *ps = frag_json(&small, 1, sizes, 4, busy);
	struct rp_advise_req req = { .job = "old2", .nhosts = 2 };
	struct rp_advice *a = NULL;
	struct rp_topo *t = NULL;
	struct rp_err e;
	char b[1200];

	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	EXPECT_EQ(-EEXIST, advise(t, ps, &req, &a, &e));
	EXPECT_STREQ(".jobs", e.path);
	EXPECT_NE(NULL, strstr(e.msg, "\"old2\" is already placed"));

	req.job = "new";
	req.nhosts = 11;	/* 10 free */
	EXPECT_EQ(-ENOSPC, advise(t, ps, &req, &a, &e));
	EXPECT_NE(NULL, strstr(rp_err_str(&e, b, sizeof(b)),
			       "needs 11 hosts, 10 are free"));
	req.nhosts = 10;
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	EXPECT_EQ(10, a->nhosts);
	rp_advice_free(a);
	a = NULL;

	req.nhosts = 0;
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	req.nhosts = 2;
	req.job = "";
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	EXPECT_NE(NULL, strstr(e.msg, "job id"));
	req.job = "new";
	req.pattern = "tree";
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	EXPECT_NE(NULL, strstr(e.msg, "unknown pattern \"tree\""));
	req.pattern = NULL;
	req.qps = 1025;
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	req.qps = 0;
	req.nrails = 1;
	req.rails[0] = 3;	/* the fabric has rail 0 only */
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	EXPECT_NE(NULL, strstr(e.msg, "rail 3: no host"));
	req.nrails = 2;
	req.rails[0] = 0;
	req.rails[1] = 0;
	EXPECT_EQ(-EINVAL, advise(t, ps, &req, &a, &e));
	EXPECT_NE(NULL, strstr(e.msg, "duplicate rail 0"));
	EXPECT_EQ(NULL, a);
	free(ts);
	free(ps);
	rp_topo_free(t);
}

/* Entries of dir other than "." and "..", hidden ones included. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/*
 * The placement file: the input with the job appended (other keys kept),
 * accepted by the placement parser, written in place through a rename (no
 * temporary file left), and a failed write names the file.
 */
TEST(placement_file)
{
	static const int sizes[] = { 8, 6, 5, 3 };
	int busy[32];
	char *ts = topo_json(&small), *ps = frag_json(&small, 2, sizes, 4, busy);
	struct rp_advise_req req = { .job = "new", .nhosts = 4, .qps = 2 };
	char dir[] = "/tmp/rp-place-XXXXXX", path[128], b[1200];
	struct rp_advice *a = NULL;
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	json_object *root;
	struct rp_err e;
	char *text;
	size_t len;
	FILE *fp;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/placement.json", dir);
	fp = fopen(path, "w");
	ASSERT_NE(NULL, fp);
	fputs(ps, fp);
	fclose(fp);
	ASSERT_EQ(0, rp_topo_parse("topo", ts, strlen(ts), &t, &e));
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	ASSERT_EQ(0, rp_advice_save(a, path, path, &e));
	EXPECT_EQ(1, count_entries(dir));

	ASSERT_EQ(0, rp_read_file(path, &text, &len));
	root = json_tokener_parse(text);
	ASSERT_NE(NULL, root);
	EXPECT_STREQ("kept as is", json_object_get_string(
		json_object_object_get(root, "comment")));
	EXPECT_EQ(5, json_object_array_length(json_object_object_get(root, "jobs")));
	json_object_put(root);
	free(text);
	ASSERT_EQ(0, rp_place_load(path, t, &p, &e));
	ASSERT_EQ(5, p->njobs);
	for (int j = 0; j < p->njobs; j++) {
		if (strcmp(p->jobs[j].id, "new"))
			continue;
		EXPECT_EQ(4, p->jobs[j].nhosts);
		EXPECT_EQ(2, p->jobs[j].qps);
		for (int i = 0; i < 4; i++)
			EXPECT_STREQ(a->hosts[i],
				     t->hosts[p->jobs[j].hosts[i]].name);
	}
	rp_place_free(p);

	/* the job is placed now: advising it again is an error */
	rp_advice_free(a);
	a = NULL;
	ASSERT_EQ(0, rp_read_file(path, &text, &len));
	EXPECT_EQ(-EEXIST, advise(t, text, &req, &a, &e));
	free(text);

	/* an unwritable target: the error names it, the input is kept */
	ASSERT_EQ(0, advise(t, ps, &req, &a, &e));
	snprintf(b, sizeof(b), "%s/no/such/dir/p.json", dir);
	EXPECT_EQ(-ENOENT, rp_advice_save(a, path, b, &e));
	EXPECT_STREQ(b, e.file);
	EXPECT_NE(NULL, strstr(e.msg, "cannot write"));
	EXPECT_EQ(1, count_entries(dir));
	rp_advice_free(a);

	unlink(path);
	rmdir(dir);
	free(ts);
	free(ps);
	rp_topo_free(t);
}

TEST_HARNESS_MAIN
