// SPDX-License-Identifier: GPL-2.0
/*
 * Hash models of Documentation/planner.rst ("Hash model"): CRC check values, the hash input layout
 * (seed, fields in order, network byte order), select, tables, and the
 * kernel's QPN-derived default source port; and the FNV-1a 64 file
 * digest's check values and its one text form, written and read back.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "digest.h"
#include "plan_hash.h"
#include "plan_lsys.h"

static const char check[] = "123456789";

/* The standard check values of each CRC on "123456789". */
TEST(crc_check_values)
{
	ASSERT_EQ(0x29B1, rp_crc16_ccitt(check, 9));
	ASSERT_EQ(0xCBF43926u, rp_crc32(check, 9));
	ASSERT_EQ(0xE3069283u, rp_crc32c(check, 9));
	/* 0x3132 ^ 0x3334 ^ 0x3536 ^ 0x3738 ^ 0x3900 */
	ASSERT_EQ(0x3908, rp_xor16(check, 9));
	ASSERT_EQ(0xFFFF, rp_crc16_ccitt("", 0));
	ASSERT_EQ(0, rp_crc32("", 0));
}

/*
 * FNV-1a 64's published values, and its text: "fnv1a64:" and 16 lowercase
 * hex digits, read back exactly as written and nothing else.
 */
TEST(digest_text)
{
	static const char *const bad[] = {
		"", "fnv1a64:", "fnv1a64:0123456789abcde", "fnv1a64:0123456789abcdef0",
		"fnv1a64:0123456789ABCDEF", "fnv1a64:0x23456789abcdef",
		"fnv1a64:+123456789abcdef", "fnv1a64: 123456789abcdef",
		"fnv1a64:0123456789abcdeg", "fnv1a32:0123456789abcdef",
	};
	char buf[RP_DIGEST_LEN];
	uint64_t h;

	ASSERT_EQ(0xcbf29ce484222325ull, rp_fnv1a64(RP_FNV1A64_INIT, "", 0));
	ASSERT_EQ(0xaf63dc4c8601ec8cull, rp_fnv1a64(RP_FNV1A64_INIT, "a", 1));
	EXPECT_STREQ("fnv1a64:cbf29ce484222325", rp_digest_fmt(RP_FNV1A64_INIT, buf));
	EXPECT_STREQ("fnv1a64:000000000000002a", rp_digest_fmt(42, buf));
	EXPECT_STREQ("fnv1a64:ffffffffffffffff", rp_digest_fmt(UINT64_MAX, buf));
	EXPECT_EQ(0, rp_digest_parse("fnv1a64:0123456789abcdef", &h));
	EXPECT_EQ(0x0123456789abcdefull, h);
	EXPECT_EQ(0, rp_digest_parse(rp_digest_fmt(UINT64_MAX, buf), &h));
	EXPECT_EQ(UINT64_MAX, h);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, rp_digest_parse(bad[i], &h)) TH_LOG("%s", bad[i]);
	}
}

static void v4(struct rp_addr *a, int x, int y, int z, int w)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->raw[0] = x;
	a->raw[1] = y;
	a->raw[2] = z;
	a->raw[3] = w;
}

/* Input = 4-byte BE seed, then fields in the listed order, BE. */
TEST(input_layout)
{
	struct rp_hash_model m = {
		.alg = RP_HASH_CRC32, .seed = 0x01020304, .nfields = 5,
		.fields = { RP_F_DST_PORT, RP_F_SRC_PORT, RP_F_PROTOCOL,
			    RP_F_DST_IP, RP_F_SRC_IP },
	};
	static const uint8_t want[] = {
		1, 2, 3, 4, 0x12, 0xB7, 0xC0, 0x01, 17,
		192, 0, 2, 2, 192, 0, 2, 1,
	};
	struct rp_addr s, d;
	uint8_t buf[300];
	size_t n;

	v4(&s, 192, 0, 2, 1);
	v4(&d, 192, 0, 2, 2);
	n = rp_hash_input(&m, &s, &d, 0xC001, buf);
	ASSERT_EQ(sizeof(want), n);
	ASSERT_EQ(0, memcmp(buf, want, n));
	ASSERT_EQ(rp_crc32(want, n), rp_hash_value(&m, &s, &d, 0xC001));
}

