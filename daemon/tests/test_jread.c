// SPDX-License-Identifier: GPL-2.0
/*
 * The compact JSON reader of the cluster files: it reads what json-c reads
 * to the same values, declines (to json-c) whatever is not strict JSON, and
 * bad values are still named with their JSON path, whichever reader read
 * the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "plan_json.h"

/* text in a buffer of exactly its length: valgrind sees any read past it */
static int jparse(const char *text, size_t len, struct rp_jdoc *d)
{
	char *b = malloc(len ? len : 1);
	int ret;

	if (!b)
		return -ENOMEM;
	memcpy(b, text, len);
	ret = rp_jdoc_parse(b, len, d);
	free(b);
	return ret;
}

/* Whether two documents hold the same values in the same order. */
static bool same_doc(const struct rp_jdoc *a, const struct rp_jdoc *b)
{
	if (a->nv != b->nv)
		return false;
	for (size_t i = 0; i < a->nv; i++) {
		const struct rp_jv *x = &a->v[i], *y = &b->v[i];

		if (x->type != y->type || x->skip != y->skip ||
		    !x->key != !y->key || (x->key && strcmp(x->key, y->key)))
			return false;
		switch (x->type) {
		case RP_JBOOL:
			if (x->b != y->b)
				return false;
			break;
		case RP_JINT:
			if (x->i != y->i || x->u64 != y->u64)
				return false;
			break;
		case RP_JDOUBLE:
			if (x->d != y->d)
				return false;
			break;
		case RP_JSTRING:
			if (strcmp(x->s, y->s))
				return false;
			break;
		case RP_JOBJECT:
		case RP_JARRAY:
			if (x->n != y->n)
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

/* The compact reader and json-c's tree agree on text. */
static bool agrees(const char *text)
{
	struct rp_err e = { 0 };
	struct pctx c = { .file = "t", .err = &e };
	struct rp_jdoc a, b;
	bool ok;

	ok = !jparse(text, strlen(text), &a) &&
	     !rp_json_parse_c(&c, text, strlen(text), &b) && same_doc(&a, &b);
	rp_jdoc_free(&a);
	rp_jdoc_free(&b);
	return ok;
}

/* Nesting and odd white space: subtrees, counts, keys, last key wins. */
TEST(structure)
{
	const char *s = " \r\n{\t\"a\" :[1 ,\n[ ],{ } ,[[true]],-0.5e1] ,\r"
			"\"b\":{\"c\":null,\"d\":false},\"a\":\"x\" }\n\t ";
	const struct rp_jv *v, *e;
	struct rp_jdoc d;

	ASSERT_EQ(0, jparse(s, strlen(s), &d));
	ASSERT_EQ(RP_JOBJECT, d.v[0].type);
	ASSERT_EQ(3, d.v[0].n);
	ASSERT_EQ(d.nv, d.v[0].skip);
	v = rp_jv_first(d.v);
	ASSERT_STREQ("a", v->key);
	ASSERT_EQ(RP_JARRAY, v->type);
	ASSERT_EQ(5, rp_jv_len(v));
	e = rp_jv_first(v);
	ASSERT_EQ(1, e->i);
	e = rp_jv_next(e);
	ASSERT_EQ(0, rp_jv_len(e));
	e = rp_jv_next(rp_jv_next(e));
	ASSERT_EQ(3, e->skip);
	ASSERT_EQ(true, rp_jv_first(rp_jv_first(e))->b);
	e = rp_jv_next(e);
	ASSERT_EQ(RP_JDOUBLE, e->type);
	ASSERT_TRUE(e->d == -5.0);
	v = rp_jv_get(d.v, "b");
	ASSERT_EQ(RP_JNULL, rp_jv_get(v, "c")->type);
	ASSERT_EQ(false, rp_jv_get(v, "d")->b);
	ASSERT_EQ(NULL, rp_jv_get(v, "e"));
	ASSERT_EQ(NULL, rp_jv_get(rp_jv_get(v, "d"), "c"));
	/* a repeated key: the last, as json-c keeps it */
	ASSERT_STREQ("x", rp_jv_get(d.v, "a")->s);
	rp_jdoc_free(&d);
	ASSERT_TRUE(agrees("[1,{\"x\":[2,{\"y\":[]}],\"z\":3},[[[4]]],5]"));
	ASSERT_TRUE(agrees("{\"n\":[0,-1,123456789012345678,-9,1.5,2e3,1E-2]}"));
}

/* Escapes, \u with surrogate pairs, raw UTF-8; the same as json-c's. */
TEST(escapes)
{
	const char *s = "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u20AC"
			"\\ud83d\\ude00\", \"\xc3\xa9 plain\", \"\"]";
	struct rp_jdoc d;
	const struct rp_jv *v;

	ASSERT_EQ(0, jparse(s, strlen(s), &d));
	v = rp_jv_first(d.v);
	ASSERT_STREQ("a\"b\\c/d\b\f\n\r\t", v->s);
	v = rp_jv_next(v);
	ASSERT_STREQ("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", v->s);
	v = rp_jv_next(v);
	ASSERT_STREQ("\xc3\xa9 plain", v->s);
	ASSERT_STREQ("", rp_jv_next(v)->s);
	rp_jdoc_free(&d);
	ASSERT_TRUE(agrees(s));
	ASSERT_TRUE(agrees("{\"k\\u0041\\n\":\"v\"}"));
}

/* What is not strict JSON the reader leaves to json-c. */
TEST(declines)
{
	static const char *const bad[] = {
		"", "  ", "{", "[1,]", "{\"a\":1,}", "/* c */ {}", "{} x",
		"{'a':1}", "[01]", "[-]", "[1.]", "[1e]", "[.5]", "[+1]",
		"[1234567890123456789]", "[NaN]", "[tru]", "[True]", "[nul]",
		"[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
		"[\"\\u0000\"]", "[\"\\x\"]", "[\"\\u12\"]", "[\"a\nb\"]",
		"[\"abc", "[\"abc\\", "{\"a\" 1}", "{1:2}", "[1 2]", "\xef\xbb\xbf{}",
		"[\f1]",
	};
	char deep[80];
	struct rp_jdoc d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, jparse(bad[i], strlen(bad[i]), &d))
			TH_LOG("bad[%zu] taken", i);
		rp_jdoc_free(&d);
	}
	/* nesting json-c's limit could stop: json-c judges */
	memset(deep, '[', 31);
	memset(deep + 31, ']', 31);
	ASSERT_EQ(-EINVAL, jparse(deep, 62, &d));
	rp_jdoc_free(&d);
	ASSERT_EQ(0, jparse(deep + 2, 58, &d));
	rp_jdoc_free(&d);
}

/* Every proper prefix of a document is declined, none is read past. */
TEST(truncated)
{
	const char *s = "{\"a\":[1,-2.5e-3,true,false,null],\"b\\u00e9\":"
			"{\"c\":\"d\\\"\\ud83d\\ude00\"}}";
	struct rp_jdoc d;

	for (size_t n = 0; n < strlen(s); n++) {
		ASSERT_EQ(-EINVAL, jparse(s, n, &d));
		rp_jdoc_free(&d);
	}
	ASSERT_EQ(0, jparse(s, strlen(s), &d));
	rp_jdoc_free(&d);
}

#define TOPO "{\"switches\":[{\"name\":\"leaf0\",\"tier\":\"leaf\"}," \
	"{\"name\":\"spine0\",\"tier\":\"spine\"}],\"links\":[{\"a\":\"leaf0\"," \
	"\"a_port\":%s,\"b\":\"spine0\",\"b_port\":1}],\"hosts\":[{\"name\":" \
	"\"h1\",\"nics\":[{\"rail\":0,\"ip\":\"192.0.2.1\",\"leaf\":\"%s\"}]}]%s}"

static int topo(const char *port, const char *leaf, const char *tail,
		struct rp_err *e, struct rp_topo **t)
{
	char s[1024];

	snprintf(s, sizeof(s), TOPO, port, leaf, tail);
	memset(e, 0, sizeof(*e));
	*t = NULL;
	return rp_topo_parse("topology.json", s, strlen(s), t, e);
}

/* Bad values are named with their JSON path, whichever reader read them. */
TEST(paths)
{
	static const struct {
		const char *port, *leaf, *path, *msg;
	} bad[] = {
		{ "1", "le\\nf0", ".hosts[0].nics[0].leaf",
		  "unknown switch \"le\nf0\"" },
		{ "\"1\"", "leaf0", ".links[0].a_port", "expected an integer" },
		{ "1.0", "leaf0", ".links[0].a_port", "expected an integer" },
		{ "70000", "leaf0", ".links[0].a_port",
		  "port 70000 out of range (0..65535)" },
		/* integers beyond 64 bits are json-c's: clamped as it clamps */
		{ "18446744073709551615", "leaf0", ".links[0].a_port",
		  "port 18446744073709551615 out of range (0..65535)" },
		{ "-99999999999999999999", "leaf0", ".links[0].a_port",
		  "port -9223372036854775808 out of range (0..65535)" },
		/* json-c's leniencies: its tree, and the same paths */
		{ "\"1\" // uplink\n", "leaf0", ".links[0].a_port",
		  "expected an integer" },
		/* null is absent */
		{ "null", "leaf0", ".links[0]", "missing \"a_port\"" },
	};
	struct rp_topo *t;
	struct rp_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, topo(bad[i].port, bad[i].leaf, "", &e, &t))
			TH_LOG("bad[%zu] taken", i);
		ASSERT_STREQ(bad[i].path, e.path);
		ASSERT_STREQ(bad[i].msg, e.msg);
	}
	/* escapes in a name are resolved before it is looked up */
	ASSERT_EQ(0, topo("1", "le\\u0061f0", "", &e, &t));
	ASSERT_STREQ("leaf0", t->sw[t->leaf_sw[t->nics[0].leaf]].name);
	rp_topo_free(t);
	ASSERT_EQ(0, topo("1 /* uplink */", "leaf0", "", &e, &t));
	ASSERT_EQ(1, t->links[0].leaf_port);
	rp_topo_free(t);
}

