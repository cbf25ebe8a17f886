// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the spec-driven decoders: each field map agrees with the
 * generated attribute sets, every attribute of every object is decoded
 * into the right member (each attribute carries a value of its own, and
 * the expected member is named here by hand, not taken from the maps),
 * and short, unterminated, over-long or unknown attributes are rejected
 * or skipped as documented.
 */
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "objs.h"
#include "spec-decode.h"

static char buf[16384] __attribute__((aligned(8)));

/* The value each attribute carries: distinct per type, using its width. */
static uint8_t v8(int t) { return 0xa0 + t; }
static uint16_t v16(int t) { return 0xa000 + t; }
static uint32_t v32(int t) { return 0xa0000000u + t * 0x10001u; }
static uint64_t v64(int t) { return 0xa000000000000000ull + t * 0x100000001ull; }

/* Strings are "s<type>", addresses 2001:db8::<type>; repeats add 1. */
static void put_addr(struct nlmsghdr *nlh, int t, int rep)
{
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	a[15] = t + rep;
	mnl_attr_put(nlh, t, sizeof(a), a);
}

static const char *addr_str(int t, int rep, char *b)
{
	sprintf(b, "2001:db8::%x", t + rep);
	return b;
}

static void put_set(struct nlmsghdr *nlh, const struct rp_spec_set *set);

static void put_one(struct nlmsghdr *nlh, const struct rp_spec_attr *sa,
		    int t, int rep)
{
	char s[16];
	struct nlattr *n;

	switch (sa->type) {
	case RP_SPEC_U8:
		mnl_attr_put_u8(nlh, t, v8(t) + rep);
		break;
	case RP_SPEC_U16:
		mnl_attr_put_u16(nlh, t, v16(t) + rep);
		break;
	case RP_SPEC_U32:
		mnl_attr_put_u32(nlh, t, v32(t) + rep);
		break;
	case RP_SPEC_U64:
		mnl_attr_put_u64(nlh, t, v64(t) + rep);
		break;
	case RP_SPEC_STRING:
		sprintf(s, "s%d", t + rep);
		mnl_attr_put_strz(nlh, t, s);
		break;
	case RP_SPEC_BINARY:
		put_addr(nlh, t, rep);
		break;
	case RP_SPEC_NEST:
		n = mnl_attr_nest_start(nlh, t);
		put_set(nlh, sa->nest);
		mnl_attr_nest_end(nlh, n);
		break;
	default:
		break;
	}
}

/* Every attribute of set, multi-attr ones twice. */
static void put_set(struct nlmsghdr *nlh, const struct rp_spec_set *set)
{
	for (int t = 0; t <= set->max; t++)
		for (int rep = 0; rep < (set->attrs[t].multi ? 2 : 1); rep++)
			put_one(nlh, &set->attrs[t], t, rep);
}

static struct nlattr *full_nest(const struct rp_spec_set *set)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	put_set(nlh, set);
	mnl_attr_put_u32(nlh, set->max + 1, 7);		/* unknown: skipped */
	mnl_attr_put_u32(nlh, 63, 7);
	mnl_attr_nest_end(nlh, n);
	return n;
}

/* Bits of every attribute the spec gives set, less `skip`. */
static uint64_t all_bits(const struct rp_spec_set *set, uint64_t skip)
{
	uint64_t m = 0;

	for (int t = 0; t <= set->max; t++)
		if (set->attrs[t].type != RP_SPEC_NONE)
			m |= 1ULL << t;
	return m & ~skip;
}

#define BIT(t) (1ULL << (t))
#define ADDR_EQ(t, rep, a) do {						\
	char e_[RP_ADDR_STRLEN], g_[RP_ADDR_STRLEN];			\
	EXPECT_STREQ(addr_str(t, rep, e_), rp_addr_fmt(a, g_, sizeof(g_))); \
} while (0)
#define STR_EQ(t, rep, s) do {						\
	char e_[16];							\
	sprintf(e_, "s%d", (t) + (rep));				\
	EXPECT_STREQ(e_, s);						\
} while (0)

