// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the pins file is validated strictly (errors name the file, the
 * index and the reason) and that `pin show -j` output round-trips.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "out.h"
#include "pins.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/rp-test-pins-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0) {
		free(path);
		return NULL;
	}
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static int load_text(const char *text, struct rp_pins *pins, char *err,
		     size_t errlen, char **pathp)
{
	char *path = write_tmp(text);
	int ret;

	if (!path)
		return -EIO;
	ret = rp_pins_load(path, pins, err, errlen);
	unlink(path);
	if (pathp)
		*pathp = path;
	else
		free(path);
	return ret;
}

TEST(load_valid)
{
	struct rp_pins pins = { 0 };
	char err[256] = "";
	char buf[RP_ADDR_STRLEN];

	ASSERT_EQ(0, load_text(
		"[{\"dev\": \"rxe0\", \"remote\": \"192.0.2.2\", \"sports\": [49152, 65535],"
		"  \"rqpn\": 17, \"lqpn\": null},\n"
		" {\"dev\": null, \"remote\": \"2001:db8::2\", \"sports\": [50000]},\n"
		" {\"remote\": \"192.0.2.3\", \"sports\": [50001], \"rqpn\": null,"
		"  \"lqpn\": 16777215, \"sport_qps\": [3]}]\n",
		&pins, err, sizeof(err), NULL)) TH_LOG("%s", err);
	ASSERT_EQ(3, pins.n);
	EXPECT_STREQ("rxe0", pins.v[0].ibdev);
	EXPECT_EQ(2, pins.v[0].nsports);
	EXPECT_EQ(65535, pins.v[0].sports[1]);
	EXPECT_TRUE(RP_HAS(&pins.v[0], ROCEPATH_A_PIN_RQPN));
	EXPECT_EQ(17, pins.v[0].rqpn);
	EXPECT_FALSE(RP_HAS(&pins.v[0], ROCEPATH_A_PIN_LQPN));
	EXPECT_STREQ("", pins.v[1].ibdev);
	EXPECT_STREQ("2001:db8::2", rp_addr_fmt(&pins.v[1].remote, buf, sizeof(buf)));
	EXPECT_TRUE(RP_HAS(&pins.v[2], ROCEPATH_A_PIN_LQPN));
	EXPECT_EQ(16777215, pins.v[2].lqpn);
	EXPECT_EQ(0, pins.v[2].nsport_qps);	/* ignored on input */
	rp_pins_free(&pins);
}

TEST(load_empty_array)
{
	struct rp_pins pins = { 0 };
	char err[256];

	EXPECT_EQ(0, load_text("[]", &pins, err, sizeof(err), NULL));
	EXPECT_EQ(0, pins.n);
}

static const struct {
	const char *text;
	const char *reason;	/* expected substring after the path */
} bad[] = {
	{ "", "truncated JSON" },
	{ "{}", "expected a JSON array" },
	{ "[1]", "pin 0: not a JSON object" },
	{ "[{\"remote\": \"192.0.2.2\"}]", "pin 0: \"sports\" is missing" },
	{ "[{\"sports\": [49152]}]", "pin 0: \"remote\" is missing" },
	{ "[{\"remote\": \"192.0.2\", \"sports\": [49152]}]",
	  "pin 0: \"remote\" is not an IPv4" },
	{ "[{\"remote\": 5, \"sports\": [49152]}]", "pin 0: \"remote\" is not" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": []}]",
	  "pin 0: \"sports\" must be a non-empty array" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": 49152}]",
	  "pin 0: \"sports\" must be" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152]},"
	  " {\"remote\": \"192.0.2.2\", \"sports\": [49151]}]",
	  "pin 1: sports[0] is not a port in 49152..65535" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152, 65536]}]",
	  "pin 0: sports[1] is not a port" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [\"49152\"]}]",
	  "pin 0: sports[0] is not a port" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152.5]}]",
	  "pin 0: sports[0] is not a port" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152, 49152]}]",
	  "pin 0: port 49152 listed twice" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"rqpn\": -1}]",
	  "pin 0: \"rqpn\" must be a QP number" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"lqpn\": 16777216}]",
	  "pin 0: \"lqpn\" must be a QP number" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"lqpn\": 18446744073709551615}]",
	  "pin 0: \"lqpn\" must be a QP number" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"dev\": \"\"}]",
	  "pin 0: \"dev\" must be a device name" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"dev\": 3}]",
	  "pin 0: \"dev\" must be a device name" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152], \"port\": 1}]",
	  "pin 0: unknown key \"port\"" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152]},"
	  " {\"remote\": \"192.0.2.3\", \"sports\": [49152]},"
	  " {\"remote\": \"::ffff:192.0.2.2\", \"sports\": [49153], \"dev\": null}]",
	  "pin 2: same dev, remote, rqpn and lqpn as pin 0" },
	{ "[] []", "trailing data" },
	{ "[{\"remote\": \"192.0.2.2\", \"sports\": [49152]}", "truncated JSON" },
	{ "[{\"remote\": \"192.0.2.2\" \"sports\": [49152]}]", "invalid JSON" },
};