/* Paths are snprintf()'s bytes, cut as it cuts them, at every size. */
TEST(pathf)
{
	char a[40], b[40];

	for (size_t len = 0; len <= sizeof(a); len++) {
		memset(a, 'x', sizeof(a));
		memset(b, 'x', sizeof(b));
		rp_json_pathf(a, len, ".hosts[%zu].nics[%zu]", (size_t)4095,
			      (size_t)7);
		snprintf(b, len, ".hosts[%zu].nics[%zu]", (size_t)4095,
			 (size_t)7);
		ASSERT_EQ(0, memcmp(a, b, sizeof(a)));
		rp_json_pathf(a, len, "%s.%s[%d]%d", ".switches[3]", "ports",
			      -2147483647 - 1, 0);
		snprintf(b, len, "%s.%s[%d]%d", ".switches[3]", "ports",
			 -2147483647 - 1, 0);
		ASSERT_EQ(0, memcmp(a, b, sizeof(a)));
		/* other conversions are vsnprintf()'s */
		rp_json_pathf(a, len, ".links[%d].%s_port%%%x", 12, "a", 255u);
		snprintf(b, len, ".links[%d].%s_port%%%x", 12, "a", 255u);
		ASSERT_EQ(0, memcmp(a, b, sizeof(a)));
	}
}

/* A truncated file: json-c's line and column, at every length. */
TEST(truncated_file)
{
	char s[1024], b[1200];
	struct rp_topo *t = NULL;
	struct rp_err e;
	size_t len;

	snprintf(s, sizeof(s), TOPO, "1", "leaf0", "");
	len = strlen(s);
	for (size_t n = 0; n < len; n++) {
		memset(&e, 0, sizeof(e));
		ASSERT_EQ(-EINVAL, rp_topo_parse("topology.json", s, n, &t, &e));
		ASSERT_NE(NULL, strstr(e.msg, "malformed JSON"));
		ASSERT_EQ(1, e.line);
	}
	ASSERT_EQ(-EINVAL, rp_topo_parse("topology.json", s, 40, &t, &e));
	ASSERT_STREQ("topology.json:1:41: malformed JSON: unexpected end of data",
		     rp_err_str(&e, b, sizeof(b)));
}

TEST_HARNESS_MAIN
