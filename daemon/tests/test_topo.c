// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster file parsers: every bad input is rejected with the file, the JSON
 * path and the reason (line and column for malformed JSON), the superspine
 * tier's pods and the planes included; good files load and are sorted
 * canonically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "plan_int.h"

#define H "\"hash\":{\"algorithm\":\"crc16-ccitt\",\"seed\":0}"
#define SW "{\"name\":\"leaf0\",\"tier\":\"leaf\"," H "}," \
	   "{\"name\":\"leaf1\",\"tier\":\"leaf\"," H "}," \
	   "{\"name\":\"spine0\",\"tier\":\"spine\"," H "}"
#define LK "{\"a\":\"leaf0\",\"a_port\":1,\"b\":\"spine0\",\"b_port\":1}," \
	   "{\"a\":\"spine0\",\"a_port\":2,\"b\":\"leaf1\",\"b_port\":1}"
#define HS "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"netdev\":\"eth0\"," \
	   "\"ip\":\"192.0.2.1\",\"leaf\":\"leaf0\"}]}," \
	   "{\"name\":\"h2\",\"nics\":[{\"rail\":0,\"netdev\":\"eth0\"," \
	   "\"ip\":\"2001:db8::2\",\"leaf\":\"leaf1\"}]}"
#define TOPO(sw, lk, hs) \
	"{\"switches\":[" sw "],\"links\":[" lk "],\"hosts\":[" hs "]}"

static int topo(const char *text, struct rp_err *err)
{
	struct rp_topo *t = NULL;
	int ret;

	memset(err, 0, sizeof(*err));
	ret = rp_topo_parse("topology.json", text, strlen(text), &t, err);
	rp_topo_free(t);
	return ret;
}

/* Asserts an error at path whose reason contains msg. */
#define EXPECT_ERR(text, epath, emsg) do {				\
	struct rp_err e;						\
	char b[1200];							\
	ASSERT_EQ(-EINVAL, topo(text, &e));				\
	TH_LOG("%s", rp_err_str(&e, b, sizeof(b)));			\
	ASSERT_STREQ("topology.json", e.file);				\
	ASSERT_STREQ(epath, e.path);					\
	ASSERT_NE(NULL, strstr(e.msg, emsg));				\
} while (0)

/* The base file loads; names and links are sorted canonically. */
TEST(good_topology)
{
	struct rp_topo *t = NULL;
	struct rp_err e;
	const char *s = TOPO(SW, LK, HS);

	ASSERT_EQ(0, rp_topo_parse("t", s, strlen(s), &t, &e));
	ASSERT_EQ(3, t->nsw);
	ASSERT_EQ(2, t->nleaves);
	ASSERT_EQ(1, t->nspines);
	ASSERT_STREQ("leaf1", rp_leaf_name(t, t->links[1].leaf));
	ASSERT_EQ(2, t->links[1].spine_port);
	ASSERT_EQ(AF_INET6, t->nics[1].addr.family);
	ASSERT_STREQ("2001:db8::2", t->nics[1].ip);
	ASSERT_EQ(0, rp_topo_has_host(t, "h2"));
	ASSERT_EQ(-ENOENT, rp_topo_has_host(t, "h3"));
	rp_topo_free(t);
}

/* A link to a switch that does not exist. */
TEST(unknown_switch)
{
	EXPECT_ERR(TOPO(SW, LK ",{\"a\":\"leaf0\",\"a_port\":3,\"b\":\"spine9\",\"b_port\":3}", HS),
		   ".links[2].b", "unknown switch \"spine9\"");
	EXPECT_ERR(TOPO(SW, LK, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"leafX\"}]}"),
		   ".hosts[0].nics[0].leaf", "unknown switch \"leafX\"");
	EXPECT_ERR(TOPO(SW, LK, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"spine0\"}]}"),
		   ".hosts[0].nics[0].leaf", "not a leaf");
}

