// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd's status file: what the daemon writes after a plan carries
 * the digests of its rocepath_plan_info metric, reads back unchanged, a
 * broken file is refused naming the key, and the printer gives the keys
 * `rocepath -j stats` shows under "daemon" and --check's digest line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#include <json-c/json.h>

#include "metrics.h"
#include "out.h"
#include "reconcile.h"
#include "rpd_status.h"
#include "status.h"
#include "test_files.h"

static const struct rpd_plan_info info = {
	.plan = 0x0123456789abcdefULL, .input = 0xfedcba9876543210ULL,
	.topology = 1, .placement = 0xffffffffffffffffULL, .probes = 42,
};

/* A reconciler with a good plan of n pins, as after rpd_rec_replan(). */
static void planned(struct rpd_reconciler *r, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->have_desired = true;
	r->desired.n = n;
}

/* The status after a plan has the metric's digests, label for label. */
TEST(status_matches_metric)
{
	struct rpd_metrics_data d;
	struct rpd_reconciler r;
	struct rpd_status st;
	char *doc = NULL, key[64], val[RP_DIGEST_LEN];
	static const char *const keys[] = { "plan_digest", "input_digest",
		"topology_digest", "placement_digest", "probes_digest" };
	const uint64_t v[] = { info.plan, info.input, info.topology,
			       info.placement, info.probes };
	size_t len = 0;
	FILE *fp;

	planned(&r, 3);
	rpd_status_fill(&st, &r, &info, true);
	EXPECT_TRUE(st.plan_valid);
	EXPECT_EQ(3, st.pins);
	EXPECT_EQ(getpid(), st.pid);

	memset(&d, 0, sizeof(d));
	d.have_plan = true;
	d.info = info;
	fp = open_memstream(&doc, &len);
	ASSERT_EQ(0, rpd_metrics_render(fp, &d));
	fclose(fp);
	for (int i = 0; i < 5; i++) {
		snprintf(val, sizeof(val), RP_DIGEST_FMT, (unsigned long long)v[i]);
		snprintf(key, sizeof(key), "%s=\"%s\"", keys[i], val);
		EXPECT_NE(NULL, strstr(doc, key)) TH_LOG("%s not in the metric", key);
	}
	EXPECT_EQ(info.plan, st.plan);
	EXPECT_EQ(info.input, st.input);
	EXPECT_EQ(info.topology, st.topology);
	EXPECT_EQ(info.placement, st.placement);
	EXPECT_EQ(info.probes, st.probes);
	free(doc);
}

/* Written and read back: the same; a failed plan keeps the digests. */
TEST(round_trip)
{
	char dir[] = "/tmp/rp-status-XXXXXX", path[64], err[256];
	struct rpd_reconciler r;
	struct rpd_status st, back;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/status.json", dir);
	EXPECT_EQ(-ENOENT, rpd_status_read(path, &back, err, sizeof(err)));

	planned(&r, 7);
	snprintf(r.last_error, sizeof(r.last_error), "placement.json:1:2: unexpected end");
	rpd_status_fill(&st, &r, &info, false);
	ASSERT_EQ(0, rpd_status_write(path, &st));
	ASSERT_EQ(0, rpd_status_read(path, &back, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, memcmp(&st, &back, sizeof(st)));
	EXPECT_FALSE(back.last_plan_ok);
	EXPECT_STREQ("placement.json:1:2: unexpected end", back.last_error);
	/* this process is not rocepathd: a pid alone does not make it run */
	EXPECT_FALSE(rpd_status_running(&back));

	/* before the first good plan: no digests, null in the file */
	memset(&r, 0, sizeof(r));
	rpd_status_fill(&st, &r, &info, false);
	ASSERT_EQ(0, rpd_status_write(path, &st));
	ASSERT_EQ(0, rpd_status_read(path, &back, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_FALSE(back.plan_valid);
	EXPECT_EQ(0, back.plan);
	unlink(path);
	rmdir(dir);
}

/* A broken status file is refused, naming the file and the key. */
TEST(bad_files)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[1]", "not a JSON object" },
		{ "{\"pid\": 1}", "key 'updated'" },
		{ "{\"pid\": -1, \"updated\": 1, \"pins\": 0}", "key 'pid'" },
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": 1}",
		  "key 'plan_valid'" },
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": true,"
		  " \"last_plan_ok\": true}", "key 'plan_digest'" },
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": true,"
		  " \"last_plan_ok\": true, \"plan_digest\": \"fnv1a64:12\"}",
		  "key 'plan_digest': not fnv1a64:" },
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": true,"
		  " \"last_plan_ok\": true, \"plan_digest\": \"fnv1a64:0123456789abcdeg\"}",
		  "key 'plan_digest': not fnv1a64:" },
		/* what sscanf's %llx took: a sign, "0x" */
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": true,"
		  " \"last_plan_ok\": true, \"plan_digest\": \"fnv1a64:+123456789abcdef\"}",
		  "key 'plan_digest': not fnv1a64:" },
		{ "{\"pid\": 1, \"updated\": 1, \"pins\": 0, \"plan_valid\": true,"
		  " \"last_plan_ok\": true, \"plan_digest\": \"fnv1a64:0x23456789abcdef\"}",
		  "key 'plan_digest': not fnv1a64:" },
		{ "{\"pid\": ", "not valid JSON" },
	};
	char dir[] = "/tmp/rp-status-XXXXXX", path[64], err[256];
	struct rpd_status st;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/status.json", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		test_put_file(dir, "status.json", bad[i].text, 0644);
		err[0] = '\0';
		EXPECT_EQ(-EINVAL, rpd_status_read(path, &st, err, sizeof(err)));
		EXPECT_EQ(0, strncmp(err, path, strlen(path))) TH_LOG("%s", err);
		EXPECT_NE(NULL, strstr(err, bad[i].want)) TH_LOG("%zu: %s", i, err);
	}
	unlink(path);
	rmdir(dir);
}

