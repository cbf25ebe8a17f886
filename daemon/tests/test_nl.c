// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the netlink layer: extack parsing of crafted NLMSG_ERROR/DONE
 * messages, pin encoding that decodes back, object decoders, and (where
 * the host allows generic netlink) dumps and kernel extacks over nlctrl.
 */
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "rp_netlink.h"

#ifndef NLMSGERR_ATTR_MISS_TYPE
#define NLMSGERR_ATTR_MISS_TYPE 5
#endif

static char buf[8192] __attribute__((aligned(8)));

static struct nlmsghdr *err_msg(int error, uint16_t flags, size_t echo_len)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = flags;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = error;
	e->msg.nlmsg_len = NLMSG_HDRLEN + echo_len;
	e->msg.nlmsg_type = 0x20;
	if (echo_len)
		memset(mnl_nlmsg_put_extra_header(nlh, echo_len), 0xaa,
		       echo_len);
	return nlh;
}

TEST(extack_capped_msg_and_offs)
{
	struct nlmsghdr *nlh = err_msg(-EEXIST, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	char msg[128];
	uint32_t off;

	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "pin rule already exists");
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 36);
	EXPECT_EQ(-EEXIST, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), &off));
	EXPECT_STREQ("pin rule already exists", msg);
	EXPECT_EQ(36, off);
}

TEST(extack_after_echoed_request)
{
	/* Without NETLINK_CAP_ACK the whole request precedes the TLVs. */
	struct nlmsghdr *nlh = err_msg(-ERANGE, NLM_F_ACK_TLVS, 28);
	char msg[128];
	uint32_t off;

	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "sport out of range");
	EXPECT_EQ(-ERANGE, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), &off));
	EXPECT_STREQ("sport out of range", msg);
	EXPECT_EQ(0, off);
}

TEST(plain_errors_and_acks)
{
	struct nlmsghdr *nlh = err_msg(-EPERM, NLM_F_CAPPED, 0);
	char msg[16] = "junk";
	uint32_t off = 7;

	EXPECT_EQ(-EPERM, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					  sizeof(msg), &off));
	EXPECT_STREQ("", msg);
	EXPECT_EQ(0, off);
	nlh = err_msg(0, NLM_F_CAPPED, 0);
	EXPECT_EQ(0, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg, sizeof(msg),
				     &off));
	/* Uncapped ack echoing a request. */
	nlh = err_msg(0, 0, 20);
	EXPECT_EQ(0, rp_nl_parse_err(nlh, nlh->nlmsg_len, NULL, 0, NULL));
}

TEST(extack_truncated_message_text)
{
	struct nlmsghdr *nlh = err_msg(-EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	char msg[8];

	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "a rather long message");
	EXPECT_EQ(-EINVAL, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), NULL));
	EXPECT_STREQ("a rathe", msg);
}

TEST(extack_missing_attribute)
{
	struct nlmsghdr *nlh = err_msg(-EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	char msg[64];

	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, ROCEPATH_A_PIN);
	EXPECT_EQ(-EINVAL, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), NULL));
	EXPECT_STREQ("missing attribute 5", msg);
}

TEST(done_with_extack)
{
	struct nlmsghdr *nlh;
	char msg[64];
	int *err;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	*err = -ENODEV;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "no such device");
	EXPECT_EQ(-ENODEV, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), NULL));
	EXPECT_STREQ("no such device", msg);
	*err = 0;
	EXPECT_EQ(0, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg, sizeof(msg),
				     NULL));
}

TEST(malformed_error_messages)
{
	struct nlmsghdr *nlh = err_msg(-EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	char msg[64];

	/* Shorter than its header claims. */
	EXPECT_EQ(-EBADMSG, rp_nl_parse_err(nlh, nlh->nlmsg_len - 4, msg,
					    sizeof(msg), NULL));
	/* Too short for struct nlmsgerr. */
	nlh->nlmsg_len = NLMSG_HDRLEN + 4;
	EXPECT_EQ(-EBADMSG, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					    sizeof(msg), NULL));
	/* A bogus TLV length must not run past the message. */
	nlh = err_msg(-EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "x");
	((struct nlattr *)((char *)nlh + NLMSG_HDRLEN +
			   sizeof(struct nlmsgerr)))->nla_len = 4000;
	EXPECT_EQ(-EINVAL, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					   sizeof(msg), NULL));
	EXPECT_STREQ("", msg);
	/* Not an error message at all. */
	nlh->nlmsg_type = 0x20;
	EXPECT_EQ(-EBADMSG, rp_nl_parse_err(nlh, nlh->nlmsg_len, msg,
					    sizeof(msg), NULL));
}