/* Duplicate switch, host names and IP addresses. */
TEST(duplicates)
{
	EXPECT_ERR(TOPO(SW ",{\"name\":\"leaf1\",\"tier\":\"spine\"}", LK, HS),
		   ".switches[3].name", "duplicate switch name \"leaf1\"");
	EXPECT_ERR(TOPO(SW, LK, HS ",{\"name\":\"h1\",\"nics\":[]}"),
		   ".hosts[2].name", "duplicate host name \"h1\"");
	EXPECT_ERR(TOPO(SW, LK, HS ",{\"name\":\"h3\",\"nics\":[{\"rail\":0,\"ip\":\"2001:DB8:0::2\",\"leaf\":\"leaf0\"}]}"),
		   ".hosts[2].nics[0].ip", "duplicate IP address 2001:db8::2");
	EXPECT_ERR(TOPO(SW, LK, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"leaf0\"},{\"rail\":0,\"ip\":\"192.0.2.9\",\"leaf\":\"leaf0\"}]}"),
		   ".hosts[0].nics[1].rail", "duplicate rail 0");
	EXPECT_ERR(TOPO(SW, LK ",{\"a\":\"leaf0\",\"a_port\":1,\"b\":\"spine0\",\"b_port\":7}", HS),
		   ".links[2].a_port", "port 1 of \"leaf0\" already used by .links[0]");
}

/* A leaf must have at least one link to a spine. */
TEST(leaf_without_uplinks)
{
	EXPECT_ERR(TOPO(SW ",{\"name\":\"leaf2\",\"tier\":\"leaf\"}", LK, HS),
		   ".switches[3]", "leaf \"leaf2\" has no uplinks");
	EXPECT_ERR(TOPO(SW, LK ",{\"a\":\"leaf0\",\"a_port\":5,\"b\":\"leaf1\",\"b_port\":5}", HS),
		   ".links[2]", "must join a leaf and a spine");
}

/* Three tiers: pods a and b of one leaf and one spine, a superspine. */
#define SW3 "{\"name\":\"l0\",\"tier\":\"leaf\",\"pod\":\"a\"}," \
	    "{\"name\":\"l1\",\"tier\":\"leaf\",\"pod\":\"b\"}," \
	    "{\"name\":\"s0\",\"tier\":\"spine\",\"pod\":\"a\"}," \
	    "{\"name\":\"s1\",\"tier\":\"spine\",\"pod\":\"b\"}," \
	    "{\"name\":\"u0\",\"tier\":\"superspine\"," H "}"
#define LK3 "{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1}," \
	    "{\"a\":\"l1\",\"a_port\":1,\"b\":\"s1\",\"b_port\":1}," \
	    "{\"a\":\"s0\",\"a_port\":2,\"b\":\"u0\",\"b_port\":1}," \
	    "{\"a\":\"u0\",\"a_port\":2,\"b\":\"s1\",\"b_port\":2}"
#define HS3 "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"l0\"}]}," \
	    "{\"name\":\"h2\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.2\",\"leaf\":\"l1\"}]}"

/* A three-tier file loads: pods, superspines, spine-superspine links. */
TEST(good_three_tier)
{
	struct rp_topo *t = NULL;
	struct rp_err e;
	const char *s = TOPO(SW3, LK3, HS3);

	ASSERT_EQ(0, rp_topo_parse("t", s, strlen(s), &t, &e));
	ASSERT_EQ(2, t->nleaves);
	ASSERT_EQ(2, t->nspines);
	ASSERT_EQ(1, t->nsupers);
	ASSERT_EQ(2, t->nlinks);
	ASSERT_EQ(2, t->nulinks);
	ASSERT_EQ(2, t->npods);
	ASSERT_STREQ("b", t->pods[rp_leaf_pod(t, 1)]);
	/* normalised: the spine is the "a" end, ports follow */
	ASSERT_STREQ("s1", rp_spine_name(t, t->ulinks[1].spine));
	ASSERT_EQ(2, t->ulinks[1].spine_port);
	ASSERT_EQ(2, t->ulinks[1].super_port);
	ASSERT_STREQ("u0", rp_super_name(t, t->ulinks[1].super));
	ASSERT_EQ(0, t->nplanes);
	rp_topo_free(t);
}