TEST(maps_agree_with_spec)
{
	static const uint8_t width[] = {
		[RP_SPEC_U8] = 1, [RP_SPEC_U16] = 2, [RP_SPEC_U32] = 4,
		[RP_SPEC_U64] = 8,
	};
	static const uint8_t dst_width[] = {
		[RP_DST_BOOL] = 1, [RP_DST_U16] = 2, [RP_DST_U32] = 4,
		[RP_DST_U64] = 8,
	};
	int n = 0;

	for (const struct rp_decoder *const *d = rp_obj_decoders; *d; d++) {
		const struct rp_decoder *dec = *d;

		n++;
		ASSERT_EQ(dec->set->max + 1, dec->nfields) TH_LOG("%s", dec->what);
		EXPECT_EQ(0, dec->required & ~all_bits(dec->set, 0));
		for (int t = 0; t <= dec->set->max; t++) {
			const struct rp_spec_attr *sa = &dec->set->attrs[t];
			struct rp_field tmp;
			const struct rp_field *f = rp_decoder_field(dec, t, &tmp);

			if (!f) {
				/* Only a QP's rule leaves spec attributes out. */
				if (sa->type != RP_SPEC_NONE)
					EXPECT_EQ(&rp_qp_rule_decoder, dec)
						TH_LOG("%s: %s not decoded",
						       dec->what, sa->name);
				continue;
			}
			EXPECT_NE(RP_SPEC_NONE, sa->type) TH_LOG("%s: %d", dec->what, t);
			/* Only multi-attr attributes go to arrays. */
			EXPECT_EQ(sa->multi, f->count_off != 0)
				TH_LOG("%s.%s", dec->what, sa->name);
			switch (sa->type) {
			case RP_SPEC_U8: case RP_SPEC_U16:
			case RP_SPEC_U32: case RP_SPEC_U64:
				/* No member narrower than the wire. */
				ASSERT_LT(f->dst, sizeof(dst_width));
				EXPECT_LE(width[sa->type], dst_width[f->dst])
					TH_LOG("%s.%s", dec->what, sa->name);
				EXPECT_TRUE(f->dst != RP_DST_BOOL ||
					    sa->type == RP_SPEC_U8);
				break;
			case RP_SPEC_STRING:
				EXPECT_EQ(RP_DST_STR, f->dst);
				EXPECT_LT(sa->max_len, f->size)
					TH_LOG("%s.%s", dec->what, sa->name);
				break;
			case RP_SPEC_BINARY:
				EXPECT_EQ(RP_DST_ADDR, f->dst);
				break;
			case RP_SPEC_NEST:
				ASSERT_EQ(RP_DST_NEST, f->dst);
				EXPECT_EQ(sa->nest, f->nest->set)
					TH_LOG("%s.%s", dec->what, sa->name);
				EXPECT_EQ(f->nest->size, f->size);
				break;
			default:
				EXPECT_TRUE(0);
			}
		}
	}
	EXPECT_EQ(9, n);
}

TEST(pin_every_attribute)
{
	struct rp_pin p;

	ASSERT_EQ(0, rp_pin_parse(full_nest(&rp_spec_pin), &p));
	EXPECT_EQ(all_bits(&rp_spec_pin, 0), p.attrs);
	STR_EQ(ROCEPATH_A_PIN_IBDEV, 0, p.ibdev);
	ADDR_EQ(ROCEPATH_A_PIN_REMOTE, 0, &p.remote);
	ASSERT_EQ(2, p.nsports);
	EXPECT_EQ(v16(ROCEPATH_A_PIN_SPORT), p.sports[0]);
	EXPECT_EQ(v16(ROCEPATH_A_PIN_SPORT) + 1, p.sports[1]);
	ASSERT_EQ(2, p.nsport_qps);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_SPORT_QPS), p.sport_qps[0]);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_SPORT_QPS) + 1, p.sport_qps[1]);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_RQPN), p.rqpn);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_LQPN), p.lqpn);
	rp_pin_release(&p);
}