/* IPv6 addresses take 16 bytes each. */
TEST(input_ipv6)
{
	struct rp_hash_model m = {
		.alg = RP_HASH_CRC16_CCITT, .nfields = 2,
		.fields = { RP_F_SRC_IP, RP_F_DST_IP },
	};
	struct rp_addr s = { .family = AF_INET6 }, d = { .family = AF_INET6 };
	uint8_t buf[300];

	s.raw[0] = 0x20;
	s.raw[15] = 1;
	d.raw[0] = 0x20;
	d.raw[15] = 2;
	ASSERT_EQ(36, rp_hash_input(&m, &s, &d, 0, buf));
	ASSERT_EQ(0, memcmp(buf + 4, s.raw, 16));
	ASSERT_EQ(0, memcmp(buf + 20, d.raw, 16));
}

/* select full/lo16/hi16 and the ECMP member; all algorithms agree with
 * their raw functions. */
TEST(select_and_member)
{
	struct rp_hash_model m = {
		.alg = RP_HASH_CRC32, .seed = 25, .nfields = 5,
		.fields = { 0, 1, 2, 3, 4 },
	};
	struct rp_addr s, d;
	uint8_t buf[300];
	uint32_t full;
	size_t n;

	v4(&s, 192, 0, 2, 1);
	v4(&d, 192, 0, 2, 2);
	n = rp_hash_input(&m, &s, &d, 50000, buf);
	ASSERT_EQ(4 + 4 + 4 + 1 + 2 + 2, n);
	full = rp_crc32(buf, n);
	ASSERT_EQ(full, rp_hash_value(&m, &s, &d, 50000));
	m.sel = RP_SEL_LO16;
	ASSERT_EQ(full & 0xFFFF, rp_hash_value(&m, &s, &d, 50000));
	m.sel = RP_SEL_HI16;
	ASSERT_EQ(full >> 16, rp_hash_value(&m, &s, &d, 50000));
	ASSERT_EQ((int)((full >> 16) % 3),
		  rp_hash_member(&m, &s, &d, 50000, 3));
	m.alg = RP_HASH_CRC32C;
	m.sel = RP_SEL_FULL;
	ASSERT_EQ(rp_crc32c(buf, n), rp_hash_value(&m, &s, &d, 50000));
	m.alg = RP_HASH_XOR16;
	ASSERT_EQ(rp_xor16(buf, n), rp_hash_value(&m, &s, &d, 50000));
	m.alg = RP_HASH_CRC16_CCITT;
	ASSERT_EQ(rp_crc16_ccitt(buf, n), rp_hash_value(&m, &s, &d, 50000));
}

/* The prepared context gives the same members as the plain function. */
TEST(ctx_matches_plain)
{
	struct rp_hash_model m = {
		.alg = RP_HASH_CRC16_CCITT, .seed = 7, .nfields = 6,
		.fields = { 3, 0, 1, 2, 3, 4 },
	};
	struct rp_hash_ctx c;
	struct rp_addr s, d;

	v4(&s, 10, 0, 0, 1);
	v4(&d, 10, 0, 1, 1);
	rp_hash_ctx_init(&c, &m, &s, &d, NULL);
	for (int p = 49152; p < 65536; p += 97)
		ASSERT_EQ(rp_hash_member(&m, &s, &d, p, 7),
			  rp_hash_ctx_member(&c, p, 7));
}

/* The linear algorithms, and field layouts for them. */
static const enum rp_hash_alg lin_algs[] = {
	RP_HASH_CRC16_CCITT, RP_HASH_CRC32, RP_HASH_CRC32C, RP_HASH_XOR16,
};
#define NLIN_ALGS	ARRAY_SIZE(lin_algs)
struct layout { unsigned int n; enum rp_hash_field f[6]; };
static const struct layout lays[] = {
	/* the port at offset 13 (odd) of IPv4's input, 12 (even), twice */
	{ 5, { RP_F_SRC_IP, RP_F_DST_IP, RP_F_PROTOCOL, RP_F_SRC_PORT,
	       RP_F_DST_PORT } },
	{ 4, { RP_F_SRC_IP, RP_F_DST_IP, RP_F_SRC_PORT, RP_F_DST_PORT } },
	{ 3, { RP_F_SRC_PORT, RP_F_PROTOCOL, RP_F_SRC_PORT } },
	/* no port; the port alone */
	{ 2, { RP_F_DST_IP, RP_F_SRC_IP } },
	{ 1, { RP_F_SRC_PORT } },
};
#define NLAYS		ARRAY_SIZE(lays)
#define NLAYS_PORT	3	/* the first three read the port */