/* Pods: where they are needed, what they may join. */
TEST(pod_errors)
{
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"u1\",\"tier\":\"superspine\",\"pod\":\"a\"}", LK3, HS3),
		   ".switches[5].pod", "superspine \"u1\" is in no pod");
	EXPECT_ERR(TOPO("{\"name\":\"l0\",\"tier\":\"leaf\"}," SW3, LK3, HS3),
		   ".switches[0]", "leaf \"l0\" needs a \"pod\" (the topology has superspines)");
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"s9\",\"tier\":\"spine\"}", LK3, HS3),
		   ".switches[5]", "spine \"s9\" needs a \"pod\"");
	EXPECT_ERR(TOPO(SW ",{\"name\":\"spine1\",\"tier\":\"spine\",\"pod\":\"p\"}", LK, HS),
		   ".switches[0]", "leaf \"leaf0\" needs a \"pod\" (.switches[3] has one)");
	EXPECT_ERR(TOPO("{\"name\":\"l0\",\"tier\":\"leaf\",\"pod\":7}", "", ""),
		   ".switches[0].pod", "expected a string");
	EXPECT_ERR(TOPO("{\"name\":\"l0\",\"tier\":\"leaf\",\"pod\":\"\"}", "", ""),
		   ".switches[0].pod", "empty string");
	EXPECT_ERR(TOPO(SW3, LK3 ",{\"a\":\"l0\",\"a_port\":2,\"b\":\"s1\",\"b_port\":3}", HS3),
		   ".links[4]", "link joins pods \"a\" and \"b\" (\"l0\" and \"s1\")");
	EXPECT_ERR(TOPO(SW3, LK3 ",{\"a\":\"l0\",\"a_port\":2,\"b\":\"u0\",\"b_port\":3}", HS3),
		   ".links[4]", "\"l0\" is a leaf, \"u0\" a superspine");
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"u1\",\"tier\":\"superspine\"}",
			LK3 ",{\"a\":\"u1\",\"a_port\":2,\"b\":\"u0\",\"b_port\":3}", HS3),
		   ".links[4]", "\"u1\" and \"u0\" are both superspines");
	EXPECT_ERR(TOPO(SW3, LK3 ",{\"a\":\"s0\",\"a_port\":2,\"b\":\"u0\",\"b_port\":3}", HS3),
		   ".links[4].a_port", "port 2 of \"s0\" already used by .links[2]");
	/* NICs attach to leaves only */
	EXPECT_ERR(TOPO(SW3, LK3, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"u0\"}]}"),
		   ".hosts[0].nics[0].leaf", "switch \"u0\" is not a leaf");
}

/* Tiers that do not connect are named: a pod, a superspine. */
TEST(tiers_connect)
{
	/* pod b's spine has no superspine link */
	EXPECT_ERR(TOPO(SW3, "{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1},"
			"{\"a\":\"l1\",\"a_port\":1,\"b\":\"s1\",\"b_port\":1},"
			"{\"a\":\"s0\",\"a_port\":2,\"b\":\"u0\",\"b_port\":1}", HS3),
		   ".switches[1].pod", "pod \"b\" has no superspine link");
	/* a superspine without any spine link */
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"u1\",\"tier\":\"superspine\"}", LK3, HS3),
		   ".switches[5]", "superspine \"u1\" has no spine links");
	/* a pod of spines only */
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"s2\",\"tier\":\"spine\",\"pod\":\"c\"}",
			LK3 ",{\"a\":\"s2\",\"a_port\":1,\"b\":\"u0\",\"b_port\":9}", HS3),
		   ".switches[5].pod", "pod \"c\" has no leaves");
	/* two pods and no superspine to join them */
	EXPECT_ERR(TOPO("{\"name\":\"l0\",\"tier\":\"leaf\",\"pod\":\"a\"},"
			"{\"name\":\"l1\",\"tier\":\"leaf\",\"pod\":\"b\"},"
			"{\"name\":\"s0\",\"tier\":\"spine\",\"pod\":\"a\"},"
			"{\"name\":\"s1\",\"tier\":\"spine\",\"pod\":\"b\"}",
			"{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1},"
			"{\"a\":\"l1\",\"a_port\":1,\"b\":\"s1\",\"b_port\":1}", HS3),
		   ".switches[0].pod", "pod \"a\" has no superspine link");
	/* a leaf of a pod without links is still a leaf without uplinks */
	EXPECT_ERR(TOPO(SW3 ",{\"name\":\"l2\",\"tier\":\"leaf\",\"pod\":\"a\"}", LK3, HS3),
		   ".switches[5]", "leaf \"l2\" has no uplinks");
	/* one pod needs no superspine */
	{
		struct rp_err e;

		ASSERT_EQ(0, topo(TOPO("{\"name\":\"l0\",\"tier\":\"leaf\",\"pod\":\"a\"},"
				       "{\"name\":\"s0\",\"tier\":\"spine\",\"pod\":\"a\"}",
				       "{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1}",
				       "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"l0\"}]}"),
				  &e));
	}
}