TEST(dev_every_attribute)
{
	struct rp_dev d;

	ASSERT_EQ(0, rp_dev_parse(full_nest(&rp_spec_dev), &d));
	EXPECT_EQ(all_bits(&rp_spec_dev, 0), d.attrs);
	STR_EQ(ROCEPATH_A_DEV_IBDEV, 0, d.ibdev);
	EXPECT_EQ(v32(ROCEPATH_A_DEV_INDEX), d.index);
	EXPECT_EQ(v32(ROCEPATH_A_DEV_PORT), d.port);
	STR_EQ(ROCEPATH_A_DEV_NETDEV, 0, d.netdev);
	EXPECT_EQ(v32(ROCEPATH_A_DEV_IFINDEX), d.ifindex);
	EXPECT_TRUE(d.roce_v2);
	STR_EQ(ROCEPATH_A_DEV_DRIVER, 0, d.driver);
	EXPECT_TRUE(d.soft);
	ASSERT_EQ(2, d.ngids);
	for (int i = 0; i < 2; i++) {
		const struct rp_gid *g = &d.gids[i];

		EXPECT_EQ(all_bits(&rp_spec_gid, 0), g->attrs);
		EXPECT_EQ(v32(ROCEPATH_A_GID_INDEX), g->index);
		EXPECT_EQ(v32(ROCEPATH_A_GID_TYPE), g->type);
		ADDR_EQ(ROCEPATH_A_GID_ADDR, 0, &g->addr);
	}
	ASSERT_EQ(2, d.ncounters);
	for (int i = 0; i < 2; i++) {
		const struct rp_hw_counter *c = &d.counters[i];

		STR_EQ(ROCEPATH_A_HW_COUNTER_NAME, 0, c->name);
		EXPECT_EQ(v64(ROCEPATH_A_HW_COUNTER_VALUE), c->value);
	}
	rp_dev_release(&d);
	EXPECT_EQ(NULL, d.gids);
}

TEST(qp_every_attribute)
{
	struct rp_qp q;

	ASSERT_EQ(0, rp_qp_parse(full_nest(&rp_spec_qp), &q));
	EXPECT_EQ(all_bits(&rp_spec_qp, 0), q.attrs);
	STR_EQ(ROCEPATH_A_QP_IBDEV, 0, q.ibdev);
	EXPECT_EQ(v32(ROCEPATH_A_QP_PORT), q.port);
	EXPECT_EQ(v32(ROCEPATH_A_QP_LQPN), q.lqpn);
	EXPECT_EQ(v32(ROCEPATH_A_QP_RQPN), q.rqpn);
	ADDR_EQ(ROCEPATH_A_QP_REMOTE, 0, &q.remote);
	EXPECT_EQ(v16(ROCEPATH_A_QP_SPORT), q.sport);
	EXPECT_TRUE(q.pinned);
	EXPECT_EQ(v32(ROCEPATH_A_QP_TYPE), q.type);
	EXPECT_EQ(v16(ROCEPATH_A_QP_DEFAULT_SPORT), q.default_sport);
	/* The rule is a pin key: its sports are skipped. */
	EXPECT_EQ(all_bits(&rp_spec_pin, BIT(ROCEPATH_A_PIN_SPORT) |
			   BIT(ROCEPATH_A_PIN_SPORT_QPS)), q.rule.attrs);
	STR_EQ(ROCEPATH_A_PIN_IBDEV, 0, q.rule.ibdev);
	ADDR_EQ(ROCEPATH_A_PIN_REMOTE, 0, &q.rule.remote);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_RQPN), q.rule.rqpn);
	EXPECT_EQ(v32(ROCEPATH_A_PIN_LQPN), q.rule.lqpn);
}

TEST(flow_every_attribute)
{
	struct rp_flow f;
	int n = 0;

	ASSERT_EQ(0, rp_flow_parse(full_nest(&rp_spec_flow), &f));
	EXPECT_EQ(all_bits(&rp_spec_flow, 0), f.attrs);
	STR_EQ(ROCEPATH_A_FLOW_IBDEV, 0, f.ibdev);
	ADDR_EQ(ROCEPATH_A_FLOW_LOCAL, 0, &f.local);
	ADDR_EQ(ROCEPATH_A_FLOW_REMOTE, 0, &f.remote);
	EXPECT_EQ(v16(ROCEPATH_A_FLOW_SPORT), f.sport);
	EXPECT_EQ(v32(ROCEPATH_A_FLOW_DQPN), f.dqpn);
	EXPECT_EQ(v32(ROCEPATH_A_FLOW_LQPN), f.lqpn);
	for (int t = ROCEPATH_A_FLOW_TX_PACKETS; t <= ROCEPATH_A_FLOW_CNP_RX; t++, n++) {
		EXPECT_EQ(v64(t), f.val[t]) TH_LOG("%s", rp_flow_counter_name(t));
	}
	EXPECT_EQ(v32(ROCEPATH_A_FLOW_RATE_MBPS), f.val[ROCEPATH_A_FLOW_RATE_MBPS]);
	EXPECT_EQ(v32(ROCEPATH_A_FLOW_ALPHA), f.val[ROCEPATH_A_FLOW_ALPHA]);
	EXPECT_EQ(v32(ROCEPATH_A_FLOW_RATE_KBPS), f.val[ROCEPATH_A_FLOW_RATE_KBPS]);
	EXPECT_EQ(v8(ROCEPATH_A_FLOW_RP_PACED), f.val[ROCEPATH_A_FLOW_RP_PACED]);
	/* tx/rx packets/bytes, rx ect/ce, cnp tx/rx. */
	EXPECT_EQ(8, n);
	EXPECT_EQ(0, f.val[ROCEPATH_A_FLOW_SPORT]);
}