/*
 * The affine form (base value XOR table contributions of the port bytes)
 * equals hashing the whole input, for every algorithm, select, field
 * layout (sport at odd and even offsets, twice, absent), IPv4 and IPv6,
 * every port and group sizes that use all bits.
 */
TEST(ctx_affine_matches_plain)
{
	struct rp_hash_lin lin;
	struct rp_addr s[2], d[2];
	long checked = 0;

	memset(&lin, 0, sizeof(lin));
	v4(&s[0], 192, 0, 2, 1);
	v4(&d[0], 198, 51, 100, 7);
	memset(&s[1], 0, sizeof(s[1]));
	s[1].family = AF_INET6;
	s[1].raw[0] = 0x20; s[1].raw[1] = 0x01; s[1].raw[2] = 0x0d; s[1].raw[3] = 0xb8;
	s[1].raw[15] = 1;
	d[1] = s[1];
	d[1].raw[15] = 0x42;
	d[1].raw[9] = 0x17;
	for (size_t a = 0; a < NLIN_ALGS; a++)
		for (int sel = RP_SEL_FULL; sel <= RP_SEL_HI16; sel++)
			for (size_t l = 0; l < NLAYS; l++)
				for (int fam = 0; fam < 2; fam++) {
					struct rp_hash_model m = {
						.alg = lin_algs[a], .sel = sel,
						.seed = 0x5151 + 977 * a + l,
						.nfields = lays[l].n,
					};
					struct rp_hash_ctx c;

					memcpy(m.fields, lays[l].f, sizeof(lays[l].f));
					rp_hash_ctx_init(&c, &m, &s[fam], &d[fam], &lin);
					ASSERT_TRUE(c.lin);
					for (int p = 0; p < 65536; p += 1 + (p & 3)) {
						int64_t v = rp_hash_value(&m, &s[fam],
									  &d[fam], p);

						ASSERT_EQ((int)(v % 65521),
							  rp_hash_ctx_member(&c, p, 65521));
						ASSERT_EQ((int)(v % 7),
							  rp_hash_ctx_member(&c, p, 7));
						checked++;
					}
				}
	ASSERT_GT(checked, 1000000);
	rp_hash_lin_free(&lin);
}

/*
 * rp_hash_ctx_lin(), which the port search solves instead of searching:
 * for every linear algorithm, select, field layout and family, and
 * power-of-two groups, the member of 0xC000 ^ x is m0 ^ the XOR of col[j]
 * over x's bits, against whole-input hashing; tables and other group
 * sizes are refused.
 */
TEST(ctx_lin_solves_members)
{
	static const struct { unsigned int n; enum rp_hash_field f[6]; } lay[] = {
		{ 5, { RP_F_SRC_IP, RP_F_DST_IP, RP_F_PROTOCOL, RP_F_SRC_PORT,
		       RP_F_DST_PORT } },
		{ 4, { RP_F_SRC_IP, RP_F_DST_IP, RP_F_PROTOCOL, RP_F_DST_PORT } },
		{ 3, { RP_F_SRC_PORT, RP_F_PROTOCOL, RP_F_SRC_PORT } },
	};
	struct rp_hash_lin lin;
	struct rp_addr s, d;
	long checked = 0;

	memset(&lin, 0, sizeof(lin));
	v4(&s, 192, 0, 2, 1);
	v4(&d, 198, 51, 100, 7);
	for (size_t a = 0; a < NLIN_ALGS; a++)
		for (int sel = RP_SEL_FULL; sel <= RP_SEL_HI16; sel++)
			for (size_t l = 0; l < ARRAY_SIZE(lay); l++)
				for (unsigned int g = 1; g <= 64; g *= 2) {
					struct rp_hash_model m = {
						.alg = lin_algs[a], .sel = sel,
						.seed = 0xABCD + 31 * a + l,
						.nfields = lay[l].n,
					};
					uint32_t m0, col[14];
					struct rp_hash_ctx c;

					memcpy(m.fields, lay[l].f, sizeof(lay[l].f));
					rp_hash_ctx_init(&c, &m, &s, &d, &lin);
					ASSERT_EQ(__builtin_ctz(g),
						  rp_hash_ctx_lin(&c, 0xC000, 14, g, &m0, col));
					ASSERT_EQ(-1, rp_hash_ctx_lin(&c, 0xC000, 14, 3 * g,
								      &m0, col));
					for (uint32_t x = 0; x < 16384; x += 1 + x % 7) {
						uint32_t want = m0;

						for (int j = 0; j < 14; j++)
							if (x >> j & 1)
								want ^= col[j];
						ASSERT_EQ(rp_hash_member(&m, &s, &d, 0xC000 ^ x, g),
							  (int)want);
						checked++;
					}
				}
	rp_hash_lin_free(&lin);
	TH_LOG("%ld ports checked", checked);
}