static struct nlmsghdr *genl_msg(void)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = 0x20;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = ROCEPATH_CMD_PIN_ADD;
	return nlh;
}

TEST(pin_encode_decode)
{
	uint16_t sports[] = { 49152, 50000, 65535 };
	struct rp_pin in = { 0 }, out;
	const struct nlattr *a;
	struct nlmsghdr *nlh = genl_msg();
	char b1[RP_ADDR_STRLEN];

	strcpy(in.ibdev, "rxe0");
	rp_addr_parse("2001:db8::2", &in.remote);
	ASSERT_EQ(0, rp_pin_set_sports(&in, sports, 3));
	in.rqpn = 0xffffff;
	RP_SET(&in, ROCEPATH_A_PIN_RQPN);
	ASSERT_EQ(0, rp_nl_put_pin(nlh, sizeof(buf), &in, true));
	EXPECT_EQ(ROCEPATH_CMD_PIN_ADD, rp_nl_cmd(nlh));
	a = rp_nl_attr(nlh, ROCEPATH_A_PIN);
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, rp_pin_parse(a, &out));
	EXPECT_STREQ("rxe0", out.ibdev);
	EXPECT_STREQ("2001:db8::2", rp_addr_fmt(&out.remote, b1, sizeof(b1)));
	ASSERT_EQ(3, out.nsports);
	EXPECT_EQ(0, memcmp(sports, out.sports, sizeof(sports)));
	EXPECT_TRUE(RP_HAS(&out, ROCEPATH_A_PIN_RQPN));
	EXPECT_EQ(0xffffff, out.rqpn);
	EXPECT_FALSE(RP_HAS(&out, ROCEPATH_A_PIN_LQPN));
	rp_pin_release(&out);

	/* del encodes the key only; an unscoped IPv4 rule has no ibdev. */
	nlh = genl_msg();
	in.ibdev[0] = '\0';
	rp_addr_parse("192.0.2.2", &in.remote);
	ASSERT_EQ(0, rp_nl_put_pin(nlh, sizeof(buf), &in, false));
	ASSERT_EQ(0, rp_pin_parse(rp_nl_attr(nlh, ROCEPATH_A_PIN), &out));
	EXPECT_STREQ("", out.ibdev);
	EXPECT_FALSE(RP_HAS(&out, ROCEPATH_A_PIN_IBDEV));
	EXPECT_EQ(0, out.nsports);
	EXPECT_EQ(4, rp_addr_len(&out.remote));
	rp_pin_release(&out);

	/* Too small a buffer is -EMSGSIZE and leaves the message intact. */
	nlh = genl_msg();
	{
		uint32_t len = nlh->nlmsg_len;

		EXPECT_EQ(-EMSGSIZE, rp_nl_put_pin(nlh, len + 24, &in, true));
		EXPECT_EQ(len, nlh->nlmsg_len);
	}
	rp_pin_release(&in);
}

TEST(pin_decode_rejects)
{
	struct nlmsghdr *nlh = genl_msg();
	struct nlattr *nest;
	struct rp_pin p;

	/* No remote. */
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_PIN);
	mnl_attr_put_u16(nlh, ROCEPATH_A_PIN_SPORT, 49152);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EINVAL, rp_pin_parse(nest, &p));
	EXPECT_EQ(NULL, p.sports);
	/* A 5-byte address. */
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_PIN);
	mnl_attr_put(nlh, ROCEPATH_A_PIN_REMOTE, 5, "abcde");
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EINVAL, rp_pin_parse(nest, &p));
	/* An unterminated device name. */
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_PIN);
	mnl_attr_put(nlh, ROCEPATH_A_PIN_IBDEV, 4, "rxe0");
	mnl_attr_put(nlh, ROCEPATH_A_PIN_REMOTE, 4, "abcd");
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EINVAL, rp_pin_parse(nest, &p));
}

