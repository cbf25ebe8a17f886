// SPDX-License-Identifier: GPL-2.0
/*
 * Path probing without a fabric: the topology's measured hashes and switch
 * addresses, the probe file and its staleness check, the port walk over a
 * fake prober (cache, retries reported with pair and port, skipped ports),
 * the planner's choice of probed ports, and the error-queue parser.
 */
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"

#include "example_path.h"
#include "objs.h"
#include "plan_int.h"
#include "plan_probe.h"
#include "probe_sock.h"

/* The example fabric next to the binary's tree. */
static void example(char *buf, size_t len, const char *file)
{
	rp_test_example(buf, len, "fabric", file);
}

static struct rp_topo *load_topo(void)
{
	char path[PATH_MAX + 64];
	struct rp_topo *t = NULL;
	struct rp_err e;

	example(path, sizeof(path), "topology-measured.json");
	return rp_topo_load(path, &t, &e) ? NULL : t;
}

static struct rp_place *load_place(const struct rp_topo *t)
{
	char path[PATH_MAX + 64];
	struct rp_place *p = NULL;
	struct rp_err e;

	example(path, sizeof(path), "placement.json");
	return rp_place_load(path, t, &p, &e) ? NULL : p;
}

static int sw_index(const struct rp_topo *t, const char *name)
{
	for (int i = 0; i < rp_topo_nswitches(t); i++)
		if (!strcmp(rp_topo_switch_name(t, i), name))
			return i;
	return -1;
}

/*
 * A fabric in a function: the spine a port reaches is a fixed mix of the
 * pair and the port, as a real hash is; a dead spine never answers.
 */
struct fake {
	const struct rp_topo *t;
	int dead;		/* switch index that drops time-exceeded, or -1 */
	int busy;		/* a port a local socket holds, or 0 */
	int fatal;		/* the port at which probing cannot go on */
	int moved, to;		/* the ports of switch moved answer from to */
	unsigned int calls;
};

static int fake_spine(const struct rp_topo *t, const struct rp_probe_pair *pp,
		      uint16_t sport)
{
	uint32_t h = (sport * 2654435761u) ^ (pp->src.raw[3] * 40503u) ^
		     (pp->dst.raw[3] * 9973u);
	char name[16];

	snprintf(name, sizeof(name), "spine%u", (h >> 13) % 4);
	return sw_index(t, name);
}

static int fake_fn(void *ctx, const struct rp_probe_pair *pp, uint16_t sport,
		   const struct rp_probe_opts *o, int *sw, char *why, size_t len)
{
	struct fake *f = ctx;

	f->calls++;
	*sw = -1;
	if (sport == f->busy)
		return -EADDRINUSE;
	if (sport == f->fatal) {
		snprintf(why, len, "cannot bind to eth0: Operation not permitted");
		return -EPERM;
	}
	if (fake_spine(f->t, pp, sport) == f->dead) {
		snprintf(why, len, "no answer after %u tries", o->tries);
		return o->tries;
	}
	*sw = fake_spine(f->t, pp, sport);
	if (f->moved && *sw == f->moved)
		*sw = f->to;
	return 1;
}