TEST(stats_and_dcqcn_every_attribute)
{
	struct rp_stats s;
	struct rp_dcqcn d;
	int n64 = 0, n32 = 0;

	ASSERT_EQ(0, rp_stats_parse(full_nest(&rp_spec_stats), &s));
	EXPECT_EQ(all_bits(&rp_spec_stats, 0), s.attrs);
	for (int t = 0; t <= ROCEPATH_A_STATS_MAX; t++) {
		if (rp_spec_stats.attrs[t].type == RP_SPEC_U64) {
			EXPECT_EQ(v64(t), s.val[t]) TH_LOG("%s", rp_stats_name(t));
			n64++;
		} else if (rp_spec_stats.attrs[t].type == RP_SPEC_U32) {
			EXPECT_EQ(v32(t), s.val[t]) TH_LOG("%s", rp_stats_name(t));
			n32++;
		}
	}
	EXPECT_EQ(18, n64);
	EXPECT_EQ(11, n32);
	EXPECT_EQ(v64(ROCEPATH_A_STATS_HOOK_CALLS), s.val[ROCEPATH_A_STATS_HOOK_CALLS]);
	EXPECT_EQ(v32(ROCEPATH_A_STATS_QPS_MAX), s.val[ROCEPATH_A_STATS_QPS_MAX]);

	ASSERT_EQ(0, rp_dcqcn_parse(full_nest(&rp_spec_dcqcn), &d));
	EXPECT_EQ(all_bits(&rp_spec_dcqcn, 0), d.attrs);
	STR_EQ(ROCEPATH_A_DCQCN_IBDEV, 0, d.ibdev);
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++) {
		int t = rp_dcqcn_params[i].attr;

		EXPECT_EQ(v32(t), d.val[t]) TH_LOG("%s", rp_dcqcn_params[i].name);
	}
	EXPECT_EQ(v8(ROCEPATH_A_DCQCN_SOFT), d.val[ROCEPATH_A_DCQCN_SOFT]);
	EXPECT_EQ(v8(ROCEPATH_A_DCQCN_FQ_MISSING), d.val[ROCEPATH_A_DCQCN_FQ_MISSING]);
}

/* A nest with the decoder's required attributes and one more, raw. */
static struct nlattr *nest_with(const struct rp_decoder *dec, int type,
				const void *data, size_t len)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	for (int t = 0; t <= dec->set->max; t++)
		if ((dec->required & BIT(t)) && t != type)
			put_one(nlh, &dec->set->attrs[t], t, 0);
	mnl_attr_put(nlh, type, len, data);
	mnl_attr_nest_end(nlh, n);
	return n;
}

static bool all_zero(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const char *)p)[i])
			return false;
	return true;
}

/*
 * For every decoded attribute of every object: a number one byte short,
 * a string without its NUL or one byte over its limit, a binary of 5
 * bytes fail with -EINVAL and leave the struct zeroed (valgrind checks
 * nothing leaks); the right length decodes.
 */