static uint32_t lcg(uint32_t *r)
{
	*r = *r * 1103515245u + 12345u;
	return *r >> 8;
}

/* A random IPv4 address in 10.0.0.0/13 from x. */
static void rand_v4(struct rp_addr *a, uint32_t x)
{
	v4(a, 10, x % 8, x >> 3 & 255, x >> 11 & 255);
}

/* A random linear model whose input holds the port. */
static void rand_lin_model(uint32_t *rnd, struct rp_hash_model *m)
{
	size_t li = lcg(rnd) % NLAYS_PORT;

	memset(m, 0, sizeof(*m));
	m->alg = lin_algs[lcg(rnd) % NLIN_ALGS];
	m->sel = lcg(rnd) % 3;
	m->seed = lcg(rnd);
	m->nfields = lays[li].n;
	memcpy(m->fields, lays[li].f, sizeof(lays[li].f));
}

/*
 * The port search's solve (plan_lsys.h, as find_port() and the port
 * walker use it) against the plain scan: random hops (every linear
 * algorithm and select, random seeds, the port at odd and even offsets
 * of the input, power-of-two groups of 1 to 32) and wanted members. The
 * system is inconsistent exactly when no port of the scan gives every
 * wanted member; otherwise its solutions, listed in the search's order
 * (the start port's free bits first), are exactly the ports the scan
 * accepts, each once, starting with the start port when it qualifies.
 */
TEST(lsys_solve_matches_scan)
{
	static uint8_t hit[16384];
	struct rp_hash_lin lin;
	uint32_t rnd = 12345;
	long solved = 0, empty = 0;
	struct rp_addr s, d;

	memset(&lin, 0, sizeof(lin));
	for (int trial = 0; trial < 300; trial++) {
		struct rp_hash_model m[3];
		struct rp_hash_ctx c[3];
		struct lhop l[3];
		struct lsys sys = { 0 };
		unsigned int g[3], want[3], nscan = 0, nsol = 0;
		uint32_t p0, freem;
		bool ok = true;
		int nh;

		uint32_t a = lcg(&rnd), b = lcg(&rnd);

		nh = 1 + lcg(&rnd) % 3;
		rand_v4(&s, a);
		rand_v4(&d, b);
		p0 = lcg(&rnd) % 16384;
		for (int i = 0; i < nh; i++) {
			rand_lin_model(&rnd, &m[i]);
			g[i] = 1u << lcg(&rnd) % 6;
			want[i] = lcg(&rnd) % g[i];
			rp_hash_ctx_init(&c[i], &m[i], &s, &d, &lin);
			ASSERT_EQ(0, lhop_init(&l[i], &c[i], g[i]));
			ok = ok && lhop_want(&sys, &l[i], want[i]);
		}
		for (uint32_t x = 0; x < 16384; x++) {
			bool match = true;

			for (int i = 0; i < nh && match; i++)
				match = rp_hash_member(&m[i], &s, &d, 0xC000 | x,
						       g[i]) == (int)want[i];
			hit[x] = match;
			nscan += match;
		}
		if (!ok) {
			ASSERT_EQ(0, nscan);
			empty++;
			continue;
		}
		freem = ~(uint32_t)sys.pivots & 0x3FFF;
		ASSERT_EQ(1u << (14 - sys.n), nscan);
		for (uint32_t k = 0; k < 1u << (14 - sys.n); k++) {
			uint32_t x = lsys_solve(&sys, (p0 & freem) ^ deposit(k, freem));

			ASSERT_LT(x, 16384);
			if (!k && hit[p0])
				ASSERT_EQ(p0, x);
			/* each accepted port once: clear it */
			ASSERT_EQ(1, hit[x]);
			hit[x] = 0;
			nsol++;
		}
		ASSERT_EQ(nscan, nsol);
		solved++;
	}
	rp_hash_lin_free(&lin);
	TH_LOG("%ld systems solved, %ld proven empty", solved, empty);
	ASSERT_GT(solved, 100);
}