/* Switch addresses name switches; bad lists are refused with a reason. */
TEST(topology_addresses_and_measured_hash)
{
	static const char *const bad[][2] = {
		{ "[\"203.0.113.1\",\"203.0.113.1\"]", "listed by" },
		{ "[\"192.0.2.1\"]", "also a host NIC" },
		{ "[\"nope\"]", "invalid IP address" },
		{ "[7]", "expected a string" },
	};
	struct rp_topo *t = load_topo();
	struct rp_addr a;
	struct rp_err e;

	ASSERT_NE(NULL, t);
	ASSERT_TRUE(rp_topo_measured(t));
	ASSERT_EQ(0, rp_topo_addr_parse("203.0.113.1", &a, NULL, 0));
	ASSERT_STREQ("spine0", rp_topo_switch_name(t, rp_topo_switch_of(t, &a)));
	ASSERT_EQ(0, rp_topo_addr_parse("203.0.113.131", &a, NULL, 0));
	ASSERT_STREQ("spine1", rp_topo_switch_name(t, rp_topo_switch_of(t, &a)));
	ASSERT_EQ(0, rp_topo_addr_parse("198.51.100.1", &a, NULL, 0));
	ASSERT_EQ(-1, rp_topo_switch_of(t, &a));
	ASSERT_EQ(0, rp_topo_addr_parse("192.0.2.3", &a, NULL, 0));
	ASSERT_EQ(0, rp_topo_check_nic(t, &a, NULL));
	ASSERT_EQ(0, rp_topo_check_nic(t, &a, "h3"));
	ASSERT_EQ(-ENOENT, rp_topo_check_nic(t, &a, "h1"));
	rp_topo_free(t);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024], b[1200];
		int ret;

		snprintf(text, sizeof(text),
			 "{\"switches\":[{\"name\":\"leaf0\",\"tier\":\"leaf\","
			 "\"hash\":{\"algorithm\":\"measured\"},\"addresses\":%s},"
			 "{\"name\":\"spine0\",\"tier\":\"spine\","
			 "\"addresses\":[\"203.0.113.1\"]}],"
			 "\"links\":[{\"a\":\"leaf0\",\"a_port\":1,\"b\":\"spine0\",\"b_port\":1}],"
			 "\"hosts\":[{\"name\":\"h1\",\"nics\":[{\"rail\":0,"
			 "\"ip\":\"192.0.2.1\",\"leaf\":\"leaf0\"}]}]}", bad[i][0]);
		memset(&e, 0, sizeof(e));
		t = NULL;
		ret = rp_topo_parse("topology.json", text, strlen(text), &t, &e);
		TH_LOG("%s", rp_err_str(&e, b, sizeof(b)));
		ASSERT_EQ(-EINVAL, ret);
		ASSERT_NE(NULL, strstr(e.msg, bad[i][1]));
		rp_topo_free(t);
	}
}

/* The probe file round-trips; other topologies' answers are stale. */
TEST(probe_file)
{
	char dir[] = "/tmp/rp-test-probe-XXXXXX", path[64], text[512], b[1200];
	struct rp_topo *t = load_topo();
	struct rp_probes ps = { 0 }, back;
	struct rp_probe p = { .sport = 49160 };
	struct rp_err e;

	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/probes.json", dir);
	ps.digest = rp_topo_digest(t);
	rp_topo_addr_parse("192.0.2.1", &p.src, NULL, 0);
	rp_topo_addr_parse("192.0.2.3", &p.dst, NULL, 0);
	for (int i = 0; i < 3; i++) {
		p.sw = sw_index(t, i ? "spine1" : "spine2");
		p.sport = 49160 - i;
		ASSERT_EQ(0, rp_probes_add(&ps, &p));
	}
	p.sw = sw_index(t, "spine3");
	ASSERT_EQ(0, rp_probes_add(&ps, &p));	/* replaces 49158 */
	ASSERT_EQ(3, ps.n);
	ASSERT_EQ(49158, ps.v[0].sport);
	ASSERT_EQ(sw_index(t, "spine3"), ps.v[0].sw);
	ASSERT_EQ(0, rp_probes_save(t, &ps, path));
	ASSERT_EQ(0, rp_probes_load(t, path, &back, &e));
	ASSERT_EQ(3, back.n);
	for (size_t i = 0; i < 3; i++)
		ASSERT_EQ(0, memcmp(&ps.v[i], &back.v[i], sizeof(ps.v[i])));
	rp_probes_free(&back);

	/* stale digest, unknown switch, an address that is no NIC */
	snprintf(text, sizeof(text), "{\"topology\":\"fnv1a64:0000000000000000\","
		 "\"probes\":[]}");
	ASSERT_EQ(-ESTALE, rp_probes_parse(t, "p.json", text, strlen(text),
					   &back, &e));
	TH_LOG("%s", rp_err_str(&e, b, sizeof(b)));
	ASSERT_NE(NULL, strstr(e.msg, "probe again"));
	snprintf(text, sizeof(text), "{\"topology\":\"fnv1a64:%016llx\","
		 "\"probes\":[{\"src_ip\":\"192.0.2.1\",\"dst_ip\":\"192.0.2.3\","
		 "\"sport\":49152,\"switch\":\"spine9\"}]}",
		 (unsigned long long)rp_topo_digest(t));
	ASSERT_EQ(-EINVAL, rp_probes_parse(t, "p.json", text, strlen(text),
					   &back, &e));
	ASSERT_STREQ(".probes[0].switch", e.path);
	snprintf(text, sizeof(text), "{\"topology\":\"fnv1a64:%016llx\","
		 "\"probes\":[{\"src_ip\":\"192.0.2.1\",\"dst_ip\":\"198.51.100.7\","
		 "\"sport\":49152,\"switch\":\"spine1\"}]}",
		 (unsigned long long)rp_topo_digest(t));
	ASSERT_EQ(-EINVAL, rp_probes_parse(t, "p.json", text, strlen(text),
					   &back, &e));
	ASSERT_NE(NULL, strstr(e.msg, "no NIC of the topology"));
	unlink(path);
	rmdir(dir);
	rp_probes_free(&ps);
	rp_topo_free(t);
}