TEST(decode_dev_qp_flow_stats_dcqcn)
{
	struct nlmsghdr *nlh = genl_msg();
	struct nlattr *nest, *sub;
	struct rp_dev d;
	struct rp_qp q;
	struct rp_flow f;
	struct rp_stats s;
	struct rp_dcqcn c;
	uint64_t big = 0x1122334455667788ULL;
	char b[RP_ADDR_STRLEN];

	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DEV_IBDEV, "rxe0");
	mnl_attr_put_u32(nlh, ROCEPATH_A_DEV_PORT, 1);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DEV_NETDEV, "eth0");
	mnl_attr_put_u32(nlh, ROCEPATH_A_DEV_IFINDEX, 2);
	mnl_attr_put_u8(nlh, ROCEPATH_A_DEV_ROCE_V2, 1);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DEV_DRIVER, "rxe");
	mnl_attr_put_u32(nlh, 200, 7);	/* unknown: skipped */
	for (int i = 0; i < 2; i++) {
		sub = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_GID);
		mnl_attr_put_u32(nlh, ROCEPATH_A_GID_INDEX, i);
		mnl_attr_put(nlh, ROCEPATH_A_GID_ADDR, 16,
			     "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\2\1");
		mnl_attr_put_u32(nlh, ROCEPATH_A_GID_TYPE, 2);
		mnl_attr_nest_end(nlh, sub);
	}
	sub = mnl_attr_nest_start(nlh, ROCEPATH_A_DEV_HW_COUNTER);
	mnl_attr_put_strz(nlh, ROCEPATH_A_HW_COUNTER_NAME, "np_cnp_sent");
	mnl_attr_put_u64(nlh, ROCEPATH_A_HW_COUNTER_VALUE, big);
	mnl_attr_nest_end(nlh, sub);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_dev_parse(nest, &d));
	EXPECT_STREQ("rxe0", d.ibdev);
	EXPECT_STREQ("eth0", d.netdev);
	EXPECT_EQ(2, d.ifindex);
	EXPECT_TRUE(d.roce_v2);
	EXPECT_FALSE(RP_HAS(&d, ROCEPATH_A_DEV_SOFT));
	ASSERT_EQ(2, d.ngids);
	EXPECT_EQ(1, d.gids[1].index);
	EXPECT_STREQ("192.0.2.1", rp_addr_fmt(&d.gids[1].addr, b, sizeof(b)));
	ASSERT_EQ(1, d.ncounters);
	EXPECT_STREQ("np_cnp_sent", d.counters[0].name);
	EXPECT_EQ(big, d.counters[0].value);
	rp_dev_release(&d);

	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_QP);
	mnl_attr_put_strz(nlh, ROCEPATH_A_QP_IBDEV, "rxe0");
	mnl_attr_put_u32(nlh, ROCEPATH_A_QP_LQPN, 17);
	mnl_attr_put_u32(nlh, ROCEPATH_A_QP_RQPN, 18);
	mnl_attr_put(nlh, ROCEPATH_A_QP_REMOTE, 4, "\xc0\0\2\2");
	mnl_attr_put_u16(nlh, ROCEPATH_A_QP_SPORT, 49153);
	mnl_attr_put_u8(nlh, ROCEPATH_A_QP_PINNED, 1);
	sub = mnl_attr_nest_start(nlh, ROCEPATH_A_QP_RULE);
	mnl_attr_put_strz(nlh, ROCEPATH_A_PIN_IBDEV, "rxe0");
	mnl_attr_put(nlh, ROCEPATH_A_PIN_REMOTE, 4, "\xc0\0\2\2");
	mnl_attr_put_u32(nlh, ROCEPATH_A_PIN_RQPN, 18);
	mnl_attr_put_u32(nlh, 200, 7);	/* unknown: skipped */
	mnl_attr_nest_end(nlh, sub);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_qp_parse(nest, &q));
	EXPECT_EQ(17, q.lqpn);
	EXPECT_EQ(18, q.rqpn);
	EXPECT_EQ(49153, q.sport);
	EXPECT_TRUE(q.pinned);
	EXPECT_STREQ("192.0.2.2", rp_addr_fmt(&q.remote, b, sizeof(b)));
	ASSERT_TRUE(RP_HAS(&q, ROCEPATH_A_QP_RULE));
	EXPECT_STREQ("rxe0", q.rule.ibdev);
	EXPECT_STREQ("192.0.2.2", rp_addr_fmt(&q.rule.remote, b, sizeof(b)));
	EXPECT_TRUE(RP_HAS(&q.rule, ROCEPATH_A_PIN_RQPN));
	EXPECT_EQ(18, q.rule.rqpn);
	EXPECT_FALSE(RP_HAS(&q.rule, ROCEPATH_A_PIN_LQPN));

	/* Unpinned: no rule. A rule without a remote is malformed. */
	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_QP);
	mnl_attr_put_u32(nlh, ROCEPATH_A_QP_LQPN, 17);
	mnl_attr_put_u8(nlh, ROCEPATH_A_QP_PINNED, 0);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_qp_parse(nest, &q));
	EXPECT_FALSE(RP_HAS(&q, ROCEPATH_A_QP_RULE));
	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_QP);
	sub = mnl_attr_nest_start(nlh, ROCEPATH_A_QP_RULE);
	mnl_attr_put_u32(nlh, ROCEPATH_A_PIN_LQPN, 17);
	mnl_attr_nest_end(nlh, sub);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EINVAL, rp_qp_parse(nest, &q));

	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_FLOW);
	mnl_attr_put_strz(nlh, ROCEPATH_A_FLOW_IBDEV, "rxe0");
	mnl_attr_put_u64(nlh, ROCEPATH_A_FLOW_TX_BYTES, big);
	mnl_attr_put_u64(nlh, ROCEPATH_A_FLOW_RX_CE, 3);
	mnl_attr_put_u32(nlh, ROCEPATH_A_FLOW_ALPHA, 1023);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_flow_parse(nest, &f));
	EXPECT_EQ(big, f.val[ROCEPATH_A_FLOW_TX_BYTES]);
	EXPECT_EQ(3, f.val[ROCEPATH_A_FLOW_RX_CE]);
	EXPECT_EQ(1023, f.val[ROCEPATH_A_FLOW_ALPHA]);
	EXPECT_TRUE(RP_HAS(&f, ROCEPATH_A_FLOW_ALPHA));
	EXPECT_FALSE(RP_HAS(&f, ROCEPATH_A_FLOW_RATE_MBPS));

	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_STATS);
	mnl_attr_put_u64(nlh, ROCEPATH_A_STATS_HOOK_CALLS, big);
	mnl_attr_put_u32(nlh, ROCEPATH_A_STATS_RULES_MAX, 100000);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_stats_parse(nest, &s));
	EXPECT_EQ(big, s.val[ROCEPATH_A_STATS_HOOK_CALLS]);
	EXPECT_EQ(100000, s.val[ROCEPATH_A_STATS_RULES_MAX]);
	EXPECT_FALSE(RP_HAS(&s, ROCEPATH_A_STATS_RULES));

	nlh = genl_msg();
	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_DCQCN);
	mnl_attr_put_strz(nlh, ROCEPATH_A_DCQCN_IBDEV, "rxe0");
	mnl_attr_put_u32(nlh, ROCEPATH_A_DCQCN_RP_AI_RATE, 5);
	mnl_attr_put_u32(nlh, ROCEPATH_A_DCQCN_NP_ENABLE, 1);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, rp_dcqcn_parse(nest, &c));
	EXPECT_STREQ("rxe0", c.ibdev);
	EXPECT_EQ(5, c.val[ROCEPATH_A_DCQCN_RP_AI_RATE]);
	EXPECT_TRUE(RP_HAS(&c, ROCEPATH_A_DCQCN_NP_ENABLE));
	EXPECT_FALSE(RP_HAS(&c, ROCEPATH_A_DCQCN_RP_ENABLE));
}