/* Two planes p (rail 0) and q (rail 1), one leaf and spine each. */
#define SWP "{\"name\":\"l0\",\"tier\":\"leaf\",\"plane\":\"p\"}," \
	    "{\"name\":\"l1\",\"tier\":\"leaf\",\"plane\":\"q\"}," \
	    "{\"name\":\"s0\",\"tier\":\"spine\",\"plane\":\"p\"}," \
	    "{\"name\":\"s1\",\"tier\":\"spine\",\"plane\":\"q\"}"
#define LKP "{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1}," \
	    "{\"a\":\"l1\",\"a_port\":1,\"b\":\"s1\",\"b_port\":1}"
#define HSP "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"l0\"}," \
	    "{\"rail\":1,\"ip\":\"192.0.2.11\",\"leaf\":\"l1\"}]}"
#define PLANES(pl) ",\"planes\":[" pl "]"
#define PQ "{\"name\":\"p\",\"rails\":[0]},{\"name\":\"q\",\"rails\":[1]}"
#define TOPOP(sw, lk, hs, pl) \
	"{\"switches\":[" sw "],\"links\":[" lk "],\"hosts\":[" hs "]" pl "}"

/* Planes: declared, every switch in one, rails and leaves agree. */
TEST(plane_errors)
{
	struct rp_topo *t = NULL;
	struct rp_err e;
	const char *s = TOPOP(SWP, LKP, HSP, PLANES(PQ));

	ASSERT_EQ(0, rp_topo_parse("t", s, strlen(s), &t, &e));
	ASSERT_EQ(2, t->nplanes);
	ASSERT_STREQ("q", t->planes[t->sw[t->leaf_sw[1]].plane]);
	rp_topo_free(t);

	EXPECT_ERR(TOPOP(SWP, LKP, HSP, ",\"planes\":{}"),
		   ".planes", "expected an array");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("7")),
		   ".planes[0]", "expected an object");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"rails\":[0]}")),
		   ".planes[0]", "missing \"name\"");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\"}")),
		   ".planes[0]", "missing \"rails\"");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[]}")),
		   ".planes[0].rails", "plane \"p\" has no rails");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[70000]}")),
		   ".planes[0].rails[0]", "rail 70000 out of range");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[\"0\"]}")),
		   ".planes[0].rails[0]", "expected an integer");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[0]},{\"name\":\"q\",\"rails\":[1,0]}")),
		   ".planes[1].rails[1]", "rail 0 is already in plane \"p\" (.planes[0])");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[0]},{\"name\":\"p\",\"rails\":[1]}")),
		   ".planes[1].name", "duplicate plane name \"p\" (also .planes[0])");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, ""),
		   ".switches[0].plane", "unknown plane \"p\" (the topology declares no \"planes\")");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[0]},{\"name\":\"r\",\"rails\":[1]}")),
		   ".switches[1].plane", "unknown plane \"q\"");
	EXPECT_ERR(TOPOP(SWP ",{\"name\":\"s2\",\"tier\":\"spine\"}", LKP, HSP, PLANES(PQ)),
		   ".switches[4]", "switch \"s2\" needs a \"plane\"");
	EXPECT_ERR(TOPOP(SWP, LKP ",{\"a\":\"l0\",\"a_port\":2,\"b\":\"s1\",\"b_port\":2}", HSP, PLANES(PQ)),
		   ".links[2]", "link joins planes \"p\" and \"q\" (\"l0\" and \"s1\")");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[0]},{\"name\":\"q\",\"rails\":[2]}")),
		   ".hosts[0].nics[1].rail", "rail 1 is in no plane");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES("{\"name\":\"p\",\"rails\":[1]},{\"name\":\"q\",\"rails\":[0]}")),
		   ".hosts[0].nics[0].leaf", "leaf \"l0\" is in plane \"p\", rail 0 in plane \"q\"");
	EXPECT_ERR(TOPOP(SWP, LKP, HSP, PLANES(PQ ",{\"name\":\"z\",\"rails\":[2]}")),
		   ".planes[2]", "plane \"z\" has no leaves");
	/* a pod lies in one plane */
	EXPECT_ERR(TOPOP("{\"name\":\"l0\",\"tier\":\"leaf\",\"plane\":\"p\",\"pod\":\"a\"},"
			 "{\"name\":\"s0\",\"tier\":\"spine\",\"plane\":\"q\",\"pod\":\"a\"}",
			 "{\"a\":\"l0\",\"a_port\":1,\"b\":\"s0\",\"b_port\":1}",
			 "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"l0\"}]}",
			 PLANES(PQ)),
		   ".switches[1].plane", "pod \"a\" spans planes \"p\" (.switches[0]) and \"q\"");
}