/* A measured table maps sport to member; missing ports are unusable. */
/*
 * lin_paths()' forms (plan_lsys.h, lform) against adding each hop's
 * equations to the system in turn (lhop_want()): random chains of up to
 * four hops (every linear algorithm and select, random seeds and
 * addresses, groups of 1 to 16), every combination of members. A form
 * built once per chain's rows serves every member and address: its word
 * says consistent exactly when the system is, and then holds the same
 * rows, pivots and right-hand side.
 */
TEST(lform_matches_want)
{
	struct rp_hash_lin lin;
	uint32_t rnd = 4242;
	long held = 0, combos = 0;

	memset(&lin, 0, sizeof(lin));
	for (int trial = 0; trial < 200; trial++) {
		struct rp_hash_model m[4];
		struct rp_hash_ctx c[4];
		struct lhop l[4];
		struct lform f[4];
		const struct lsys empty = { 0 };
		struct rp_addr s, d;
		uint32_t a = lcg(&rnd), b = lcg(&rnd), total = 1;
		int nh = 1 + lcg(&rnd) % 4;

		rand_v4(&s, a);
		rand_v4(&d, b);
		for (int i = 0; i < nh; i++) {
			rand_lin_model(&rnd, &m[i]);
			rp_hash_ctx_init(&c[i], &m[i], &s, &d, &lin);
			ASSERT_EQ(0, lhop_init(&l[i], &c[i], 1u << lcg(&rnd) % 5));
			lform_init(&f[i], i ? &f[i - 1].s : &empty, l[i].row,
				   l[i].k);
			total <<= l[i].k;
		}
		for (uint32_t combo = 0; combo < total; combo++) {
			struct lsys sys = { 0 };
			uint32_t rest = combo, r = 0;
			bool ok = true, fok = true;

			for (int i = 0; i < nh && fok; i++) {
				uint32_t want = rest & ((1u << l[i].k) - 1);
				uint64_t x = lform_word(&f[i], r, l[i].m0);

				rest >>= l[i].k;
				ok = ok && lhop_want(&sys, &l[i], want);
				for (uint32_t mm = 1; mm <= want; mm++)
					x = lform_next(&f[i], x, mm);
				fok = lform_holds(x);
				r = (uint16_t)x;
			}
			ASSERT_EQ(ok, fok);
			combos++;
			if (!ok)
				continue;
			ASSERT_EQ(sys.n, f[nh - 1].s.n);
			ASSERT_EQ(sys.pivots, f[nh - 1].s.pivots);
			ASSERT_EQ(sys.rhs, r);
			ASSERT_EQ(0, memcmp(sys.row, f[nh - 1].s.row,
					    sys.n * sizeof(*sys.row)));
			ASSERT_EQ(0, memcmp(sys.piv, f[nh - 1].s.piv, sys.n));
			held++;
		}
	}
	rp_hash_lin_free(&lin);
	TH_LOG("%ld of %ld member combinations consistent", held, combos);
}

/*
 * rp_hash_ctx_init_like(), which the port walker uses for an aim's
 * switches of one model family: from a context of another seed
 * and select (or another algorithm, which takes the full init), for every
 * linear algorithm, field layout and family, the context gives the
 * members whole-input hashing gives, and its base and input are those of
 * rp_hash_ctx_init().
 */
