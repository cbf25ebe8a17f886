// SPDX-License-Identifier: GPL-2.0
/* Proves the printing layer emits well-formed JSON of the right shape and iproute2-like text. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "flow_out.h"
#include "out.h"

struct cap {
	char *buf;
	size_t len;
	FILE *fp;
};

static struct rp_out *cap_open(struct cap *c, bool json, bool pretty)
{
	c->buf = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->buf, &c->len);
	return rp_out_new(c->fp, json, pretty);
}

static void cap_close(struct cap *c, struct rp_out *o)
{
	rp_out_free(o);
	fclose(c->fp);
}

static void sample(struct rp_out *o)
{
	rp_out_open_array(o, NULL);
	for (int i = 0; i < 2; i++) {
		rp_out_open_object(o, NULL);
		rp_out_string(o, "dev", "dev %s ", "rxe0");
		rp_out_uint(o, "sport", "sport %llu ", 49152 + i);
		rp_out_bool(o, "pinned", "pinned %s ", i);
		rp_out_null(o, "rqpn", NULL);
		rp_out_uint(o, "big", NULL, 18446744073709551615ULL);
		rp_out_open_array(o, "sports");
		rp_out_uint(o, NULL, "%llu ", 1);
		rp_out_uint(o, NULL, "%llu ", 2);
		rp_out_close_array(o);
		rp_out_close_object(o);
		rp_out_nl(o);
	}
	rp_out_close_array(o);
}

TEST(json_array_of_objects)
{
	struct json_object *root, *e, *v;
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	sample(o);
	cap_close(&c, o);
	/* One document, one line. */
	ASSERT_NE(NULL, c.buf);
	EXPECT_EQ('\n', c.buf[c.len - 1]);
	EXPECT_EQ(c.buf + c.len - 1, strchr(c.buf, '\n'));
	root = json_tokener_parse(c.buf);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_is_type(root, json_type_array));
	ASSERT_EQ(2, json_object_array_length(root));
	e = json_object_array_get_idx(root, 1);
	ASSERT_TRUE(json_object_object_get_ex(e, "dev", &v));
	EXPECT_STREQ("rxe0", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(e, "sport", &v));
	EXPECT_EQ(49153, json_object_get_int(v));
	ASSERT_TRUE(json_object_object_get_ex(e, "pinned", &v));
	EXPECT_TRUE(json_object_is_type(v, json_type_boolean));
	ASSERT_TRUE(json_object_object_get_ex(e, "rqpn", &v));
	EXPECT_EQ(NULL, v);	/* present and null */
	ASSERT_TRUE(json_object_object_get_ex(e, "big", &v));
	EXPECT_EQ(18446744073709551615ULL, json_object_get_uint64(v));
	ASSERT_TRUE(json_object_object_get_ex(e, "sports", &v));
	EXPECT_EQ(2, json_object_array_length(v));
	json_object_put(root);
	free(c.buf);
}

TEST(json_pretty_parses_same)
{
	struct json_object *a, *b;
	struct cap c1, c2;
	struct rp_out *o;

	o = cap_open(&c1, true, false);
	sample(o);
	cap_close(&c1, o);
	o = cap_open(&c2, true, true);
	sample(o);
	cap_close(&c2, o);
	EXPECT_NE(NULL, strchr(c2.buf, '\n'));
	EXPECT_GT(c2.len, c1.len);
	a = json_tokener_parse(c1.buf);
	b = json_tokener_parse(c2.buf);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_TRUE(json_object_equal(a, b));
	json_object_put(a);
	json_object_put(b);
	free(c1.buf);
	free(c2.buf);
}

TEST(empty_array_is_brackets)
{
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	rp_out_open_array(o, NULL);
	rp_out_close_array(o);
	cap_close(&c, o);
	EXPECT_STREQ("[]\n", c.buf);
	free(c.buf);
}

TEST(text_mode)
{
	struct cap c;
	struct rp_out *o = cap_open(&c, false, false);

	sample(o);
	rp_out_text(o, "x=%d", 5);
	cap_close(&c, o);
	EXPECT_STREQ("dev rxe0 sport 49152 pinned false 1 2 \n"
		     "dev rxe0 sport 49153 pinned true 1 2 \nx=5", c.buf);
	free(c.buf);
}

TEST(json_lines_for_monitor)
{
	struct json_object *j;
	char *line, *save = NULL;
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);
	int n = 0;

	for (int i = 0; i < 3; i++) {
		rp_out_open_object(o, NULL);
		rp_out_string(o, "event", "%s", "qp-add");
		rp_out_uint(o, "lqpn", NULL, i);
		rp_out_close_object(o);
		rp_out_flush(o);
	}
	cap_close(&c, o);
	for (line = strtok_r(c.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		j = json_tokener_parse(line);
		ASSERT_NE(NULL, j);
		EXPECT_TRUE(json_object_is_type(j, json_type_object));
		json_object_put(j);
	}
	EXPECT_EQ(3, n);
	free(c.buf);
}