/* A link that came up again: its NICs' answers go, the others stay. */
TEST(forget_link)
{
	static const char *const src[] = { "192.0.2.1", "192.0.2.2", "192.0.2.1", "192.0.2.3" };
	static const char unnamed[] =
		"{\"switches\":[{\"name\":\"leaf0\",\"tier\":\"leaf\","
		"\"hash\":{\"algorithm\":\"measured\"}},"
		"{\"name\":\"spine0\",\"tier\":\"spine\","
		"\"addresses\":[\"203.0.113.1\"]}],"
		"\"links\":[{\"a\":\"leaf0\",\"a_port\":1,\"b\":\"spine0\",\"b_port\":1}],"
		"\"hosts\":[{\"name\":\"h1\",\"nics\":[{\"rail\":0,"
		"\"ip\":\"192.0.2.1\",\"leaf\":\"leaf0\"}]},"
		"{\"name\":\"h2\",\"nics\":[{\"rail\":0,"
		"\"ip\":\"192.0.2.2\",\"leaf\":\"leaf0\"}]}]}";
	struct rp_topo *t = load_topo(), *u = NULL;
	struct rp_probes ps = { 0 };
	struct rp_probe p = { 0 };
	unsigned int nics = 9;
	struct rp_err e;

	ASSERT_NE(NULL, t);
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		rp_topo_addr_parse(src[i], &p.src, NULL, 0);
		rp_topo_addr_parse(i == 3 ? "192.0.2.1" : "192.0.2.4", &p.dst, NULL, 0);
		p.sport = 49152 + i;
		p.sw = sw_index(t, "spine1");
		ASSERT_EQ(0, rp_probes_add(&ps, &p));
	}
	/* another netdev, another host's link, no such host: nothing goes */
	ASSERT_EQ(0, rp_probes_forget_link(t, "h1", "eth1", &ps, &nics));
	ASSERT_EQ(0, nics);
	ASSERT_EQ(0, rp_probes_forget_link(t, "h9", "eth0", &ps, &nics));
	ASSERT_EQ(4, ps.n);
	/* h1's eth0: its two answers, h2's and h3's stay, in order */
	ASSERT_EQ(2, rp_probes_forget_link(t, "h1", "eth0", &ps, &nics));
	ASSERT_EQ(1, nics);
	ASSERT_EQ(2, ps.n);
	rp_topo_addr_parse("192.0.2.2", &p.src, NULL, 0);
	ASSERT_EQ(0, rp_addr_cmp(&p.src, &ps.v[0].src));
	rp_topo_addr_parse("192.0.2.3", &p.src, NULL, 0);
	ASSERT_EQ(0, rp_addr_cmp(&p.src, &ps.v[1].src));
	ASSERT_EQ(0, rp_probes_forget_link(t, "h1", "eth0", &ps, NULL));

	/* a NIC the topology names no netdev for may be on any link */
	memset(&e, 0, sizeof(e));
	ASSERT_EQ(0, rp_topo_parse("topology.json", unnamed, strlen(unnamed), &u, &e));
	ASSERT_EQ(1, rp_probes_forget_link(u, "h2", "ens1f0", &ps, &nics));
	ASSERT_EQ(1, nics);
	ASSERT_EQ(1, ps.n);
	rp_topo_free(u);
	rp_probes_free(&ps);
	rp_topo_free(t);
}