TEST(ctx_like_matches_init)
{
	struct rp_hash_lin lin;
	struct rp_addr s, d;
	uint32_t rnd = 777;
	long checked = 0;

	memset(&lin, 0, sizeof(lin));
	for (int trial = 0; trial < 400; trial++) {
		uint32_t a = lcg(&rnd), b = lcg(&rnd);
		size_t l = lcg(&rnd) % NLAYS;
		struct rp_hash_model m0 = {
			.alg = lin_algs[lcg(&rnd) % NLIN_ALGS],
			.sel = lcg(&rnd) % 3, .seed = lcg(&rnd) * 2654435761u,
			.nfields = lays[l].n,
		};
		struct rp_hash_model m = m0;
		struct rp_hash_ctx c0, c, ref;

		if (trial & 1) {
			rand_v4(&s, a);
			rand_v4(&d, b);
		} else {
			memset(&s, 0, sizeof(s));
			s.family = AF_INET6;
			s.raw[0] = 0x20;
			s.raw[15] = a;
			d = s;
			d.raw[14] = b;
		}
		memcpy(m0.fields, lays[l].f, sizeof(lays[l].f));
		memcpy(m.fields, lays[l].f, sizeof(lays[l].f));
		m.sel = lcg(&rnd) % 3;
		m.seed = lcg(&rnd) * 2246822519u;
		if (trial % 5 == 0)
			m.alg = lin_algs[lcg(&rnd) % NLIN_ALGS];
		rp_hash_ctx_init(&c0, &m0, &s, &d, &lin);
		rp_hash_ctx_init_like(&c, &m, &s, &d, &lin, &c0);
		rp_hash_ctx_init(&ref, &m, &s, &d, &lin);
		ASSERT_TRUE(c.lin);
		ASSERT_EQ(ref.base, c.base);
		ASSERT_EQ(ref.len, c.len);
		ASSERT_EQ(ref.nsport, c.nsport);
		ASSERT_EQ(0, memcmp(ref.buf, c.buf, ref.len));
		for (int p = 0; p < 65536; p += 1 + (p & 7)) {
			int64_t v = rp_hash_value(&m, &s, &d, p);

			ASSERT_EQ((int)(v % 65521),
				  rp_hash_ctx_member(&c, p, 65521));
			ASSERT_EQ((int)(v & 15), rp_hash_ctx_member(&c, p, 16));
			checked++;
		}
	}
	ASSERT_GT(checked, 1000000);
	rp_hash_lin_free(&lin);
}

TEST(table_model)
{
	int32_t table[65536];
	struct rp_hash_model m = { .alg = RP_HASH_TABLE, .table = table };
	struct rp_addr s, d;

	memset(table, 0xFF, sizeof(table));
	table[49152] = 2;
	table[49153] = 5;
	v4(&s, 10, 0, 0, 1);
	v4(&d, 10, 0, 1, 1);
	ASSERT_EQ(2, rp_hash_member(&m, &s, &d, 49152, 4));
	ASSERT_EQ(1, rp_hash_member(&m, &s, &d, 49153, 4));
	ASSERT_EQ(-1, rp_hash_member(&m, &s, &d, 49154, 4));
}

/* Names parse; unknown names are rejected. */
TEST(names)
{
	enum rp_hash_alg a;
	enum rp_hash_sel s;
	enum rp_hash_field f;

	ASSERT_EQ(0, rp_hash_alg_parse("crc16-ccitt", &a));
	ASSERT_EQ(RP_HASH_CRC16_CCITT, a);
	ASSERT_EQ(0, rp_hash_alg_parse("crc32c", &a));
	ASSERT_EQ(RP_HASH_CRC32C, a);
	ASSERT_EQ(-EINVAL, rp_hash_alg_parse("md5", &a));
	ASSERT_EQ(0, rp_hash_sel_parse("hi16", &s));
	ASSERT_EQ(RP_SEL_HI16, s);
	ASSERT_EQ(-EINVAL, rp_hash_sel_parse("mid16", &s));
	ASSERT_EQ(0, rp_hash_field_parse("dst_port", &f));
	ASSERT_EQ(RP_F_DST_PORT, f);
	ASSERT_EQ(-EINVAL, rp_hash_field_parse("vlan", &f));
}

/* rdma_flow_label_to_udp_sport(rdma_calc_flow_label(l, r)), as Linux. */
TEST(qpn_default_sport)
{
	/* 17 * 17 = 289 = 0x121 */
	ASSERT_EQ(0xC121, rp_qpn_sport(17, 17));
	/* symmetric in the QPNs */
	ASSERT_EQ(rp_qpn_sport(0x1234, 0x99), rp_qpn_sport(0x99, 0x1234));
	/* v = 0x100000: fl_high 0x100000 & 0xFC000 = 0 after >> 20 fold:
	 * v ^= v >> 20 -> 0x100001, & 0xFFFFF = 1 -> 0xC001 */
	ASSERT_EQ(0xC001, rp_qpn_sport(0x400, 0x400));
	/* v = 0x4000: fl_low 0, fl_high 0x4000 >> 14 = 1 -> 0xC001 */
	ASSERT_EQ(0xC001, rp_qpn_sport(0x80, 0x80));
	for (uint32_t q = 1; q < 5000; q += 37)
		ASSERT_GE(rp_qpn_sport(q, q + 1), 0xC000);
}

TEST_HARNESS_MAIN