TEST(discard_drops_partial_document)
{
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	rp_out_open_array(o, NULL);
	rp_out_open_object(o, NULL);
	rp_out_string(o, "a", NULL, "b");
	rp_out_discard(o);
	cap_close(&c, o);
	EXPECT_EQ(0, c.len);
	free(c.buf);
}

TEST(unclosed_document_not_printed)
{
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	rp_out_open_object(o, NULL);
	rp_out_uint(o, "a", NULL, 1);
	cap_close(&c, o);
	EXPECT_EQ(0, c.len);
	free(c.buf);
}

TEST(deep_nesting_is_safe)
{
	struct json_object *j;
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	for (int i = 0; i < 40; i++)
		rp_out_open_array(o, NULL);
	rp_out_uint(o, NULL, NULL, 1);
	for (int i = 0; i < 40; i++)
		rp_out_close_array(o);
	cap_close(&c, o);
	j = json_tokener_parse(c.buf);
	EXPECT_NE(NULL, j);
	json_object_put(j);
	free(c.buf);
}

TEST(json_object_passthrough_and_escaping)
{
	struct json_object *j, *v;
	struct cap c;
	struct rp_out *o = cap_open(&c, true, false);

	rp_out_open_object(o, NULL);
	rp_out_json(o, "plan", NULL, json_object_new_int(7));
	rp_out_string(o, "path", NULL, "a/b \"q\"\n");
	rp_out_double(o, "alpha", NULL, 0.5);
	rp_out_int(o, "neg", NULL, -3);
	rp_out_close_object(o);
	cap_close(&c, o);
	EXPECT_NE(NULL, strstr(c.buf, "a/b"));	/* no slash escaping */
	j = json_tokener_parse(c.buf);
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_object_get_ex(j, "path", &v));
	EXPECT_STREQ("a/b \"q\"\n", json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(j, "neg", &v));
	EXPECT_EQ(-3, json_object_get_int(v));
	json_object_put(j);
	free(c.buf);
}

TEST(error_format)
{
	int saved = dup(2);

	fflush(stderr);
	/* Redirect fd 2 into a temp file and read it back. */
	{
		FILE *tmp = tmpfile();
		char out[256] = { 0 };

		ASSERT_NE(NULL, tmp);
		dup2(fileno(tmp), 2);
		EXPECT_EQ(-EINVAL, rp_error("pin add: %s", "bad"));
		EXPECT_EQ(-ENOENT, rp_error_ret(-ENOENT, "done."));
		fflush(stderr);
		dup2(saved, 2);
		rewind(tmp);
		EXPECT_LT(0, fread(out, 1, sizeof(out) - 1, tmp));
		fclose(tmp);
		EXPECT_STREQ("Error: pin add: bad.\nError: done.\n", out);
	}
	close(saved);
}

/*
 * An rx-only flow record: the kernel sends no dqpn, so flow show has
 * none (not "dqpn 0"); a sent dqpn of 0 is printed, being a real QPN.
 */
static void flow_record(struct rp_flow *f, bool has_dqpn)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->ibdev, "rxe0");
	rp_addr_parse("192.0.2.2", &f->local);
	rp_addr_parse("192.0.2.1", &f->remote);
	f->sport = 49200;
	f->lqpn = 17;
	RP_SET(f, ROCEPATH_A_FLOW_LQPN);
	if (has_dqpn)
		RP_SET(f, ROCEPATH_A_FLOW_DQPN);	/* dqpn 0 */
}

static char *flow_printed(const struct rp_flow *f, bool json)
{
	struct cap c;
	struct rp_out *o = cap_open(&c, json, false);

	if (json)
		rp_out_open_array(o, NULL);
	rp_flow_print(o, f);
	if (json)
		rp_out_close_array(o);
	cap_close(&c, o);
	return c.buf;
}

TEST(flow_rx_only_has_no_dqpn)
{
	struct json_object *root, *v;
	struct rp_flow f;
	char *s;

	for (int has = 0; has <= 1; has++) {
		flow_record(&f, has);
		s = flow_printed(&f, false);
		ASSERT_NE(NULL, s);
		EXPECT_EQ(0, strncmp(s, "dev rxe0 local 192.0.2.2 remote 192.0.2.1 sport 49200", 53));
		EXPECT_EQ(has, strstr(s, " dqpn 0 lqpn 17 ") != NULL) TH_LOG("%s", s);
		EXPECT_EQ(has, strstr(s, "dqpn") != NULL) TH_LOG("%s", s);
		free(s);

		s = flow_printed(&f, true);
		root = json_tokener_parse(s);
		ASSERT_NE(NULL, root);
		ASSERT_EQ(1, json_object_array_length(root));
		EXPECT_EQ(has, json_object_object_get_ex(json_object_array_get_idx(root, 0),
							 "dqpn", &v));
		EXPECT_TRUE(json_object_object_get_ex(json_object_array_get_idx(root, 0),
						      "lqpn", &v));
		EXPECT_EQ(17, json_object_get_int(v));
		json_object_put(root);
		free(s);
	}
}

TEST_HARNESS_MAIN