/* Seeds are 32-bit, ports 16-bit, select and fields known. */
TEST(ranges_and_hash)
{
	EXPECT_ERR(TOPO("{\"name\":\"leaf0\",\"tier\":\"leaf\",\"hash\":{\"algorithm\":\"crc32\",\"seed\":4294967296}}", "", ""),
		   ".switches[0].hash.seed", "seed 4294967296 out of range");
	EXPECT_ERR(TOPO("{\"name\":\"leaf0\",\"tier\":\"leaf\",\"hash\":{\"algorithm\":\"crc32\",\"seed\":-1}}", "", ""),
		   ".switches[0].hash.seed", "out of range");
	EXPECT_ERR(TOPO(SW, "{\"a\":\"leaf0\",\"a_port\":70000,\"b\":\"spine0\",\"b_port\":1}", HS),
		   ".links[0].a_port", "port 70000 out of range");
	EXPECT_ERR(TOPO("{\"name\":\"leaf0\",\"tier\":\"leaf\",\"hash\":{\"algorithm\":\"md5\"}}", "", ""),
		   ".switches[0].hash.algorithm", "unknown hash algorithm \"md5\"");
	EXPECT_ERR(TOPO("{\"name\":\"s\",\"tier\":\"spine\",\"hash\":{\"algorithm\":\"crc32\",\"fields\":[\"src_ip\",\"vlan\"]}}", "", ""),
		   ".switches[0].hash.fields[1]", "unknown hash field \"vlan\"");
	EXPECT_ERR(TOPO("{\"name\":\"s\",\"tier\":\"spine\",\"hash\":{\"algorithm\":\"crc32\",\"select\":\"mid\"}}", "", ""),
		   ".switches[0].hash.select", "unknown hash select \"mid\"");
	EXPECT_ERR(TOPO("{\"name\":\"s\",\"tier\":\"spine\",\"hash\":{\"algorithm\":\"table\"}}", "", ""),
		   ".switches[0].hash", "needs a \"table\"");
	EXPECT_ERR(TOPO("{\"name\":\"s\",\"tier\":\"spine\",\"hash\":{\"algorithm\":\"table\",\"table\":{\"99999\":1}}}", "", ""),
		   ".switches[0].hash.table.\"99999\"", "out of range");
	EXPECT_ERR(TOPO("{\"name\":\"s\",\"tier\":\"core\"}", "", ""),
		   ".switches[0].tier", "unknown tier \"core\"");
	EXPECT_ERR(TOPO("{\"tier\":\"leaf\"}", "", ""),
		   ".switches[0]", "missing \"name\"");
	EXPECT_ERR("{\"switches\":{},\"links\":[],\"hosts\":[]}",
		   ".switches", "expected an array");
}

/* IPv4 and IPv6 addresses are validated. */
TEST(bad_addresses)
{
	EXPECT_ERR(TOPO(SW, LK, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.300\",\"leaf\":\"leaf0\"}]}"),
		   ".hosts[0].nics[0].ip", "invalid IP address \"192.0.2.300\"");
	EXPECT_ERR(TOPO(SW, LK, "{\"name\":\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"2001:db8:::1\",\"leaf\":\"leaf0\"}]}"),
		   ".hosts[0].nics[0].ip", "invalid IP address");
}

/* Malformed JSON reports line and column. */
TEST(malformed_json)
{
	const char *s = "{\n  \"switches\": [\n    {\"name\": x}\n]}";
	struct rp_err e;
	char b[1200];

	ASSERT_EQ(-EINVAL, topo(s, &e));
	TH_LOG("%s", rp_err_str(&e, b, sizeof(b)));
	ASSERT_EQ(3, e.line);
	ASSERT_EQ(14, e.col);
	ASSERT_NE(NULL, strstr(e.msg, "malformed JSON"));
	ASSERT_NE(NULL, strstr(b, "topology.json:3:14: malformed JSON"));
	ASSERT_EQ(-EINVAL, topo("{\"switches\": [", &e));
	ASSERT_NE(NULL, strstr(e.msg, "malformed JSON"));
	ASSERT_EQ(-EINVAL, topo("{} x", &e));
	ASSERT_EQ(1, e.line);
}

