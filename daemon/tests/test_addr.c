// SPDX-License-Identifier: GPL-2.0
/* Proves address parsing/printing accepts exactly IPv4/IPv6 and normalises. */
#include <arpa/inet.h>
#include <string.h>

#include "harness.h"

#include "addr.h"

TEST(parse_ipv4)
{
	struct rp_addr a;
	char buf[RP_ADDR_STRLEN];

	ASSERT_EQ(0, rp_addr_parse("192.0.2.1", &a));
	EXPECT_EQ(AF_INET, a.family);
	EXPECT_EQ(4, rp_addr_len(&a));
	EXPECT_EQ(0, memcmp(rp_addr_data(&a), "\xc0\x00\x02\x01", 4));
	EXPECT_STREQ("192.0.2.1", rp_addr_fmt(&a, buf, sizeof(buf)));
}

/* IPv4 is written as inet_ntop() writes it, every byte value in each place. */
TEST(fmt_ipv4_as_inet_ntop)
{
	char buf[RP_ADDR_STRLEN], ref[INET_ADDRSTRLEN];
	struct rp_addr a = { .family = AF_INET };

	for (unsigned int v = 0; v < 256; v++) {
		a.raw[0] = v;
		a.raw[1] = 255 - v;
		a.raw[2] = v * 7;
		a.raw[3] = v / 3;
		ASSERT_NE(NULL, inet_ntop(AF_INET, a.raw, ref, sizeof(ref)));
		ASSERT_STREQ(ref, rp_addr_fmt(&a, buf, sizeof(buf)));
	}
	/* a short buffer: inet_ntop()'s failure, "-" */
	ASSERT_STREQ("-", rp_addr_fmt(&a, buf, 8));
}

TEST(parse_ipv6)
{
	struct rp_addr a;
	char buf[RP_ADDR_STRLEN];

	ASSERT_EQ(0, rp_addr_parse("2001:db8::2", &a));
	EXPECT_EQ(AF_INET6, a.family);
	EXPECT_EQ(16, rp_addr_len(&a));
	EXPECT_STREQ("2001:db8::2", rp_addr_fmt(&a, buf, sizeof(buf)));
	ASSERT_EQ(0, rp_addr_parse("2001:DB8:0:0:0:0:0:2", &a));
	EXPECT_STREQ("2001:db8::2", rp_addr_fmt(&a, buf, sizeof(buf)));
}

TEST(v4_mapped_is_ipv4)
{
	struct rp_addr a, b;
	char buf[RP_ADDR_STRLEN];

	ASSERT_EQ(0, rp_addr_parse("::ffff:192.0.2.7", &a));
	EXPECT_EQ(AF_INET, a.family);
	EXPECT_STREQ("192.0.2.7", rp_addr_fmt(&a, buf, sizeof(buf)));
	ASSERT_EQ(0, rp_addr_from_bin("\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\2\7",
				      16, &b));
	EXPECT_TRUE(rp_addr_equal(&a, &b));
	/* in place, as the planner's pins use it; other addresses untouched */
	memset(&b, 0, sizeof(b));
	b.family = AF_INET6;
	b.raw[10] = b.raw[11] = 0xff;
	memcpy(&b.raw[12], "\xc0\0\2\7", 4);
	rp_addr_normalise(&b);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_EQ(0, rp_addr_parse("2001:db8::2", &a));
	b = a;
	rp_addr_normalise(&b);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
}

TEST(parse_rejects)
{
	static const char *const bad[] = {
		"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "192.0.2.1/24",
		"2001:db8::1/64", "fe80::1%eth0", "::g", " 1.2.3.4",
		"1.2.3.4 ", "host.example", "2001:db8:::1",
	};
	struct rp_addr a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, rp_addr_parse(bad[i], &a))
			TH_LOG("accepted \"%s\"", bad[i]);
		EXPECT_EQ(0, a.family);
	}
	EXPECT_EQ(-EINVAL, rp_addr_parse(NULL, &a));
}

TEST(from_bin_lengths)
{
	uint8_t raw[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct rp_addr a;
	char buf[RP_ADDR_STRLEN];

	ASSERT_EQ(0, rp_addr_from_bin(raw, 16, &a));
	EXPECT_STREQ("2001:db8::1", rp_addr_fmt(&a, buf, sizeof(buf)));
	ASSERT_EQ(0, rp_addr_from_bin("\x7f\0\0\1", 4, &a));
	EXPECT_STREQ("127.0.0.1", rp_addr_fmt(&a, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, rp_addr_from_bin(raw, 0, &a));
	EXPECT_EQ(-EINVAL, rp_addr_from_bin(raw, 5, &a));
	EXPECT_EQ(-EINVAL, rp_addr_from_bin(raw, 15, &a));
	EXPECT_STREQ("-", rp_addr_fmt(&a, buf, sizeof(buf)));
}

TEST(equal)
{
	struct rp_addr a, b;

	rp_addr_parse("192.0.2.1", &a);
	rp_addr_parse("192.0.2.1", &b);
	EXPECT_TRUE(rp_addr_equal(&a, &b));
	rp_addr_parse("192.0.2.2", &b);
	EXPECT_FALSE(rp_addr_equal(&a, &b));
	rp_addr_parse("::c000:201", &b);	/* same bytes, other family */
	EXPECT_FALSE(rp_addr_equal(&a, &b));
}

/*
 * The planner sorts NICs and probes with rp_addr_cmp and its plans depend
 * on that order: unset, then IPv4, then IPv6, each by bytes in network
 * order (numeric), and equal exactly when rp_addr_equal says so.
 */
TEST(cmp_orders_family_then_bytes)
{
	static const char *const sorted[] = {
		"0.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.1.0", "192.0.2.1",
		"255.255.255.255", "::", "::1", "2001:db8::1", "2001:db8::1:0",
		"fe80::1",
	};
	const size_t n = sizeof(sorted) / sizeof(sorted[0]);
	struct rp_addr a, b, unset;

	memset(&unset, 0, sizeof(unset));
	for (size_t i = 0; i < n; i++) {
		ASSERT_EQ(0, rp_addr_parse(sorted[i], &a));
		EXPECT_GT(0, rp_addr_cmp(&unset, &a));
		EXPECT_EQ(0, rp_addr_cmp(&a, &a));
		for (size_t j = i + 1; j < n; j++) {
			ASSERT_EQ(0, rp_addr_parse(sorted[j], &b));
			EXPECT_GT(0, rp_addr_cmp(&a, &b))
				TH_LOG("%s !< %s", sorted[i], sorted[j]);
			EXPECT_LT(0, rp_addr_cmp(&b, &a));
			EXPECT_FALSE(rp_addr_equal(&a, &b));
		}
	}
	/* the same address written two ways, and a mapped one, compare equal */
	ASSERT_EQ(0, rp_addr_parse("2001:DB8:0:0:0:0:0:1", &a));
	ASSERT_EQ(0, rp_addr_parse("2001:db8::1", &b));
	EXPECT_EQ(0, rp_addr_cmp(&a, &b));
	ASSERT_EQ(0, rp_addr_parse("::ffff:10.0.0.1", &a));
	ASSERT_EQ(0, rp_addr_parse("10.0.0.1", &b));
	EXPECT_EQ(0, rp_addr_cmp(&a, &b));
}

TEST_HARNESS_MAIN