TEST(load_rejects_with_file_index_reason)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rp_pins pins = { 0 };
		char err[512] = "", *path = NULL;
		int ret;

		ret = load_text(bad[i].text, &pins, err, sizeof(err), &path);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("case %zu accepted: %s", i,
					       bad[i].text);
		EXPECT_EQ(0, pins.n);
		EXPECT_EQ(0, strncmp(err, path, strlen(path)))
			TH_LOG("case %zu: error does not name the file: %s", i, err);
		EXPECT_NE(NULL, strstr(err, bad[i].reason))
			TH_LOG("case %zu: got \"%s\", want \"%s\"", i, err,
			       bad[i].reason);
		free(path);
	}
}

TEST(load_missing_file)
{
	struct rp_pins pins = { 0 };
	char err[256];

	EXPECT_EQ(-ENOENT, rp_pins_load("/nonexistent/pins.json", &pins, err,
					sizeof(err)));
	EXPECT_STREQ("/nonexistent/pins.json: No such file or directory", err);
}

static void make_set(struct rp_pins *pins, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rp_pin p = { 0 };
		uint16_t sp[3] = { 49152 + i % 1000, 60000, 65535 };
		char addr[64];

		if (i % 2)
			snprintf(addr, sizeof(addr), "2001:db8::%zx:%zx",
				 i >> 16, i & 0xffff);
		else
			snprintf(addr, sizeof(addr), "10.%zu.%zu.%zu",
				 (i >> 16) & 255, (i >> 8) & 255, i & 255);
		rp_addr_parse(addr, &p.remote);
		RP_SET(&p, ROCEPATH_A_PIN_REMOTE);
		if (i % 3 == 0) {
			strcpy(p.ibdev, "rxe0");
			RP_SET(&p, ROCEPATH_A_PIN_IBDEV);
		}
		if (i % 5 == 0) {
			p.rqpn = i & 0xffffff;
			RP_SET(&p, ROCEPATH_A_PIN_RQPN);
		}
		if (i % 7 == 0) {
			p.lqpn = 0xffffff - i;
			RP_SET(&p, ROCEPATH_A_PIN_LQPN);
		}
		rp_pin_set_sports(&p, sp, 1 + i % 3);
		rp_pins_push(pins, &p);
	}
}

static void expect_same(struct __test_metadata *_metadata,
			const struct rp_pins *a, const struct rp_pins *b)
{
	ASSERT_EQ(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		EXPECT_TRUE(rp_pin_same_key(&a->v[i], &b->v[i]));
		ASSERT_EQ(a->v[i].nsports, b->v[i].nsports);
		EXPECT_EQ(0, memcmp(a->v[i].sports, b->v[i].sports,
				    a->v[i].nsports * sizeof(uint16_t)));
	}
}

/* `rocepath -j pin show > f; rocepath pin replace file f` keeps the set. */
TEST(show_output_round_trips)
{
	struct rp_pins set = { 0 }, back = { 0 };
	char *buf = NULL, *path, err[256];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct rp_out *o = rp_out_new(fp, true, true);

	make_set(&set, 2000);
	/* As pin show prints a dump, which also carries sport_qps. */
	set.v[0].sport_qps = calloc(1, sizeof(uint32_t));
	set.v[0].nsport_qps = 1;
	rp_out_open_array(o, NULL);
	for (size_t i = 0; i < set.n; i++)
		rp_pin_print(o, &set.v[i]);
	rp_out_close_array(o);
	rp_out_free(o);
	fclose(fp);
	ASSERT_NE(NULL, strstr(buf, "\"dev\": null"));
	ASSERT_NE(NULL, strstr(buf, "\"lqpn\": null"));
	path = write_tmp(buf);
	ASSERT_NE(NULL, path);
	EXPECT_EQ(0, rp_pins_load(path, &back, err, sizeof(err))) TH_LOG("%s", err);
	expect_same(_metadata, &set, &back);
	unlink(path);
	free(path);
	free(buf);
	rp_pins_free(&set);
	rp_pins_free(&back);
}