/*
 * A status file that cannot be read says why (a directory: EISDIR), not
 * "not valid JSON"; none at all is -ENOENT, the daemon not running here.
 */
TEST(unreadable_file)
{
	char dir[] = "/tmp/rp-status-XXXXXX", path[64], err[256], want[128];
	struct rpd_status st;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/status.json", dir);
	EXPECT_EQ(-ENOENT, rpd_status_read(path, &st, err, sizeof(err)));
	ASSERT_EQ(0, mkdir(path, 0755));
	EXPECT_EQ(-EISDIR, rpd_status_read(path, &st, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: %s", path, strerror(EISDIR));
	EXPECT_STREQ(want, err);
	rmdir(path);
	rmdir(dir);
}

static char *print(bool json, const struct rpd_status *st, bool running)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct rp_out *o = rp_out_new(fp, json, false);

	rp_out_open_object(o, NULL);
	rp_out_open_object(o, "daemon");
	rpd_status_print(o, "/run/rocepath/status.json", st, running);
	rp_out_close_object(o);
	rp_out_close_object(o);
	rp_out_free(o);
	fclose(fp);
	return buf;
}

/* What `rocepath stats` prints of the daemon, in JSON and in text. */
TEST(printed)
{
	struct rpd_reconciler r;
	struct rpd_status st;
	json_object *root, *dm, *v;
	char *text;

	planned(&r, 2);
	rpd_status_fill(&st, &r, &info, true);
	text = print(true, &st, true);
	root = json_tokener_parse(text);
	ASSERT_NE(NULL, root) TH_LOG("%s", text);
	ASSERT_TRUE(json_object_object_get_ex(root, "daemon", &dm));
	ASSERT_TRUE(json_object_object_get_ex(dm, "plan_digest", &v));
	EXPECT_STREQ("fnv1a64:0123456789abcdef", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(dm, "input_digest", &v));
	EXPECT_STREQ("fnv1a64:fedcba9876543210", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(dm, "placement_digest", &v));
	EXPECT_STREQ("fnv1a64:ffffffffffffffff", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(dm, "running", &v));
	EXPECT_TRUE(json_object_get_boolean(v));
	ASSERT_TRUE(json_object_object_get_ex(dm, "pins", &v));
	EXPECT_EQ(2, json_object_get_int(v));
	ASSERT_TRUE(json_object_object_get_ex(dm, "last_error", &v));
	EXPECT_EQ(NULL, v);
	ASSERT_TRUE(json_object_object_get_ex(dm, "status_file", &v));
	EXPECT_STREQ("/run/rocepath/status.json", json_object_get_string(v));
	json_object_put(root);
	free(text);

	text = print(false, &st, false);
	EXPECT_NE(NULL, strstr(text, "NOT running")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "plan valid, 2 pins, last plan ok\n"));
	EXPECT_NE(NULL, strstr(text,
		"digest plan fnv1a64:0123456789abcdef input fnv1a64:fedcba9876543210"
		" topology fnv1a64:0000000000000001 placement fnv1a64:ffffffffffffffff"
		" probes fnv1a64:000000000000002a\n")) TH_LOG("%s", text);
	free(text);

	/* no file: running false, nothing else */
	text = print(true, NULL, false);
	EXPECT_NE(NULL, strstr(text, "\"running\":false")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "plan_digest"));
	free(text);
}

TEST_HARNESS_MAIN