/* What a host must probe: its pairs through measured leaves, per spine. */
static void pairs_of(struct __test_metadata *_metadata, const struct rp_topo *t,
		     const struct rp_place *p, const char *host,
		     struct rp_probe_pair **pairs, size_t *n)
{
	struct rp_plan *plan = NULL;
	struct rp_err e;

	ASSERT_EQ(0, rp_plan_compute(t, p, &plan, &e));
	ASSERT_EQ(0, rp_plan_probe_pairs(plan, host, pairs, n));
	rp_plan_free(plan);
}

/* h1's one pair on the example fabric, a cache, two walks' reports. */
FIXTURE(walk) {
	struct rp_topo *t;
	struct rp_place *p;
	struct rp_probe_pair *pairs;
	size_t n;
	struct rp_probes ps;
	struct rp_probe_report r1, r2;
	struct fake f;
};

FIXTURE_SETUP(walk)
{
	memset(self, 0, sizeof(*self));
	self->t = load_topo();
	ASSERT_NE(NULL, self->t);
	self->p = load_place(self->t);
	ASSERT_NE(NULL, self->p);
	self->f.t = self->t;
	self->f.dead = -1;
	pairs_of(_metadata, self->t, self->p, "h1", &self->pairs, &self->n);
	ASSERT_EQ(1, self->n);
}

FIXTURE_TEARDOWN(walk)
{
	rp_probe_report_free(&self->r1);
	rp_probe_report_free(&self->r2);
	rp_probe_pairs_free(self->pairs, self->n);
	rp_probes_free(&self->ps);
	rp_place_free(self->p);
	rp_topo_free(self->t);
}

/* The fixture's pair walked over its fake into its cache. */
static int walk(FIXTURE_DATA(walk) *self, struct rp_probe_report *r)
{
	struct rp_probe_opts o = RP_PROBE_OPTS_DEFAULT;

	return rp_probe_walk(self->pairs, self->n, rp_topo_nswitches(self->t),
			     &o, fake_fn, &self->f, &self->ps, r);
}

/* The walk stops once every spine has its ports; a second walk is cached. */
TEST_F(walk, walk_and_cache)
{
	const struct rp_probe_pair *pp = &self->pairs[0];
	const struct rp_probes *ps = &self->ps;
	unsigned int got[64] = { 0 };

	ASSERT_STREQ("192.0.2.1", pp->src_ip);
	ASSERT_STREQ("192.0.2.3", pp->dst_ip);
	ASSERT_STREQ("eth0", pp->netdev);
	ASSERT_EQ(4, pp->nflows);
	for (int s = 0; s < 4; s++) {
		char name[16];

		snprintf(name, sizeof(name), "spine%d", s);
		ASSERT_EQ(1, pp->want[sw_index(self->t, name)]);
	}
	ASSERT_EQ(0, walk(self, &self->r1));
	ASSERT_EQ(0, self->r1.nfails);
	ASSERT_EQ(0, self->r1.short_pairs);
	ASSERT_EQ(self->r1.ports, self->r1.answered);
	ASSERT_EQ(self->r1.ports, self->r1.packets);
	ASSERT_EQ(self->r1.ports, ps->n);
	ASSERT_GE(self->r1.ports, 4);
	/* ports from 49152 up, and the last one was the first of its spine */
	for (size_t i = 0; i < ps->n; i++) {
		ASSERT_EQ(RP_SPORT_MIN + i, ps->v[i].sport);
		got[ps->v[i].sw]++;
	}
	ASSERT_EQ(1, got[ps->v[ps->n - 1].sw]);
	TH_LOG("%u ports probed for 4 spines", self->r1.ports);

	self->f.calls = 0;
	ASSERT_EQ(0, walk(self, &self->r2));
	ASSERT_EQ(0, self->f.calls);
	ASSERT_EQ(self->r1.ports, self->r2.cached);
	ASSERT_EQ(0, self->r2.packets);
}

