// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd config parsing: a good file parses with the documented
 * defaults, and every bad key is rejected with an error that names the
 * file and the key.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "rpd_config.h"
#include "rpd_status.h"
#include "objs.h"
#include "rpd_log.h"

#define F "/etc/rocepath/test.conf"

/* A complete config parses; relative paths follow the config file. */
TEST(good_full)
{
	const char *text =
		"{\"topology\": \"/etc/rocepath/topology.json\",\n"
		" \"placement\": \"placement.json\",\n"
		" \"host\": \"h1\", \"log_level\": \"debug\", \"debounce_ms\": 50,\n"
		" \"resync_interval_s\": 0, \"poll_interval_ms\": 250,\n"
		" \"stable_replan\": true, \"state_dir\": \"state\",\n"
		" \"previous_placement\": \"/run/rocepath/previous.json\",\n"
		" \"dcqcn\": {\"*\": {\"np_enable\": 1, \"rp_enable\": 1},\n"
		"           \"mlx5_0\": {\"rp_ai_rate\": 5, \"np_enable\": 0}}}\n";
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse(text, F, &c, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("/etc/rocepath/topology.json", c.topology);
	EXPECT_STREQ("/etc/rocepath/placement.json", c.placement);
	EXPECT_STREQ("h1", c.host);
	EXPECT_STREQ(F, c.path);
	EXPECT_EQ(RPD_LOG_DEBUG, c.log_level);
	EXPECT_EQ(50, c.debounce_ms);
	EXPECT_EQ(0, c.resync_s);
	EXPECT_EQ(250, c.poll_ms);
	EXPECT_TRUE(c.stable_replan);
	EXPECT_STREQ("/etc/rocepath/state", c.state_dir);
	EXPECT_STREQ("/run/rocepath/previous.json", c.previous_placement);
	EXPECT_EQ(2, c.n_dcqcn);
	rpd_config_free(&c);
}

/* Only topology and placement are required; host is the system host name. */
TEST(good_minimal_defaults)
{
	const char *text = "{\"topology\": \"t.json\", \"placement\": \"/run/p.json\"}";
	char hn[HOST_NAME_MAX + 1] = "";
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse(text, "rel.conf", &c, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, gethostname(hn, sizeof(hn)));
	EXPECT_STREQ(hn, c.host);
	EXPECT_STREQ("t.json", c.topology);
	EXPECT_STREQ("/run/p.json", c.placement);
	EXPECT_EQ(RPD_LOG_INFO, c.log_level);
	EXPECT_EQ(RPD_DEBOUNCE_MS_DEFAULT, c.debounce_ms);
	EXPECT_EQ(RPD_RESYNC_S_DEFAULT, c.resync_s);
	EXPECT_EQ(RPD_POLL_MS_DEFAULT, c.poll_ms);
	EXPECT_FALSE(c.stable_replan);
	EXPECT_STREQ(RPD_STATE_DIR_DEFAULT, c.state_dir);
	EXPECT_EQ(NULL, c.previous_placement);
	EXPECT_EQ(0, c.n_dcqcn);
	EXPECT_EQ(50, c.probe_rate_pps);
	EXPECT_EQ(3, c.probe_tries);
	EXPECT_EQ(500, c.probe_timeout_ms);
	EXPECT_EQ(2, c.probe_ttl);
	EXPECT_EQ(0, c.probe_budget_pps);
	EXPECT_STREQ(RPD_STATUS_FILE_DEFAULT, c.status_file);
	rpd_config_free(&c);
}

/* "status_file": relative to the config's directory; null turns it off. */
TEST(status_file_key)
{
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\","
				      " \"status_file\": \"st.json\"}", "/etc/r/c.conf",
				      &c, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("/etc/r/st.json", c.status_file);
	rpd_config_free(&c);
	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\","
				      " \"status_file\": null}", "c.conf", &c, err,
				      sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(NULL, c.status_file);
	rpd_config_free(&c);
}

/* The probe keys set what they name. */
TEST(probe_keys)
{
	const char *text = "{\"topology\": \"t.json\", \"placement\": \"p.json\","
			   " \"probe_rate_pps\": 200, \"probe_tries\": 5,"
			   " \"probe_timeout_ms\": 50, \"probe_ttl\": 3,"
			   " \"probe_budget_pps\": 1000}";
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse(text, "p.conf", &c, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(200, c.probe_rate_pps);
	EXPECT_EQ(5, c.probe_tries);
	EXPECT_EQ(50, c.probe_timeout_ms);
	EXPECT_EQ(3, c.probe_ttl);
	EXPECT_EQ(1000, c.probe_budget_pps);
	rpd_config_free(&c);
}

/* "*" applies first, then patterns, then the exact device name wins. */
TEST(dcqcn_merge_precedence)
{
	const char *text =
		"{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": {"
		"\"mlx5_0\": {\"rp_ai_rate\": 7},"
		"\"mlx5_*\": {\"rp_ai_rate\": 6, \"rp_hai_rate\": 60},"
		"\"*\": {\"np_enable\": 1, \"rp_enable\": 1, \"rp_ai_rate\": 5}}}";
	int ai = rp_dcqcn_param_find("rp_ai_rate");
	int hai = rp_dcqcn_param_find("rp_hai_rate");
	int np = rp_dcqcn_param_find("np_enable");
	struct rpd_dcqcn_values v;
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse(text, F, &c, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_GE(ai, 0);
	ASSERT_GE(hai, 0);
	ASSERT_GE(np, 0);

	EXPECT_EQ(3, rpd_config_dcqcn_for(&c, "mlx5_0", &v));
	EXPECT_EQ(7, v.val[ai]);
	EXPECT_EQ(60, v.val[hai]);
	EXPECT_EQ(1, v.val[np]);

	EXPECT_EQ(2, rpd_config_dcqcn_for(&c, "mlx5_1", &v));
	EXPECT_EQ(6, v.val[ai]);

	EXPECT_EQ(1, rpd_config_dcqcn_for(&c, "rxe0", &v));
	EXPECT_EQ(5, v.val[ai]);
	EXPECT_FALSE(v.set & (1ULL << hai));
	rpd_config_free(&c);

	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\"}",
				      F, &c, err, sizeof(err)));
	EXPECT_EQ(0, rpd_config_dcqcn_for(&c, "rxe0", &v));
	EXPECT_EQ(0, v.set);
	rpd_config_free(&c);
}

/* Every parameter name of `rocepath dcqcn set` is accepted. */
TEST(dcqcn_all_params)
{
	char text[4096];
	size_t off;
	struct rpd_config c;
	char err[512] = "";

	off = snprintf(text, sizeof(text),
		       "{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": {\"rxe0\": {");
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++)
		off += snprintf(text + off, sizeof(text) - off, "%s\"%s\": 1",
				i ? ", " : "", rp_dcqcn_params[i].name);
	snprintf(text + off, sizeof(text) - off, "}}}");
	ASSERT_EQ(0, rpd_config_parse(text, F, &c, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((1ULL << RP_DCQCN_NPARAMS) - 1, c.dcqcn[0].set);
	EXPECT_EQ(22, RP_DCQCN_NPARAMS);
	rpd_config_free(&c);
}

/*
 * A value the module's policy refuses is refused here, with the range:
 * the daemon once took rp_gd and rp_time_reset up to UINT32_MAX while the
 * module allows 0..15 and 1..131071, so a valid config failed at push time.
 */
TEST(dcqcn_module_ranges)
{
	static const struct {
		const char *param, *val, *range;
	} bad[] = {
		{ "rp_gd", "16", "0..15" },
		{ "rp_time_reset", "0", "1..131071" },
		{ "rp_time_reset", "131072", "1..131071" },
		{ "rp_byte_reset", "32768", "0..32767" },
		{ "rp_threshold", "0", "1..31" },
		{ "rp_ai_rate", "400001", "1..400000" },
		{ "np_min_time_between_cnps", "4095001", "0..4095000" },
	};
	static const struct {
		const char *param, *val;
	} good[] = {
		{ "rp_gd", "15" }, { "rp_gd", "0" },
		{ "rp_time_reset", "131071" }, { "rp_time_reset", "1" },
	};
	char text[512], err[512];
	struct rpd_config c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": {\"rxe0\": {\"%s\": %s}}}",
			 bad[i].param, bad[i].val);
		err[0] = '\0';
		EXPECT_EQ(-EINVAL, rpd_config_parse(text, F, &c, err, sizeof(err)))
			TH_LOG("%s %s accepted", bad[i].param, bad[i].val);
		EXPECT_NE(NULL, strstr(err, bad[i].param)) TH_LOG("%s", err);
		EXPECT_NE(NULL, strstr(err, bad[i].range)) TH_LOG("%s", err);
		rpd_config_free(&c);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": {\"rxe0\": {\"%s\": %s}}}",
			 good[i].param, good[i].val);
		EXPECT_EQ(0, rpd_config_parse(text, F, &c, err, sizeof(err))) TH_LOG("%s", err);
		rpd_config_free(&c);
	}
}

/*
 * rp_min_rate above a non-zero rp_max_rate is refused by the module
 * (kmod/dcqcn.c), so a profile that sets both that way is a config error,
 * also when "*" gives one and the device's own profile the other; a
 * ceiling of 0 is "line rate", and a pattern is judged with "*" only,
 * as the patterns that meet on one device are known only at push time.
 * The daemon once accepted all of these and failed when it pushed them.
 */
TEST(dcqcn_min_rate_above_max_rate)
{
	static const struct {
		const char *dcqcn, *key, *merged;
	} bad[] = {
		{ "{\"rxe0\": {\"rp_min_rate\": 200, \"rp_max_rate\": 100}}",
		  "dcqcn.rxe0", "'rxe0'" },
		{ "{\"*\": {\"rp_min_rate\": 200, \"rp_max_rate\": 100}}",
		  "dcqcn.*", "'*'" },
		{ "{\"mlx5_0\": {\"rp_min_rate\": 200}, \"*\": {\"rp_max_rate\": 100}}",
		  "dcqcn.mlx5_0", "'*', 'mlx5_0'" },
		{ "{\"*\": {\"rp_min_rate\": 200}, \"mlx5_*\": {\"rp_max_rate\": 100}}",
		  "dcqcn.mlx5_*", "'*', 'mlx5_*'" },
		{ "{\"mlx5_*\": {\"rp_min_rate\": 200}, \"mlx5_0\": {\"rp_max_rate\": 100}}",
		  "dcqcn.mlx5_0", "'mlx5_*', 'mlx5_0'" },
	};
	static const char *const good[] = {
		"{\"rxe0\": {\"rp_min_rate\": 100, \"rp_max_rate\": 100}}",
		"{\"rxe0\": {\"rp_min_rate\": 400000, \"rp_max_rate\": 0}}",
		/* the device's own profile lowers the floor under "*"'s ceiling */
		"{\"*\": {\"rp_min_rate\": 200, \"rp_max_rate\": 1000},"
		" \"rxe0\": {\"rp_max_rate\": 300}}",
		"{\"*\": {\"rp_max_rate\": 100},"
		" \"rxe0\": {\"rp_min_rate\": 200, \"rp_max_rate\": 0}}",
		/* one side only: the module judges it with the device's value */
		"{\"rxe0\": {\"rp_min_rate\": 400000}}",
		/* two patterns: both match mlx5_0, known only at push time */
		"{\"mlx5_*\": {\"rp_min_rate\": 200}, \"*_0\": {\"rp_max_rate\": 100}}",
	};
	char text[512], err[512], want[128];
	struct rpd_config c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": %s}",
			 bad[i].dcqcn);
		err[0] = '\0';
		EXPECT_EQ(-EINVAL, rpd_config_parse(text, F, &c, err, sizeof(err)))
			TH_LOG("accepted: %s", bad[i].dcqcn);
		snprintf(want, sizeof(want), "key '%s': ", bad[i].key);
		EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
		EXPECT_NE(NULL, strstr(err, "rp_min_rate 200 above rp_max_rate 100"))
			TH_LOG("%s", err);
		EXPECT_NE(NULL, strstr(err, bad[i].merged)) TH_LOG("%s", err);
		rpd_config_free(&c);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"topology\": \"t\", \"placement\": \"p\", \"dcqcn\": %s}",
			 good[i]);
		EXPECT_EQ(0, rpd_config_parse(text, F, &c, err, sizeof(err)))
			TH_LOG("%s: %s", good[i], err);
		rpd_config_free(&c);
	}
}