TEST(name_tables)
{
	int n = 0;

	for (int a = 0; a <= ROCEPATH_A_DCQCN_MAX; a++) {
		const char *name = rp_dcqcn_name(a);

		if (!name)
			continue;
		n++;
		EXPECT_EQ(a, rp_dcqcn_attr(name));
		EXPECT_EQ(NULL, strchr(name, '-'));
	}
	/* 20 mlx5 cc_params + np_enable + rp_enable. */
	EXPECT_EQ(22, n);
	EXPECT_EQ(ROCEPATH_A_DCQCN_NP_MIN_TIME_BETWEEN_CNPS,
		  rp_dcqcn_attr("np_min_time_between_cnps"));
	EXPECT_EQ(-ENOENT, rp_dcqcn_attr("ibdev"));
	EXPECT_EQ(-ENOENT, rp_dcqcn_attr("rp-ai-rate"));
	EXPECT_EQ(NULL, rp_dcqcn_name(ROCEPATH_A_DCQCN_IBDEV));
	EXPECT_EQ(NULL, rp_dcqcn_name(-1));
	EXPECT_EQ(NULL, rp_dcqcn_name(ROCEPATH_A_DCQCN_MAX + 1));
	EXPECT_STREQ("qps_max", rp_stats_name(ROCEPATH_A_STATS_QPS_MAX));
	EXPECT_STREQ("cnp_rx", rp_flow_counter_name(ROCEPATH_A_FLOW_CNP_RX));
	EXPECT_EQ(NULL, rp_flow_counter_name(ROCEPATH_A_FLOW_SPORT));
}