/*
 * The fabric changes under a cache taken on the same topology: the port of
 * leaf0 that went to spine3 now reaches a switch leaf0 has no link to (a
 * recabling the topology does not know yet). The walk probes anew for a
 * port onto spine3, gets an answer from that switch, drops the pair's
 * cached answers and walks the pair again from its first port, once: every
 * port is probed again, and still no port reaches spine3 (a short pair,
 * the plan fails, as it must while the topology is wrong).
 */
TEST_F(walk, walk_unexpected_switch)
{
	const struct rp_topo *t = self->t;
	struct rp_probes *ps = &self->ps;
	struct rp_probe_report *r2 = &self->r2;
	int s3 = sw_index(t, "spine3"), moved_port = -1;
	size_t cached;
	char why[400];

	ASSERT_NE(NULL, self->pairs[0].expect);
	for (int i = 0; i < rp_topo_nswitches(t); i++)
		ASSERT_EQ(!strncmp(rp_topo_switch_name(t, i), "spine", 5),
			  self->pairs[0].expect[i]);
	ASSERT_EQ(0, walk(self, &self->r1));
	ASSERT_EQ(0, self->r1.unexpected);
	/* spine3's answer leaves the cache: the next walk must probe for it */
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].sw == s3) {
			moved_port = ps->v[i].sport;
			memmove(&ps->v[i], &ps->v[i + 1],
				(ps->n - i - 1) * sizeof(ps->v[0]));
			ps->n--;
			break;
		}
	ASSERT_LE(0, moved_port);
	cached = ps->n;
	self->f.moved = s3;
	self->f.to = sw_index(t, "leaf1");
	self->f.calls = 0;
	ASSERT_EQ(0, walk(self, r2));
	EXPECT_LE(1, r2->unexpected);
	EXPECT_EQ(1, r2->reprobed);
	/* the cached answers, and the fresh ones before the surprise */
	EXPECT_LE(cached, r2->dropped);
	/* walked again from the first port: the cached ones were sent too */
	EXPECT_LE(cached + r2->dropped, self->f.calls);
	EXPECT_EQ(1, r2->short_pairs);
	for (size_t i = 0; i < ps->n; i++)
		EXPECT_NE(s3, ps->v[i].sw);
	rp_probe_unexpected_fmt(t, r2, why, sizeof(why));
	TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "answer from leaf1, which the topology does not link"));
	EXPECT_NE(NULL, strstr(why, "192.0.2.1 -> 192.0.2.3 sport "));
}

/* A dead spine: its ports are retried and reported with pair and port. */
TEST(walk_failures)
{
	struct rp_probe_opts o = RP_PROBE_OPTS_DEFAULT;
	struct rp_probe_report r = { 0 }, r3 = { 0 };
	struct rp_topo *t = load_topo();
	struct rp_place *p = t ? load_place(t) : NULL;
	struct fake f = { .t = t, .busy = RP_SPORT_MIN };
	struct rp_probe_pair *pairs;
	struct rp_probes ps = { 0 };
	size_t n;

	ASSERT_NE(NULL, p);
	f.dead = sw_index(t, "spine2");
	pairs_of(_metadata, t, p, "h1", &pairs, &n);
	ASSERT_EQ(0, rp_probe_walk(pairs, n, rp_topo_nswitches(t), &o, fake_fn,
				   &f, &ps, &r));
	ASSERT_EQ(1, r.skipped);
	ASSERT_NE(0, r.nfails);
	ASSERT_EQ(1, r.short_pairs);	/* spine2 never answers */
	ASSERT_EQ(32, r.ports + r.skipped);	/* the cap: 8 per flow */
	ASSERT_EQ(r.answered + r.nfails, r.ports);
	ASSERT_EQ(r.answered + 3 * r.nfails, r.packets);
	for (size_t i = 0; i < r.nfails; i++) {
		ASSERT_STREQ("192.0.2.1", r.fails[i].src_ip);
		ASSERT_STREQ("192.0.2.3", r.fails[i].dst_ip);
		ASSERT_EQ(3, r.fails[i].tries);
		ASSERT_EQ(f.dead, fake_spine(t, &pairs[0], r.fails[i].sport));
		ASSERT_EQ(NULL, rp_probes_find(&ps, &pairs[0].src, &pairs[0].dst,
					       r.fails[i].sport));
	}
	ASSERT_EQ(NULL, rp_probes_find(&ps, &pairs[0].src, &pairs[0].dst,
				       RP_SPORT_MIN));
	/* probing that cannot work at all stops the walk and says why */
	rp_probes_free(&ps);
	f.dead = -1;
	f.fatal = RP_SPORT_MIN + 1;
	ASSERT_EQ(-EPERM, rp_probe_walk(pairs, n, rp_topo_nswitches(t), &o,
					fake_fn, &f, &ps, &r3));
	ASSERT_NE(NULL, strstr(r3.error, "192.0.2.1 -> 192.0.2.3 sport 49153"));
	rp_probe_report_free(&r);
	rp_probe_report_free(&r3);
	rp_probe_pairs_free(pairs, n);
	rp_probes_free(&ps);
	rp_place_free(p);
	rp_topo_free(t);
}

