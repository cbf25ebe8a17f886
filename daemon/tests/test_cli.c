// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the CLI rejects bad input before anything is sent (exit 1, one
 * "Error: ...." line naming the argument) and that its argument parsers
 * take exactly the documented ranges. Runs ../rocepath next to this binary.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#include "example_path.h"

#include <json-c/json.h>

#include "rp_netlink.h"
#include "out.h"
#include "parse.h"
#include "addr.h"
#include "pins.h"
#include "plan.h"
#include "plan_probe.h"

TEST(parse_u32)
{
	uint32_t v;

	EXPECT_EQ(0, rp_parse_u32("0", 10, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, rp_parse_u32("010", 100, &v));
	EXPECT_EQ(10, v);	/* decimal, not octal */
	EXPECT_EQ(0, rp_parse_u32("0xffffff", ROCEPATH_QPN_MAX, &v));
	EXPECT_EQ(0xffffff, v);
	EXPECT_EQ(0, rp_parse_u32("4294967295", UINT32_MAX, &v));
	EXPECT_EQ(UINT32_MAX, v);
	EXPECT_EQ(-ERANGE, rp_parse_u32("4294967296", UINT32_MAX, &v));
	EXPECT_EQ(-ERANGE, rp_parse_u32("99999999999999999999999", UINT32_MAX, &v));
	EXPECT_EQ(-ERANGE, rp_parse_u32("16777216", ROCEPATH_QPN_MAX, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("-1", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("+1", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32(" 1", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("1 ", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("1k", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("0x", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32("0x-1", 10, &v));
	EXPECT_EQ(-EINVAL, rp_parse_u32(NULL, 10, &v));
}

TEST(parse_sports)
{
	uint16_t p[8];
	size_t n;

	EXPECT_EQ(0, rp_parse_sport("49152", p));
	EXPECT_EQ(0, rp_parse_sport("65535", p));
	EXPECT_EQ(-ERANGE, rp_parse_sport("49151", p));
	EXPECT_EQ(-ERANGE, rp_parse_sport("65536", p));
	EXPECT_EQ(-ERANGE, rp_parse_sport("0", p));

	ASSERT_EQ(0, rp_parse_sports("49152,50000,65535", p, 8, &n));
	EXPECT_EQ(3, n);
	EXPECT_EQ(50000, p[1]);
	EXPECT_EQ(-EINVAL, rp_parse_sports("", p, 8, &n));
	EXPECT_EQ(-EINVAL, rp_parse_sports("49152,", p, 8, &n));
	EXPECT_EQ(-EINVAL, rp_parse_sports(",49152", p, 8, &n));
	EXPECT_EQ(-EINVAL, rp_parse_sports("49152,,49153", p, 8, &n));
	EXPECT_EQ(-EINVAL, rp_parse_sports("49152 49153", p, 8, &n));
	EXPECT_EQ(-ERANGE, rp_parse_sports("49152,1", p, 8, &n));
	EXPECT_EQ(-EEXIST, rp_parse_sports("49152,49152", p, 8, &n));
	EXPECT_EQ(-E2BIG, rp_parse_sports("49152,49153,49154", p, 2, &n));
}

TEST(parse_ibdev)
{
	char name[80];

	EXPECT_EQ(0, rp_parse_ibdev("rxe0"));
	EXPECT_EQ(0, rp_parse_ibdev("mlx5_0"));
	memset(name, 'a', 63);
	name[63] = '\0';
	EXPECT_EQ(0, rp_parse_ibdev(name));
	name[63] = 'a';
	name[64] = '\0';
	EXPECT_EQ(-EINVAL, rp_parse_ibdev(name));
	EXPECT_EQ(-EINVAL, rp_parse_ibdev(""));
	EXPECT_EQ(-EINVAL, rp_parse_ibdev("a b"));
	EXPECT_EQ(-EINVAL, rp_parse_ibdev("a/b"));
}

/* Runs the CLI; returns its exit status, captures stdout and stderr. */
static int run(const char *const *args, char *out, size_t olen, char *err,
	       size_t elen)
{
	char exe[PATH_MAX], bin[PATH_MAX + 32], *slash;
	int po[2], pe[2], status;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(bin, sizeof(bin), "%s/../../rocepath", exe);
	if (access(bin, X_OK))
		return -2;
	if (pipe(po) || pipe(pe))
		return -1;
	pid = fork();
	if (!pid) {
		const char *argv[40] = { bin };

		for (int i = 0; i < 38 && args[i]; i++)
			argv[i + 1] = args[i];
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(bin, (char **)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* until EOF: a long output comes in several pipe reads */
	for (size_t got = 0;;) {
		n = read(po[0], out + got, olen - 1 - got);
		if (n > 0)
			got += n;
		out[got] = '\0';
		if (n <= 0 || got == olen - 1)
			break;
	}
	n = read(pe[0], err, elen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(po[0]);
	close(pe[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static const struct {
	const char *args[36];
	int status;
	const char *err;	/* expected stderr prefix ("" = empty) */
} cases[] = {
	{ { "help" }, 0, "" },
	{ { "pin", "help" }, 0, "" },
	{ { "dcqcn", "help" }, 0, "" },
	{ { "-V" }, 0, "" },
	{ { NULL }, 1, "Usage:" },
	{ { "bogus" }, 1, "Error: object \"bogus\" is unknown" },
	{ { "-z", "pin", "show" }, 1, "Error: option \"-z\" is unknown" },
	{ { "pin", "frob" }, 1, "Error: pin: unknown command \"frob\"" },
	{ { "pin", "add", "remote", "192.0.2.300", "sport", "49152" }, 1,
	  "Error: remote: \"192.0.2.300\" is not an IPv4 or IPv6 address." },
	{ { "pin", "add", "remote", "192.0.2.2", "sport", "49151" }, 1,
	  "Error: sport: \"49151\": out of range" },
	{ { "pin", "add", "remote", "192.0.2.2", "sport", "49152,x" }, 1,
	  "Error: sport: \"49152,x\": invalid value" },
	{ { "pin", "add", "remote", "192.0.2.2" }, 1,
	  "Error: pin add: sport PORT[,PORT...] is required." },
	{ { "pin", "add", "sport", "49152" }, 1,
	  "Error: pin add: remote ADDR is required." },
	{ { "pin", "add", "remote", "192.0.2.2", "sport", "49152", "rqpn",
	    "16777216" }, 1, "Error: rqpn: \"16777216\" is not a QP number" },
	{ { "pin", "add", "remote", "192.0.2.2", "sport", "49152", "lqpn" }, 1,
	  "Error: lqpn: missing argument." },
	{ { "pin", "add", "remote", "192.0.2.2", "remote", "192.0.2.3" }, 1,
	  "Error: remote: given twice." },
	{ { "pin", "add", "remote", "192.0.2.2", "sport", "49152", "foo", "1" },
	  1, "Error: pin add: unknown argument \"foo\"" },
	{ { "pin", "del", "remote", "192.0.2.2", "sport", "49152" }, 1,
	  "Error: pin del: unknown argument \"sport\"" },
	{ { "pin", "replace" }, 1,
	  "Error: pin replace: file PINS.json is required." },
	{ { "pin", "replace", "file", "/nonexistent.json" }, 1,
	  "Error: /nonexistent.json: No such file or directory." },
	{ { "qp", "show", "dev" }, 1, "Error: dev: missing argument." },
	{ { "flow", "show", "bogus" }, 1,
	  "Error: flow show: unknown argument \"bogus\"" },
	{ { "dcqcn", "set", "dev", "rxe0" }, 1,
	  "Error: dcqcn set: at least one PARAM VALUE is required." },
	{ { "dcqcn", "set", "rp_ai_rate", "5" }, 1,
	  "Error: dcqcn set: dev IBDEV is required." },
	{ { "dcqcn", "set", "dev", "rxe0", "rp_ai_rate", "-5" }, 1,
	  "Error: rp_ai_rate: \"-5\" is not an unsigned 32-bit number." },
	{ { "dcqcn", "set", "dev", "rxe0", "np_enable", "2" }, 1,
	  "Error: np_enable out of range 0..1." },
	/* The spec's ranges, not the u32 range: what the module would refuse. */
	{ { "dcqcn", "set", "dev", "rxe0", "rp_gd", "16" }, 1,
	  "Error: rp_gd out of range 0..15." },
	{ { "dcqcn", "set", "dev", "rxe0", "rp_time_reset", "0" }, 1,
	  "Error: rp_time_reset out of range 1..131071." },
	{ { "dcqcn", "set", "dev", "rxe0", "rp_time_reset", "131072" }, 1,
	  "Error: rp_time_reset out of range 1..131071." },
	/* the module's rule between two parameters, when both are given */
	{ { "dcqcn", "set", "dev", "rxe0", "rp_min_rate", "200", "rp_max_rate",
	    "100" }, 1,
	  "Error: dcqcn set: rp_min_rate 200 above rp_max_rate 100." },
	{ { "dcqcn", "set", "dev", "rxe0", "rp_max_rate", "1", "rp_min_rate",
	    "400000" }, 1,
	  "Error: dcqcn set: rp_min_rate 400000 above rp_max_rate 1." },
	{ { "dcqcn", "set", "dev", "rxe0", "rp-ai-rate", "5" }, 1,
	  "Error: dcqcn set: unknown parameter \"rp-ai-rate\"" },
	{ { "stats", "extra" }, 1, "Error: stats: unknown argument \"extra\"" },
	/* the daemon's config is read before the module is asked */
	{ { "stats", "config", "/nonexistent.conf" }, 1,
	  "Error: stats: /nonexistent.conf: cannot open: No such file or directory." },
	{ { "stats", "config" }, 1, "Error: stats: \"config\" needs a value" },
	{ { "monitor", "extra" }, 1, "Error: monitor: unknown argument" },
	{ { "place", "topology", "t.json", "placement", "p.json" }, 1,
	  "Error: place: topology, placement, job and hosts are required." },
	{ { "place", "topology", "t", "placement", "p", "job", "j", "hosts",
	    "0" }, 1, "Error: place: hosts \"0\": not a number in 1..1048576." },
	{ { "place", "qps", "1025" }, 1,
	  "Error: place: qps \"1025\": not a number in 1..1024." },
	{ { "place", "rails", "0", "rails", "1" }, 1,
	  "Error: place: rails: given twice." },
	{ { "place", "policy", "random", "seed", "-1" }, 1,
	  "Error: place: seed \"-1\" is not a 32-bit number." },
	{ { "place", "hosts" }, 1, "Error: place: \"hosts\" needs a value." },
	{ { "place", "job", "j", "job", "k" }, 1, "Error: place: job: given twice." },
	{ { "place", "rails", "0,,1" }, 1,
	  "Error: place: rails \"0,,1\": expected R[,R...]." },
	{ { "place", "rails", "0,x" }, 1,
	  "Error: place: rail \"x\" is not a number in 0..65535." },
	{ { "place", "pattern", "tree" }, 1,
	  "Error: place: unknown pattern \"tree\" (ring, alltoall)." },
	{ { "place", "policy", "best" }, 1,
	  "Error: place: unknown policy \"best\"" },
	{ { "place", "topology", "t", "placement", "p", "job", "j", "hosts",
	    "2", "seed", "1" }, 1, "Error: place: seed is for policy random only." },
	{ { "place", "topology", "/nonexistent.json", "placement", "p", "job",
	    "j", "hosts", "2" }, 1,
	  "Error: /nonexistent.json: cannot read: No such file or directory." },
	{ { "place", "frob", "1" }, 1, "Error: place: unknown argument \"frob\"" },
	{ { "plan", "frob", "1" }, 1, "Error: plan: unknown argument \"frob\"" },
	{ { "plan", "topology" }, 1, "Error: plan: \"topology\" needs a value" },
	{ { "plan", "topology", "t.json" }, 1,
	  "Error: plan: topology and placement files are required" },
	{ { "plan", "topology", "t", "placement", "p", "topology", "u" }, 1,
	  "Error: plan: topology: given twice" },
	{ { "plan", "probes", "1", "probes", "2", "probes", "3", "probes", "4",
	    "probes", "5", "probes", "6", "probes", "7", "probes", "8",
	    "probes", "9", "probes", "10", "probes", "11", "probes", "12",
	    "probes", "13", "probes", "14", "probes", "15", "probes", "16",
	    "probes", "17" }, 1, "Error: plan: more than 16 probes arguments" },
	{ { "plan", "probes", "1", "2", "3", "4", "5", "6", "7", "8", "9",
	    "10", "11", "12", "13", "14", "15", "16", "17" }, 1,
	  "Error: plan: more than 16 probes arguments" },
	{ { "plan", "probes", "a", "b", "frob" }, 1,
	  "Error: plan: topology and placement files are required" },
	{ { "plan", "probes", "a", "b", "topology" }, 1,
	  "Error: plan: \"topology\" needs a value" },
	{ { "probe", "host", "h1", "h", "h2" }, 1,
	  "Error: probe: host: given twice" },
	{ { "probe", "rate", "0" }, 1,
	  "Error: probe: rate \"0\": not a number in 1..100000" },
	{ { "probe", "ttl", "256" }, 1,
	  "Error: probe: ttl \"256\": not a number in 1..255" },
	{ { "probe", "tries" }, 1, "Error: probe: \"tries\" needs a value" },
	{ { "probe", "frob", "1" }, 1, "Error: probe: unknown argument \"frob\"" },
	{ { "probe", "topology", "t", "placement", "p" }, 1,
	  "Error: probe: topology, placement and host are required" },
	{ { "probe", "schedule", "budget", "0" }, 1,
	  "Error: probe schedule: budget \"0\": not a number in 1..1000000" },
	{ { "probe", "schedule", "topology", "t", "budget", "10" }, 1,
	  "Error: probe schedule: topology, budget and placement or flows are required" },
};

TEST(bad_input_rejected_before_sending)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[8192], err[4096];
		int st = run(cases[i].args, out, sizeof(out), err, sizeof(err));

		if (st == -2)
			SKIP(return, "rocepath binary not built (make -C daemon)");
		EXPECT_EQ(cases[i].status, st) TH_LOG("case %zu: %s", i, err);
		if (cases[i].err[0]) {
			EXPECT_EQ(0, strncmp(err, cases[i].err,
					     strlen(cases[i].err)))
				TH_LOG("case %zu: got \"%s\" want \"%s\"", i,
				       err, cases[i].err);
			/* Exactly one line. */
			if (!strncmp(err, "Error:", 6))
				EXPECT_EQ(err + strlen(err) - 1,
					  strchr(err, '\n'));
		} else {
			EXPECT_STREQ("", err);
		}
		if (cases[i].status)
			EXPECT_STREQ("", out) TH_LOG("case %zu", i);
	}
}

TEST(bad_pins_file_names_file_and_index)
{
	char path[] = "/tmp/rp-test-cli-XXXXXX", out[1024], err[1024];
	const char *text = "[{\"remote\": \"192.0.2.2\", \"sports\": [49152]},"
			   " {\"remote\": \"192.0.2.3\", \"sports\": [1]}]";
	const char *args[] = { "-j", "pin", "replace", "file", path, NULL };
	char want[256];
	int fd = mkstemp(path), st;

	ASSERT_LE(0, fd);
	ASSERT_EQ(strlen(text), write(fd, text, strlen(text)));
	close(fd);
	st = run(args, out, sizeof(out), err, sizeof(err));
	unlink(path);
	if (st == -2)
		SKIP(return, "rocepath binary not built");
	EXPECT_EQ(1, st);
	snprintf(want, sizeof(want),
		 "Error: %s: pin 1: sports[0] is not a port in 49152..65535.\n",
		 path);
	EXPECT_STREQ(want, err);
	EXPECT_STREQ("", out);
}

/* The example AI zone next to the binary's tree. */
static void example(char *buf, size_t len, const char *file)
{
	rp_test_example(buf, len, "ai-zone", file);
}

/*
 * place end to end: -j prints the advice, out writes a placement that
 * `plan` accepts, and placing the same job again names the file.
 */
TEST(place_writes_a_plannable_placement)
{
	char dir[] = "/tmp/rp-test-place-XXXXXX", topo[PATH_MAX + 64];
	char place[PATH_MAX + 64], outp[PATH_MAX + 64], want[PATH_MAX + 128];
	const char *text = "{\"jobs\": [{\"id\": \"old\", \"pattern\": \"ring\","
			   " \"rails\": [0, 1], \"hosts\": [\"host00000\","
			   " \"host00017\", \"host00034\"]}]}\n";
	const char *adv[] = { "-j", "place", "topology", topo, "placement", place,
			      "job", "new", "hosts", "16", "rails", "0,1",
			      "qps", "2", "out", outp, NULL };
	const char *plan[] = { "plan", "topology", topo, "placement", outp, NULL };
	static char out[1 << 16];
	char err[4096];
	json_object *o;
	FILE *fp;
	int st;

	example(topo, sizeof(topo), "topology.json");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(place, sizeof(place), "%s/placement.json", dir);
	snprintf(outp, sizeof(outp), "%s/new.json", dir);
	fp = fopen(place, "w");
	ASSERT_NE(NULL, fp);
	fputs(text, fp);
	fclose(fp);
	st = run(adv, out, sizeof(out), err, sizeof(err));
	if (st == -2)
		SKIP(return, "rocepath binary not built");
	ASSERT_EQ(0, st) TH_LOG("%s", err);
	o = json_tokener_parse(out);
	ASSERT_NE(NULL, o);
	EXPECT_EQ(16, json_object_array_length(json_object_object_get(o, "hosts")));
	/* 16 free hosts in one rack: the whole rack, nothing crosses the fabric */
	EXPECT_EQ(1, json_object_array_length(json_object_object_get(o, "racks")));
	EXPECT_EQ(0, json_object_get_int(json_object_object_get(
		json_object_object_get(o, "after"), "job_fabric_flows")));
	EXPECT_STREQ(outp, json_object_get_string(
		json_object_object_get(o, "placement")));
	json_object_put(o);
	EXPECT_EQ(0, run(plan, out, sizeof(out), err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(out, "job new rail 1 "));

	/* the adopted file already has the job */
	adv[5] = outp;
	adv[15] = place;
	EXPECT_EQ(1, run(adv, out, sizeof(out), err, sizeof(err)));
	snprintf(want, sizeof(want),
		 "Error: %s: .jobs: job \"new\" is already placed.\n", outp);
	EXPECT_STREQ(want, err);
	EXPECT_STREQ("", out);
	unlink(place);
	unlink(outp);
	rmdir(dir);
}

/*
 * plan ... host prints the host's pins through pin show's printer: the
 * text is rp_pin_print()'s for the pins the -j form parses to (once a
 * private copy of it that differed), and -j is a pins file.
 */
TEST(plan_host_prints_as_pin_show)
{
	char topo[PATH_MAX + 64], place[PATH_MAX + 64], err[4096], perr[256];
	const char *args[] = { "-j", "plan", "topology", topo, "placement", place,
			       "host", "host00000", NULL };
	static char out[1 << 16], text[1 << 16];
	struct rp_pins pins = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct rp_out *o;
	json_object *arr;
	FILE *fp;
	int st;

	example(topo, sizeof(topo), "topology.json");
	example(place, sizeof(place), "placement.json");
	st = run(args, out, sizeof(out), err, sizeof(err));
	if (st == -2)
		SKIP(return, "rocepath binary not built");
	ASSERT_EQ(0, st) TH_LOG("%s", err);
	ASSERT_EQ(0, run(args + 1, text, sizeof(text), err, sizeof(err))) TH_LOG("%s", err);
	arr = json_tokener_parse(out);
	ASSERT_NE(NULL, arr);
	ASSERT_EQ(0, rp_pins_from_json(arr, "plan", &pins, perr, sizeof(perr)))
		TH_LOG("%s", perr);
	json_object_put(arr);
	ASSERT_LT(0, pins.n);
	fp = open_memstream(&buf, &len);
	ASSERT_NE(NULL, fp);
	o = rp_out_new(fp, false, false);
	for (size_t i = 0; i < pins.n; i++)
		rp_pin_print(o, &pins.v[i]);
	rp_out_free(o);
	fclose(fp);
	EXPECT_STREQ(buf, text);
	free(buf);
	rp_pins_free(&pins);
}

/* Writes answers from @src to @dst, one per spine, as a probe file at @path. */
static int probe_file(const struct rp_topo *t, const char *src, const char *dst,
		      const char *path)
{
	struct rp_probes ps = { .digest = rp_topo_digest(t) };
	struct rp_probe p = { 0 };
	int ret = 0;

	if (rp_addr_parse(src, &p.src) || rp_addr_parse(dst, &p.dst))
		return -EINVAL;
	for (int sw = 0; sw < rp_topo_nswitches(t) && !ret; sw++) {
		if (strncmp(rp_topo_switch_name(t, sw), "spine", 5))
			continue;
		for (int i = 0; i < 8 && !ret; i++) {
			p.sport = 49152 + sw * 8 + i;
			p.sw = sw;
			ret = rp_probes_add(&ps, &p);
		}
	}
	if (!ret)
		ret = rp_probes_save(t, &ps, path);
	rp_probes_free(&ps);
	return ret;
}

/* The plan's summary "unplaced", or -1. */
static int unplaced(const char *json)
{
	json_object *o = json_tokener_parse(json), *s, *u;
	int n = -1;

	if (o && json_object_object_get_ex(o, "summary", &s) &&
	    json_object_object_get_ex(s, "unplaced", &u))
		n = json_object_get_int(u);
	json_object_put(o);
	return n;
}

/*
 * The synopsis "probes FILE ..." taken literally: "probes A B" reads both
 * files, as "probes A probes B" does, and a key after the files ends the
 * list. B's answers place flows that A's alone leave unplaced, so a B
 * that was dropped or taken as an argument would show.
 */
TEST(plan_probes_takes_several_files)
{
	char dir[] = "/tmp/rp-test-cli-XXXXXX", topo[PATH_MAX + 64];
	char place[PATH_MAX + 64], a[64], b[64], missing[64];
	static char out1[65536], out2[65536], out3[65536];
	const char *one[] = { "-j", "plan", "topology", topo, "placement",
			      place, "probes", a, NULL };
	const char *both[] = { "-j", "plan", "topology", topo, "placement",
			       place, "probes", a, b, NULL };
	const char *twice[] = { "-j", "plan", "topology", topo, "placement",
				place, "probes", a, "probes", b, NULL };
	/* a key ends the list */
	const char *keyed[] = { "-j", "plan", "probes", a, b, "topology", topo,
				"placement", place, NULL };
	const char *bad[] = { "-j", "plan", "topology", topo, "placement",
			      place, "probes", a, missing, NULL };
	struct rp_topo *t = NULL;
	char err[4096];
	struct rp_err e;
	int st;

	rp_test_example(topo, sizeof(topo), "fabric", "topology-measured.json");
	rp_test_example(place, sizeof(place), "fabric", "placement.json");
	ASSERT_EQ(0, rp_topo_load(topo, &t, &e));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	snprintf(missing, sizeof(missing), "%s/missing.json", dir);
	/* the ring h1 -> h3 -> h2 -> h4 -> h1: A answers h1's flow, B h3's */
	EXPECT_EQ(0, probe_file(t, "192.0.2.1", "192.0.2.3", a));
	EXPECT_EQ(0, probe_file(t, "192.0.2.3", "192.0.2.2", b));
	rp_topo_free(t);

	st = run(one, out1, sizeof(out1), err, sizeof(err));
	if (st == -2)
		SKIP(goto out, "rocepath binary not built");
	EXPECT_EQ(0, st) TH_LOG("%s", err);
	EXPECT_EQ(0, run(both, out2, sizeof(out2), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0, run(twice, out3, sizeof(out3), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ(out3, out2);
	EXPECT_LT(0, unplaced(out2));
	EXPECT_LT(unplaced(out2), unplaced(out1));

	EXPECT_EQ(0, run(keyed, out3, sizeof(out3), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ(out2, out3);
	EXPECT_EQ(1, run(bad, out3, sizeof(out3), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, missing)) TH_LOG("%s", err);
out:
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* Writes text to path; 0 or -1. */
static int put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int ret = 0;

	if (!fp)
		return -1;
	if (fputs(text, fp) < 0)
		ret = -1;
	if (fclose(fp))
		ret = -1;
	return ret;
}

/*
 * stats with a status file that is there but unreadable or broken still
 * shows the module's counters: one warning naming the file and why, no
 * "daemon" key; a missing status file stays "running": false, silently.
 */
TEST(stats_bad_status_file_is_a_warning)
{
	char dir[] = "/tmp/rp-test-stats-XXXXXX", cfg[PATH_MAX + 64];
	char status[PATH_MAX + 64], text[2 * PATH_MAX], want[PATH_MAX + 256];
	const char *args[] = { "-j", "stats", "config", cfg, NULL };
	/* NULL: a directory, which opens but does not read */
	static const char *const bad[] = { "{\"pid\": ", "{\"pid\": 1}", NULL };
	const char *const why[] = { "not valid JSON",
		"key 'updated': missing or not a non-negative integer",
		strerror(EISDIR) };
	static char out[1 << 16];
	char err[4096];
	bool module;
	struct rp_nl *nl;
	json_object *o, *d;
	int st;

	module = !rp_nl_open(&nl);
	if (module)
		rp_nl_close(nl);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cfg, sizeof(cfg), "%s/rocepathd.conf", dir);
	snprintf(status, sizeof(status), "%s/status.json", dir);
	snprintf(text, sizeof(text),
		 "{\"topology\": \"t.json\", \"placement\": \"p.json\","
		 " \"host\": \"host0\", \"status_file\": \"%s\"}\n", status);
	ASSERT_EQ(0, put(cfg, text));

	for (size_t i = 0; i < 3; i++) {
		unlink(status);
		ASSERT_EQ(0, (bad[i] ? put(status, bad[i]) : mkdir(status, 0755)));
		st = run(args, out, sizeof(out), err, sizeof(err));
		if (st == -2)
			break;
		snprintf(want, sizeof(want),
			 "Warning: stats: %s: %s; rocepathd's status not shown.\n",
			 status, why[i]);
		EXPECT_EQ(0, strncmp(err, want, strlen(want)))
			TH_LOG("got \"%s\" want \"%s\"", err, want);
		if (!module) {
			/* the module's error follows, as without a status file */
			EXPECT_EQ(1, st);
			ASSERT_LE(strlen(want), strlen(err));
			EXPECT_EQ(0, strncmp(err + strlen(want), "Error: rocepath generic netlink family not found",
					     48)) TH_LOG("%s", err);
			EXPECT_STREQ("", out);
			continue;
		}
		EXPECT_EQ(0, st) TH_LOG("%s", err);
		o = json_tokener_parse(out);
		ASSERT_NE(NULL, o) TH_LOG("%s", out);
		EXPECT_TRUE(json_object_object_get_ex(o, "hook_calls", NULL));
		EXPECT_FALSE(json_object_object_get_ex(o, "daemon", NULL));
		json_object_put(o);
	}

	/* no status file: no daemon here, no warning */
	rmdir(status);
	st = run(args, out, sizeof(out), err, sizeof(err));
	if (st != -2 && !module) {
		EXPECT_EQ(1, st);
		EXPECT_EQ(0, strncmp(err, "Error: rocepath generic netlink family not found", 48))
			TH_LOG("%s", err);
	} else if (st != -2) {
		EXPECT_EQ(0, st) TH_LOG("%s", err);
		EXPECT_STREQ("", err);
		o = json_tokener_parse(out);
		ASSERT_NE(NULL, o) TH_LOG("%s", out);
		ASSERT_TRUE(json_object_object_get_ex(o, "daemon", &d));
		EXPECT_FALSE(json_object_get_boolean(json_object_object_get(d, "running")));
		EXPECT_STREQ(status, json_object_get_string(
			json_object_object_get(d, "status_file")));
		json_object_put(o);
	}
	unlink(cfg);
	rmdir(dir);
	if (st == -2)
		SKIP(return, "rocepath binary not built");
}

TEST(missing_module_is_clear)
{
	const char *args[] = { "-j", "pin", "show", NULL };
	char out[1024], err[1024];
	struct rp_nl *nl;
	int st;

	if (!rp_nl_open(&nl)) {
		rp_nl_close(nl);
		SKIP(return, "the rocepath family is present here");
	}
	st = run(args, out, sizeof(out), err, sizeof(err));
	if (st == -2)
		SKIP(return, "rocepath binary not built");
	EXPECT_EQ(1, st);
	EXPECT_STREQ("", out);
	EXPECT_NE(NULL, strstr(err, "rocepath generic netlink family not found"));
	EXPECT_NE(NULL, strstr(err, "modprobe rocepath"));
	EXPECT_EQ(0, strncmp(err, "Error: ", 7));
}

TEST_HARNESS_MAIN