TEST(wrong_lengths_rejected)
{
	static const uint8_t width[] = {
		[RP_SPEC_U8] = 1, [RP_SPEC_U16] = 2, [RP_SPEC_U32] = 4,
		[RP_SPEC_U64] = 8,
	};
	char data[128];
	int checked = 0;

	memset(data, 'x', sizeof(data));
	for (const struct rp_decoder *const *d = rp_obj_decoders; *d; d++) {
		const struct rp_decoder *dec = *d;
		void *obj = malloc(dec->size);

		ASSERT_NE(NULL, obj);
		for (int t = 0; t <= dec->set->max; t++) {
			const struct rp_spec_attr *sa = &dec->set->attrs[t];
			struct rp_field tmp;
			const struct rp_field *f = rp_decoder_field(dec, t, &tmp);
			size_t bad, good;

			if (!f || sa->type == RP_SPEC_NEST)
				continue;
			if (sa->type == RP_SPEC_STRING) {
				bad = sa->max_len ? sa->max_len + 1 : f->size;
				/* Over-long, NUL-terminated. */
				data[bad] = '\0';
				EXPECT_EQ(-EINVAL, rp_decode(dec, nest_with(dec, t, data, bad + 1), obj))
					TH_LOG("%s.%s", dec->what, sa->name);
				EXPECT_TRUE(all_zero(obj, dec->size));
				data[bad] = 'x';
				/* Unterminated. */
				EXPECT_EQ(-EINVAL, rp_decode(dec, nest_with(dec, t, "ab", 2), obj));
				good = 3;
			} else if (sa->type == RP_SPEC_BINARY) {
				EXPECT_EQ(-EINVAL, rp_decode(dec, nest_with(dec, t, data, 5), obj))
					TH_LOG("%s.%s", dec->what, sa->name);
				good = 16;
			} else {
				bad = width[sa->type] - 1;
				EXPECT_EQ(-EINVAL, rp_decode(dec, nest_with(dec, t, data, bad), obj))
					TH_LOG("%s.%s", dec->what, sa->name);
				good = width[sa->type];
			}
			EXPECT_TRUE(all_zero(obj, dec->size)) TH_LOG("%s.%s", dec->what, sa->name);
			EXPECT_EQ(0, rp_decode(dec, nest_with(dec, t, sa->type == RP_SPEC_STRING ?
							       "ab" : data, good), obj))
				TH_LOG("%s.%s", dec->what, sa->name);
			EXPECT_TRUE(*(uint64_t *)obj & BIT(t));
			rp_decode_release(dec, obj);
			checked++;
		}
		free(obj);
	}
	/* Every decoded attribute but the nests (gid, hw-counter, rule). */
	EXPECT_EQ(104, checked);
}

/*
 * One dev-get message about @port of rxe0: the port's own (with a driver)
 * or a slice of its GID table (@first.. @first + @n - 1).
 */
static int dev_msg(struct rp_dev *d, uint32_t port, bool own,
		   uint32_t first, int n)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest, *g;
	uint8_t gid[16] = { 0xfe, 0x80 };

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DEV_IBDEV, "rxe0");
	mnl_attr_put_u32(nlh, ROCEPATH_A_DEV_INDEX, 3);
	mnl_attr_put_u32(nlh, ROCEPATH_A_DEV_PORT, port);
	if (own)
		mnl_attr_put_strz(nlh, ROCEPATH_A_DEV_DRIVER, "rxe");
	for (int i = 0; i < n; i++) {
		gid[15] = first + i;
		g = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_GID);
		mnl_attr_put_u32(nlh, ROCEPATH_A_GID_INDEX, first + i);
		mnl_attr_put(nlh, ROCEPATH_A_GID_ADDR, sizeof(gid), gid);
		mnl_attr_put_u32(nlh, ROCEPATH_A_GID_TYPE, 2);
		mnl_attr_nest_end(nlh, g);
	}
	mnl_attr_nest_end(nlh, nest);
	return rp_dev_parse(nest, d);
}