static const char *js(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : "";
}

/*
 * Without answers, flows keep their assigned path and count in the loads
 * (the bound is met), with no port; with every host's answers, each flow
 * takes a probed port whose answer is its spine, and the assignment is
 * the same as without.
 */
TEST(plan_with_probes)
{
	static const char *const hosts[] = { "h1", "h2", "h3", "h4" };
	struct rp_probe_opts o = RP_PROBE_OPTS_DEFAULT;
	struct rp_topo *t = load_topo();
	struct rp_place *p = t ? load_place(t) : NULL;
	struct fake f = { .t = t, .dead = -1 };
	const struct rp_plan_summary *s;
	struct rp_plan *bare = NULL, *pl = NULL;
	struct rp_probes ps = { 0 };
	json_object *jb, *jp, *arr, *un;
	struct rp_pins pins = { 0 };
	struct rp_err e;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, rp_plan_compute(t, p, &bare, &e));
	s = rp_plan_summary(bare);
	ASSERT_EQ(0, s->flows);
	ASSERT_EQ(16, s->unplaced);
	ASSERT_EQ(s->lower_bound, s->max_link_flows);
	ASSERT_EQ(0, rp_plan_host_pins(bare, "h1", &pins));
	ASSERT_EQ(0, pins.n);

	for (size_t h = 0; h < 4; h++) {
		struct rp_probe_report r = { 0 };
		struct rp_probe_pair *pairs;
		size_t n;

		pairs_of(_metadata, t, p, hosts[h], &pairs, &n);
		ASSERT_EQ(0, rp_probe_walk(pairs, n, rp_topo_nswitches(t), &o,
					   fake_fn, &f, &ps, &r));
		ASSERT_EQ(0, r.nfails);
		rp_probe_report_free(&r);
		rp_probe_pairs_free(pairs, n);
	}
	ASSERT_EQ(0, rp_plan_compute_probed(t, p, NULL, &ps, &pl, &e));
	s = rp_plan_summary(pl);
	ASSERT_EQ(16, s->flows);
	ASSERT_EQ(0, s->unplaced);
	ASSERT_EQ(s->lower_bound, s->max_link_flows);

	ASSERT_EQ(0, rp_plan_to_json(bare, NULL, &jb));
	ASSERT_EQ(0, rp_plan_to_json(pl, NULL, &jp));
	ASSERT_TRUE(json_object_object_get_ex(jb, "unplaced", &un));
	ASSERT_TRUE(json_object_object_get_ex(jp, "flows", &arr));
	ASSERT_EQ(16, json_object_array_length(arr));
	for (size_t i = 0; i < 16; i++) {
		json_object *fl = json_object_array_get_idx(arr, i), *u, *path, *up;
		struct rp_probe_pair pp = { 0 };
		const struct rp_probe *pr;
		int sport;

		/* same flow order: the assignment does not depend on probes */
		u = json_object_array_get_idx(un, i);
		json_object_object_get_ex(fl, "path", &path);
		json_object_object_get_ex(u, "path", &up);
		ASSERT_STREQ(json_object_to_json_string(up),
			     json_object_to_json_string(path));
		ASSERT_NE(NULL, strstr(js(u, "reason"), "no probe answers"));
		sport = json_object_get_int(json_object_object_get(fl, "sport"));
		rp_topo_addr_parse(js(fl, "src_ip"), &pp.src, NULL, 0);
		rp_topo_addr_parse(js(fl, "dst_ip"), &pp.dst, NULL, 0);
		pr = rp_probes_find(&ps, &pp.src, &pp.dst, sport);
		ASSERT_NE(NULL, pr);
		ASSERT_STREQ(json_object_get_string(json_object_array_get_idx(path, 1)),
			     rp_topo_switch_name(t, pr->sw));
		ASSERT_EQ(pr->sw, fake_spine(t, &pp, sport));
	}
	ASSERT_EQ(0, rp_plan_host_pins(pl, "h1", &pins));
	ASSERT_EQ(1, pins.n);
	ASSERT_EQ(4, pins.v[0].nsports);
	json_object_put(jb);
	json_object_put(jp);
	rp_pins_free(&pins);
	rp_plan_free(pl);

	/* answers that miss a spine: that flow has no port, and says why */
	for (size_t i = 0; i < ps.n; i++)
		if (ps.v[i].sw == sw_index(t, "spine1"))
			ps.v[i].sw = sw_index(t, "spine0");
	ASSERT_EQ(0, rp_plan_compute_probed(t, p, NULL, &ps, &pl, &e));
	s = rp_plan_summary(pl);
	ASSERT_EQ(12, s->flows);
	ASSERT_EQ(4, s->unplaced);
	ASSERT_EQ(0, rp_plan_to_json(pl, "h1", &jp));
	ASSERT_TRUE(json_object_object_get_ex(jp, "unplaced", &un));
	ASSERT_EQ(1, json_object_array_length(un));
	ASSERT_NE(NULL, strstr(js(json_object_array_get_idx(un, 0), "reason"),
			       "no probed source port reaches the assigned spine"));
	json_object_put(jp);
	rp_plan_free(pl);
	rp_plan_free(bare);
	rp_probes_free(&ps);
	rp_place_free(p);
	rp_topo_free(t);
}