TEST(save_load_large)
{
	struct rp_pins set = { 0 }, back = { 0 };
	char path[] = "/tmp/rp-test-save-XXXXXX", err[256];
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	make_set(&set, 20000);
	ASSERT_EQ(0, rp_pins_save(path, &set));
	EXPECT_EQ(0, rp_pins_load(path, &back, err, sizeof(err))) TH_LOG("%s", err);
	expect_same(_metadata, &set, &back);
	unlink(path);
	rp_pins_free(&set);
	rp_pins_free(&back);
}

TEST(text_line)
{
	struct rp_pins set = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct rp_out *o = rp_out_new(fp, false, false);

	make_set(&set, 1);
	rp_pin_print(o, &set.v[0]);
	rp_out_free(o);
	fclose(fp);
	EXPECT_STREQ("dev rxe0 remote 10.0.0.0 sport 49152 rqpn 0 lqpn 16777215 \n",
		     buf);
	free(buf);
	rp_pins_free(&set);
}

/* qp show: the matched rule's key, as text and as a JSON object or null. */
TEST(qp_rule)
{
	struct rp_qp q = { 0 };
	struct json_object *doc, *rule, *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct rp_out *o = rp_out_new(fp, false, false);

	RP_SET(&q, ROCEPATH_A_QP_RULE);
	ASSERT_EQ(0, rp_addr_parse("192.0.2.2", &q.rule.remote));
	RP_SET(&q.rule, ROCEPATH_A_PIN_REMOTE);
	q.rule.rqpn = 17;
	RP_SET(&q.rule, ROCEPATH_A_PIN_RQPN);
	rp_qp_rule_print(o, &q);
	strcpy(q.rule.ibdev, "rxe0");
	RP_SET(&q.rule, ROCEPATH_A_PIN_IBDEV);
	q.rule.lqpn = 18;
	RP_SET(&q.rule, ROCEPATH_A_PIN_LQPN);
	rp_qp_rule_print(o, &q);
	q.attrs = 0;
	rp_qp_rule_print(o, &q);
	rp_out_free(o);
	fclose(fp);
	EXPECT_STREQ(" rule remote 192.0.2.2 rqpn 17"
		     " rule dev rxe0 remote 192.0.2.2 rqpn 17 lqpn 18", buf);
	free(buf);

	buf = NULL;
	fp = open_memstream(&buf, &len);
	o = rp_out_new(fp, true, false);
	rp_out_open_array(o, NULL);
	rp_out_open_object(o, NULL);
	q.attrs = 0;
	rp_qp_rule_print(o, &q);
	rp_out_close_object(o);
	rp_out_open_object(o, NULL);
	RP_SET(&q, ROCEPATH_A_QP_RULE);
	q.rule.attrs = 0;
	RP_SET(&q.rule, ROCEPATH_A_PIN_REMOTE);
	RP_SET(&q.rule, ROCEPATH_A_PIN_LQPN);
	rp_qp_rule_print(o, &q);
	rp_out_close_object(o);
	rp_out_close_array(o);
	rp_out_free(o);
	fclose(fp);
	doc = json_tokener_parse(buf);
	ASSERT_NE(NULL, doc) TH_LOG("%s", buf);
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(doc, 0),
					      "rule", &rule));
	EXPECT_EQ(NULL, rule);
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(doc, 1),
					      "rule", &rule));
	ASSERT_TRUE(json_object_is_type(rule, json_type_object));
	EXPECT_EQ(4, json_object_object_length(rule));
	ASSERT_TRUE(json_object_object_get_ex(rule, "dev", &v));
	EXPECT_EQ(NULL, v);
	ASSERT_TRUE(json_object_object_get_ex(rule, "remote", &v));
	EXPECT_STREQ("192.0.2.2", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(rule, "rqpn", &v));
	EXPECT_EQ(NULL, v);
	ASSERT_TRUE(json_object_object_get_ex(rule, "lqpn", &v));
	EXPECT_EQ(18, json_object_get_int(v));
	json_object_put(doc);
	free(buf);
}

TEST_HARNESS_MAIN