TEST(dev_gid_slices_join_their_port)
{
	struct rp_dev port1, slice, port2;

	ASSERT_EQ(0, dev_msg(&port1, 1, true, 0, 0));
	/* two slices of port 1's table, one of them with 40 GIDs */
	ASSERT_EQ(0, dev_msg(&slice, 1, false, 0, 3));
	ASSERT_EQ(1, rp_dev_merge(&port1, &slice));
	EXPECT_EQ(NULL, slice.gids);
	ASSERT_EQ(0, dev_msg(&slice, 1, false, 32, 40));
	ASSERT_EQ(1, rp_dev_merge(&port1, &slice));
	ASSERT_EQ(43, port1.ngids);
	EXPECT_TRUE(RP_HAS(&port1, ROCEPATH_A_DEV_GID));
	EXPECT_STREQ("rxe", port1.driver);
	for (int i = 0; i < 43; i++) {
		uint32_t want = i < 3 ? i : 32 + i - 3;

		EXPECT_EQ(want, port1.gids[i].index);
		EXPECT_EQ(want & 0xff, port1.gids[i].addr.raw[15]);
	}
	/* the next port's own message starts a record of its own */
	ASSERT_EQ(0, dev_msg(&port2, 2, true, 0, 0));
	EXPECT_EQ(0, rp_dev_merge(&port1, &port2));
	/* and a slice of another port does not join port 1 */
	ASSERT_EQ(0, dev_msg(&slice, 2, false, 0, 1));
	EXPECT_EQ(0, rp_dev_merge(&port1, &slice));
	EXPECT_EQ(1, rp_dev_merge(&port2, &slice));
	EXPECT_EQ(1, port2.ngids);
	EXPECT_EQ(43, port1.ngids);
	rp_dev_release(&port1);
	rp_dev_release(&port2);
}

TEST(nested_errors_and_required)
{
	struct nlmsghdr *nlh;
	struct nlattr *n, *g;
	struct rp_qp_rule r;
	struct rp_dev d;
	struct rp_pin p;

	/* A short gid index fails the whole device, arrays freed. */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	g = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_GID);
	mnl_attr_put_u32(nlh, ROCEPATH_A_GID_INDEX, 1);
	mnl_attr_nest_end(nlh, g);
	g = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_GID);
	mnl_attr_put_u16(nlh, ROCEPATH_A_GID_INDEX, 1);
	mnl_attr_nest_end(nlh, g);
	mnl_attr_nest_end(nlh, n);
	EXPECT_EQ(-EINVAL, rp_dev_parse(n, &d));
	EXPECT_EQ(NULL, d.gids);
	EXPECT_EQ(0, d.ngids);

	/* A counter needs a name, and an empty one is no name. */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	g = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_HW_COUNTER);
	mnl_attr_put_strz(nlh, ROCEPATH_A_HW_COUNTER_NAME, "");
	mnl_attr_nest_end(nlh, g);
	mnl_attr_nest_end(nlh, n);
	EXPECT_EQ(-EINVAL, rp_dev_parse(n, &d));

	/* A pin and a QP's rule need a remote. */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_u32(nlh, ROCEPATH_A_PIN_LQPN, 17);
	mnl_attr_nest_end(nlh, n);
	EXPECT_EQ(-EINVAL, rp_pin_parse(n, &p));
	EXPECT_EQ(-EINVAL, rp_decode(&rp_qp_rule_decoder, n, &r));

	/* Many sports grow the array past its first sizes. */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	n = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put(nlh, ROCEPATH_A_PIN_REMOTE, 4, "\xc0\0\2\1");
	for (int i = 0; i < 1000; i++)
		mnl_attr_put_u16(nlh, ROCEPATH_A_PIN_SPORT, 49152 + i);
	mnl_attr_nest_end(nlh, n);
	ASSERT_EQ(0, rp_pin_parse(n, &p));
	ASSERT_EQ(1000, p.nsports);
	for (int i = 0; i < 1000; i++) {
		EXPECT_EQ(49152 + i, p.sports[i]);
	}
	rp_pin_release(&p);
}

/* A spec max-len below the member's size is enforced too. */
struct short_name {
	uint64_t attrs;
	char name[16];
};

static const struct rp_spec_attr short_attrs[2] = {
	[1] = { "name", RP_SPEC_STRING, .max_len = 3 },
};
static const struct rp_spec_set short_set = { "short", 1, short_attrs };
static const struct rp_field short_map[2] = {
	[1] = RP_FIELD(struct short_name, name),
};
static const struct rp_decoder short_dec = RP_DECODER(struct short_name,
	short_set, short_map);

TEST(spec_max_len)
{
	struct short_name o;

	EXPECT_EQ(RP_DST_STR, short_map[1].dst);
	EXPECT_EQ(0, rp_decode(&short_dec, nest_with(&short_dec, 1, "abc", 4), &o));
	EXPECT_STREQ("abc", o.name);
	EXPECT_EQ(-EINVAL, rp_decode(&short_dec, nest_with(&short_dec, 1, "abcd", 5), &o));
	EXPECT_STREQ("", o.name);
}

TEST_HARNESS_MAIN