/* The error queue: time-exceeded names the offender; others do not. */
TEST(errqueue_parse)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = (struct cmsghdr *)u.buf;
	struct sock_extended_err *ee;
	struct sockaddr_in *sa;
	struct rp_addr off;
	int type, code;

	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_RECVERR;
	c->cmsg_len = CMSG_LEN(sizeof(*ee) + sizeof(*sa));
	ee = (struct sock_extended_err *)CMSG_DATA(c);
	ee->ee_errno = EHOSTUNREACH;
	ee->ee_origin = SO_EE_ORIGIN_ICMP;
	ee->ee_type = ICMP_TIME_EXCEEDED;
	sa = (struct sockaddr_in *)SO_EE_OFFENDER(ee);
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(0xcb007103);	/* 203.0.113.3 */
	ASSERT_EQ(1, rp_probe_parse_err(&msg, &off, &type, &code));
	ASSERT_EQ(AF_INET, off.family);
	ASSERT_EQ(0, memcmp(off.raw, "\xcb\x00\x71\x03", 4));

	ee->ee_type = ICMP_DEST_UNREACH;
	ee->ee_code = ICMP_PORT_UNREACH;
	ASSERT_EQ(0, rp_probe_parse_err(&msg, &off, &type, &code));
	ASSERT_EQ(ICMP_DEST_UNREACH, type);
	ASSERT_EQ(ICMP_PORT_UNREACH, code);

	ee->ee_origin = SO_EE_ORIGIN_LOCAL;
	ASSERT_EQ(-ENOMSG, rp_probe_parse_err(&msg, &off, &type, &code));
}

TEST_HARNESS_MAIN