/* ---- Live: the host's nlctrl family (SKIP where netlink is unavailable) ---- */

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(*(int *)data)++;
	return 0;
}

static void reset_cb(void *data)
{
	*(int *)data = 0;
}

TEST(live_missing_family_and_nlctrl_dump)
{
	struct rp_nl *nl;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int ret, n = 0;

	ret = rp_nl_open_ctrl_watch(&nl);
	if (ret)
		SKIP(return, "no generic netlink here: %s", strerror(-ret));

	/* rocepath.ko cannot be loaded on the build host. */
	if (!rp_nl_family_id(nl)) {
		struct rp_nl *x = NULL;

		EXPECT_EQ(-ENOENT, rp_nl_open(&x));
		EXPECT_EQ(NULL, x);
	}

	/* A dump of every family, through the generic dump path. */
	nlh = rp_nl_msg(nl, CTRL_CMD_GETFAMILY, 0);
	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_get_payload(nlh);
	g->version = 1;
	EXPECT_EQ(0, rp_nl_dumpit(nl, nlh, count_cb, reset_cb, &n));
	EXPECT_LT(1, n);	/* at least nlctrl itself and one more */

	/* A doit that the kernel rejects: errno comes back. */
	nlh = rp_nl_msg(nl, CTRL_CMD_GETFAMILY, 0);
	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_get_payload(nlh);
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "nosuchfam");
	EXPECT_EQ(-ENOENT, rp_nl_doit(nl, nlh, NULL, NULL));

	/* A policy violation: the kernel's extack text is kept. */
	nlh = rp_nl_msg(nl, CTRL_CMD_GETFAMILY, 0);
	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_get_payload(nlh);
	g->version = 1;
	mnl_attr_put_u8(nlh, CTRL_ATTR_FAMILY_ID, 1);	/* u16 expected */
	ret = rp_nl_doit(nl, nlh, NULL, NULL);
	EXPECT_GT(0, ret);
	/* Kernels since 4.12 explain policy rejections and point at the attribute. */
	EXPECT_NE(NULL, rp_nl_errmsg(nl));
	EXPECT_EQ(NLMSG_HDRLEN + GENL_HDRLEN, rp_nl_erroff(nl));
	TH_LOG("kernel extack: %s (offset %u)",
	       rp_nl_errmsg(nl) ? rp_nl_errmsg(nl) : "(none)", rp_nl_erroff(nl));
	rp_nl_close(nl);
}

TEST_HARNESS_MAIN