static int place(const char *text, struct rp_err *err)
{
	const char *ts = TOPO(SW, LK, HS ",{\"name\":\"h3\",\"nics\":[{\"rail\":1,\"ip\":\"192.0.2.3\",\"leaf\":\"leaf0\"}]}");
	struct rp_topo *t = NULL;
	struct rp_place *p = NULL;
	int ret;

	memset(err, 0, sizeof(*err));
	ret = rp_topo_parse("topology.json", ts, strlen(ts), &t, err);
	if (ret)
		return -999;
	ret = rp_place_parse("placement.json", text, strlen(text), t, &p,
			     err);
	rp_place_free(p);
	rp_topo_free(t);
	return ret;
}

#define EXPECT_PERR(text, epath, emsg) do {				\
	struct rp_err e;						\
	char b[1200];							\
	ASSERT_EQ(-EINVAL, place(text, &e));				\
	TH_LOG("%s", rp_err_str(&e, b, sizeof(b)));			\
	ASSERT_STREQ("placement.json", e.file);				\
	ASSERT_STREQ(epath, e.path);					\
	ASSERT_NE(NULL, strstr(e.msg, emsg));				\
} while (0)

#define JOB(rest) "{\"jobs\":[{\"id\":\"a\",\"pattern\":\"ring\"," rest "}]}"

/* Placement errors: unknown host, missing rail, empty job, bad values. */
TEST(placement_errors)
{
	struct rp_err e;

	ASSERT_EQ(0, place(JOB("\"rails\":[0],\"hosts\":[\"h1\",\"h2\"]"), &e));
	EXPECT_PERR(JOB("\"rails\":[0],\"hosts\":[\"h1\",\"h9\"]"),
		    ".jobs[0].hosts[1]", "unknown host \"h9\"");
	EXPECT_PERR(JOB("\"rails\":[0],\"hosts\":[\"h1\",\"h3\"]"),
		    ".jobs[0].hosts[1]", "host \"h3\" has no nic on rail 0");
	EXPECT_PERR(JOB("\"rails\":[0],\"hosts\":[]"),
		    ".jobs[0].hosts", "empty job \"a\"");
	EXPECT_PERR(JOB("\"rails\":[],\"hosts\":[\"h1\"]"),
		    ".jobs[0].rails", "empty job \"a\"");
	EXPECT_PERR(JOB("\"rails\":[0],\"hosts\":[\"h1\",\"h1\"]"),
		    ".jobs[0].hosts[1]", "duplicate host \"h1\"");
	EXPECT_PERR(JOB("\"rails\":[0],\"hosts\":[\"h1\"],\"qps_per_connection\":0"),
		    ".jobs[0].qps_per_connection", "out of range");
	EXPECT_PERR("{\"jobs\":[{\"id\":\"a\",\"pattern\":\"tree\",\"rails\":[0],\"hosts\":[\"h1\"]}]}",
		    ".jobs[0].pattern", "unknown pattern \"tree\"");
	EXPECT_PERR("{\"jobs\":[{\"id\":\"a\",\"pattern\":\"ring\",\"rails\":[0],\"hosts\":[\"h1\"]},"
		    "{\"id\":\"a\",\"pattern\":\"ring\",\"rails\":[0],\"hosts\":[\"h2\"]}]}",
		    ".jobs[1].id", "duplicate job id \"a\"");
	EXPECT_PERR("{\"jobs\":[{\"pattern\":\"ring\"}]}", ".jobs[0]",
		    "missing \"id\"");
}

/* Loading from a file names the file; a missing file is an error. */
TEST(files)
{
	char path[] = "/tmp/rp_topo_XXXXXX";
	const char *s = TOPO(SW, LK ",{\"a\":\"leaf0\",\"a_port\":3,\"b\":\"spine9\",\"b_port\":3}", HS);
	struct rp_topo *t = NULL;
	struct rp_err e;
	char b[1200], want[1200];
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)strlen(s), write(fd, s, strlen(s)));
	close(fd);
	ASSERT_EQ(-EINVAL, rp_topo_load(path, &t, &e));
	snprintf(want, sizeof(want), "%s: .links[2].b: unknown switch \"spine9\"",
		 path);
	ASSERT_STREQ(want, rp_err_str(&e, b, sizeof(b)));
	unlink(path);
	ASSERT_EQ(-ENOENT, rp_topo_load(path, &t, &e));
	ASSERT_NE(NULL, strstr(e.msg, "cannot read"));
}

TEST_HARNESS_MAIN