/* The rule itself: only known values are judged, 0 is no ceiling. */
TEST(dcqcn_check_rule)
{
	int lo = rp_dcqcn_param_find("rp_min_rate");
	int hi = rp_dcqcn_param_find("rp_max_rate");
	uint32_t v[RP_DCQCN_NPARAMS] = { 0 };
	uint64_t both = (1ULL << lo) | (1ULL << hi);
	char why[128] = "";

	ASSERT_LE(0, lo);
	ASSERT_LE(0, hi);
	v[lo] = 5;
	v[hi] = 4;
	EXPECT_EQ(-ERANGE, rp_dcqcn_check(v, both, why, sizeof(why)));
	EXPECT_STREQ("rp_min_rate 5 above rp_max_rate 4", why);
	EXPECT_EQ(0, rp_dcqcn_check(v, 1ULL << lo, why, sizeof(why)));
	EXPECT_EQ(0, rp_dcqcn_check(v, 1ULL << hi, why, sizeof(why)));
	v[hi] = 5;
	EXPECT_EQ(0, rp_dcqcn_check(v, both, why, sizeof(why)));
	v[hi] = 0;
	EXPECT_EQ(0, rp_dcqcn_check(v, both, why, sizeof(why)));
}

/* A missing file is reported with its name and the errno text. */
TEST(load_missing_file)
{
	struct rpd_config c;
	char err[512] = "";

	EXPECT_EQ(-ENOENT, rpd_config_load("/nonexistent/rocepathd.conf", &c, err,
					   sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/rocepathd.conf"));
	EXPECT_NE(NULL, strstr(err, "No such file"));
}

/* A file on disk parses the same as the string. */
TEST(load_file)
{
	char path[] = "/tmp/rocepathd-test-XXXXXX";
	const char *text = "{\"topology\": \"topo.json\", \"placement\": \"p.json\", \"host\": \"hx\"}";
	struct rpd_config c;
	char err[512] = "", want[PATH_MAX];
	int fd;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
	ASSERT_EQ(0, rpd_config_load(path, &c, err, sizeof(err))) TH_LOG("%s", err);
	snprintf(want, sizeof(want), "/tmp/topo.json");
	EXPECT_STREQ(want, c.topology);
	EXPECT_STREQ("hx", c.host);
	rpd_config_free(&c);
	unlink(path);
}

FIXTURE(bad) {
	struct rpd_config c;
	char err[512];
};

FIXTURE_VARIANT(bad) {
	const char *text;
	const char *key;	/* must appear in the error as key '<key>' */
	const char *reason;	/* substring of the error */
};

FIXTURE_SETUP(bad)
{
	memset(self, 0, sizeof(*self));
}

FIXTURE_TEARDOWN(bad)
{
	rpd_config_free(&self->c);
}

#define TP "\"topology\": \"t\", \"placement\": \"p\""

FIXTURE_VARIANT_ADD(bad, not_json) { .text = "{\"topology\": ", .reason = "invalid JSON" };
FIXTURE_VARIANT_ADD(bad, empty_file) { .text = "", .reason = "invalid JSON" };
FIXTURE_VARIANT_ADD(bad, trailing) { .text = "{" TP "} x", .reason = "trailing" };
FIXTURE_VARIANT_ADD(bad, not_object) { .text = "[1, 2]", .reason = "JSON object" };
FIXTURE_VARIANT_ADD(bad, unknown_key) { .text = "{" TP ", \"topolgy\": \"x\"}", .key = "topolgy", .reason = "unknown key" };
FIXTURE_VARIANT_ADD(bad, topology_missing) { .text = "{\"placement\": \"p\"}", .key = "topology", .reason = "missing" };
FIXTURE_VARIANT_ADD(bad, placement_missing) { .text = "{\"topology\": \"t\"}", .key = "placement", .reason = "missing" };
FIXTURE_VARIANT_ADD(bad, topology_type) { .text = "{\"topology\": 1, \"placement\": \"p\"}", .key = "topology", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, topology_empty) { .text = "{\"topology\": \"\", \"placement\": \"p\"}", .key = "topology", .reason = "empty" };
FIXTURE_VARIANT_ADD(bad, placement_type) { .text = "{\"topology\": \"t\", \"placement\": null}", .key = "placement", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, host_type) { .text = "{" TP ", \"host\": [\"h1\"]}", .key = "host", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, host_empty) { .text = "{" TP ", \"host\": \"\"}", .key = "host", .reason = "empty" };
FIXTURE_VARIANT_ADD(bad, log_level_value) { .text = "{" TP ", \"log_level\": \"loud\"}", .key = "log_level", .reason = "loud" };
FIXTURE_VARIANT_ADD(bad, log_level_type) { .text = "{" TP ", \"log_level\": 7}", .key = "log_level", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, debounce_negative) { .text = "{" TP ", \"debounce_ms\": -1}", .key = "debounce_ms", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, debounce_big) { .text = "{" TP ", \"debounce_ms\": 60001}", .key = "debounce_ms", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, debounce_type) { .text = "{" TP ", \"debounce_ms\": \"200\"}", .key = "debounce_ms", .reason = "integer" };
FIXTURE_VARIANT_ADD(bad, debounce_float) { .text = "{" TP ", \"debounce_ms\": 1.5}", .key = "debounce_ms", .reason = "integer" };
FIXTURE_VARIANT_ADD(bad, probe_rate_zero) { .text = "{" TP ", \"probe_rate_pps\": 0}", .key = "probe_rate_pps", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, probe_tries_big) { .text = "{" TP ", \"probe_tries\": 101}", .key = "probe_tries", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, probe_ttl_type) { .text = "{" TP ", \"probe_ttl\": \"2\"}", .key = "probe_ttl", .reason = "integer" };
FIXTURE_VARIANT_ADD(bad, probe_budget_big) { .text = "{" TP ", \"probe_budget_pps\": 1000001}", .key = "probe_budget_pps", .reason = "range 0..1000000" };
FIXTURE_VARIANT_ADD(bad, probe_budget_negative) { .text = "{" TP ", \"probe_budget_pps\": -1}", .key = "probe_budget_pps", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, probe_budget_float) { .text = "{" TP ", \"probe_budget_pps\": 0.5}", .key = "probe_budget_pps", .reason = "integer" };
FIXTURE_VARIANT_ADD(bad, status_file_type) { .text = "{" TP ", \"status_file\": 1}", .key = "status_file", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, status_file_empty) { .text = "{" TP ", \"status_file\": \"\"}", .key = "status_file", .reason = "empty" };
FIXTURE_VARIANT_ADD(bad, resync_big) { .text = "{" TP ", \"resync_interval_s\": 86401}", .key = "resync_interval_s", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, poll_big) { .text = "{" TP ", \"poll_interval_ms\": 3600001}", .key = "poll_interval_ms", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, poll_negative) { .text = "{" TP ", \"poll_interval_ms\": -1}", .key = "poll_interval_ms", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, stable_replan_int) { .text = "{" TP ", \"stable_replan\": 1}", .key = "stable_replan", .reason = "true or false" };
FIXTURE_VARIANT_ADD(bad, stable_replan_string) { .text = "{" TP ", \"stable_replan\": \"yes\"}", .key = "stable_replan", .reason = "true or false" };
FIXTURE_VARIANT_ADD(bad, state_dir_empty) { .text = "{" TP ", \"state_dir\": \"\"}", .key = "state_dir", .reason = "empty" };
FIXTURE_VARIANT_ADD(bad, state_dir_null) { .text = "{" TP ", \"state_dir\": null}", .key = "state_dir", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, previous_placement_type) { .text = "{" TP ", \"previous_placement\": 3}", .key = "previous_placement", .reason = "string" };
FIXTURE_VARIANT_ADD(bad, previous_placement_typo) { .text = "{" TP ", \"previous_placment\": \"p\"}", .key = "previous_placment", .reason = "unknown key" };
FIXTURE_VARIANT_ADD(bad, dcqcn_type) { .text = "{" TP ", \"dcqcn\": [1]}", .key = "dcqcn", .reason = "object" };
FIXTURE_VARIANT_ADD(bad, dcqcn_dev_type) { .text = "{" TP ", \"dcqcn\": {\"rxe0\": 1}}", .key = "dcqcn.rxe0", .reason = "object" };
FIXTURE_VARIANT_ADD(bad, dcqcn_dev_empty) { .text = "{" TP ", \"dcqcn\": {\"\": {}}}", .key = "dcqcn.", .reason = "device name" };
FIXTURE_VARIANT_ADD(bad, dcqcn_dev_long) {
	.text = "{" TP ", \"dcqcn\": {\"d123456789012345678901234567890123456789012345678901234567890123\": {}}}",
	.key = "dcqcn.d123456789012345678901234567890123456789012345678901234567890123",
	.reason = "device name" };
FIXTURE_VARIANT_ADD(bad, dcqcn_param_unknown) { .text = "{" TP ", \"dcqcn\": {\"*\": {\"rp_ai_rat\": 5}}}", .key = "dcqcn.*.rp_ai_rat", .reason = "unknown DCQCN parameter" };
FIXTURE_VARIANT_ADD(bad, dcqcn_param_negative) { .text = "{" TP ", \"dcqcn\": {\"*\": {\"rp_ai_rate\": -5}}}", .key = "dcqcn.*.rp_ai_rate", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, dcqcn_param_big) { .text = "{" TP ", \"dcqcn\": {\"*\": {\"rp_ai_rate\": 4294967296}}}", .key = "dcqcn.*.rp_ai_rate", .reason = "range" };
FIXTURE_VARIANT_ADD(bad, dcqcn_enable_two) { .text = "{" TP ", \"dcqcn\": {\"rxe0\": {\"np_enable\": 2}}}", .key = "dcqcn.rxe0.np_enable", .reason = "0..1" };
FIXTURE_VARIANT_ADD(bad, dcqcn_dscp_range) { .text = "{" TP ", \"dcqcn\": {\"rxe0\": {\"np_cnp_dscp\": 64}}}", .key = "dcqcn.rxe0.np_cnp_dscp", .reason = "0..63" };
FIXTURE_VARIANT_ADD(bad, dcqcn_param_string) { .text = "{" TP ", \"dcqcn\": {\"rxe0\": {\"rp_enable\": \"1\"}}}", .key = "dcqcn.rxe0.rp_enable", .reason = "integer" };
FIXTURE_VARIANT_ADD(bad, dcqcn_param_bool) { .text = "{" TP ", \"dcqcn\": {\"rxe0\": {\"rp_enable\": true}}}", .key = "dcqcn.rxe0.rp_enable", .reason = "integer" };

/* The bad config is rejected, and the error names the file, key and reason. */
TEST_F(bad, rejected)
{
	char want[256];
	int ret;

	ret = rpd_config_parse(variant->text, F, &self->c, self->err, sizeof(self->err));
	ASSERT_EQ(-EINVAL, ret);
	TH_LOG("%s", self->err);
	EXPECT_EQ(0, strncmp(self->err, F ": ", strlen(F ": ")));
	if (variant->key) {
		snprintf(want, sizeof(want), "key '%s'", variant->key);
		EXPECT_NE(NULL, strstr(self->err, want));
	}
	EXPECT_NE(NULL, strstr(self->err, variant->reason));
	EXPECT_EQ(NULL, self->c.topology);
}

TEST_HARNESS_MAIN
