/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linear systems over GF(2) in a source port's low 14 bits: the members a
 * linear hash (plan_hash.h, rp_hash_ctx_lin()) gives are equations in the
 * port's bits, which the port search (plan_ports.c) and the port walker
 * (plan_reach.c) solve instead of trying ports (planner.rst, "Ports").
 */
#ifndef ROCEPATH_PLAN_LSYS_H
#define ROCEPATH_PLAN_LSYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "plan.h"
#include "plan_hash.h"

#define RP_SPORT_BITS	14	/* ports are RP_SPORT_MIN | x, x < 2^14 */

/*
 * A linear system over the port's low 14 bits, in reduced row echelon
 * form: row i has its pivot bit piv[i] and no other row has that bit,
 * and its right-hand side in bit i of rhs (so that lsym_member() flips
 * them all at once).
 */
struct lsys {
	int n;
	uint16_t row[RP_SPORT_BITS], pivots, rhs;
	uint8_t piv[RP_SPORT_BITS];
};

/* Adds <row, x> = rhs; false if the system becomes inconsistent. */
static inline bool lsys_add(struct lsys *s, uint16_t row, int rhs)
{
	int p;

	for (int i = 0; i < s->n; i++)
		if (row >> s->piv[i] & 1) {
			row ^= s->row[i];
			rhs ^= s->rhs >> i & 1;
		}
	if (!row)
		return !rhs;
	p = __builtin_ctz(row);
	for (int i = 0; i < s->n; i++)
		if (s->row[i] >> p & 1) {
			s->row[i] ^= row;
			s->rhs ^= (uint16_t)(rhs << i);
		}
	s->row[s->n] = row;
	s->rhs |= (uint16_t)(rhs << s->n);
	s->piv[s->n++] = p;
	s->pivots |= 1u << p;
	return true;
}

/* 1 when row i of s does not hold on x: <row, x> differs from its rhs. */
static inline uint32_t lsys_row_off(const struct lsys *s, int i, uint32_t x)
{
	return (uint32_t)(s->rhs >> i ^ __builtin_parity(s->row[i] & x)) & 1;
}

/* The solution whose free bits are free (pivot bits of free ignored). */
static inline uint32_t lsys_solve(const struct lsys *s, uint32_t free)
{
	uint32_t x = free & ~(uint32_t)s->pivots & ((1u << RP_SPORT_BITS) - 1);

	for (int i = 0; i < s->n; i++)
		x |= lsys_row_off(s, i, x) << s->piv[i];
	return x;
}

/* Scatters the low bits of v over the set bits of mask. */
static inline uint32_t deposit(uint32_t v, uint32_t mask)
{
	uint32_t x = 0;

	for (uint32_t m = mask; m && v; m &= m - 1, v >>= 1)
		if (v & 1)
			x |= m & -m;
	return x;
}

/*
 * One hop's member as equations: the hop's group of n members is solved
 * when k >= 0 (k = log2(n); 0 also for a group without a choice), member
 * m being <row[b], x> = ((m ^ m0) >> b) & 1 for b < k.
 */
struct lhop {
	int k;
	uint32_t m0;
	uint16_t row[32];
};

/* The k rows of a hop's equations: row b has bit j where column j has b. */
static inline void lhop_rows(uint16_t *row, int k, const uint32_t *col)
{
	memset(row, 0, k * sizeof(*row));
	for (int j = 0; j < RP_SPORT_BITS; j++)
		for (uint32_t c = col[j]; c; c &= c - 1)
			row[__builtin_ctz(c)] |= (uint16_t)(1u << j);
}

/* Fills l for context c and a group of n; -1 (l->k too) when unsolvable. */
static inline int lhop_init(struct lhop *l, const struct rp_hash_ctx *c,
			    int n)
{
	uint32_t col[RP_SPORT_BITS];

	l->k = 0;
	l->m0 = 0;
	if (n <= 1)
		return 0;
	l->k = rp_hash_ctx_lin(c, RP_SPORT_MIN, RP_SPORT_BITS, n, &l->m0,
			       col);
	if (l->k < 0)
		return -1;
	lhop_rows(l->row, l->k, col);
	return 0;
}

/* l's m0 for context c, whose rows are those l was built with; -1 if not. */
static inline int lhop_rebase(struct lhop *l, const struct rp_hash_ctx *c,
			      int n)
{
	l->m0 = 0;
	if (n <= 1)
		return 0;
	return rp_hash_ctx_lin(c, RP_SPORT_MIN, 0, n, &l->m0, NULL) == l->k ?
	       0 : -1;
}

/*
 * A hop's equations kept from one context to the next: the port's terms
 * depend on the hash (algorithm, selection), the group and where the port
 * sits in the input, not on the addresses, which only move m0. Most
 * contexts see the same again (one switch's aims, or the same tier's hop
 * of a pair's flows), and only m0 is worked out anew.
 */
struct lhop_memo {
	struct lhop lh;		/* lh.k < 0: nothing kept */
	int n;
	enum rp_hash_alg alg;
	enum rp_hash_sel sel;
	size_t len, off[RP_HASH_MAX_FIELDS];
	unsigned int ns;
};

/* Whether m's rows hold for context c and a group of n. */
static inline bool lhop_memo_same(const struct lhop_memo *m,
				  const struct rp_hash_ctx *c, int n)
{
	if (m->lh.k < 0 || m->n != n)
		return false;
	/* no choice: no rows, and c may not be set up */
	if (n <= 1)
		return true;
	return m->alg == c->m->alg && m->sel == c->m->sel && m->len == c->len &&
	       m->ns == c->nsport &&
	       !memcmp(m->off, c->sport_off, c->nsport * sizeof(*m->off));
}

/* lhop_init() through m: NULL when unsolvable. */
static inline const struct lhop *lhop_memo_get(struct lhop_memo *m,
					       const struct rp_hash_ctx *c,
					       int n)
{
	if (lhop_memo_same(m, c, n) && !lhop_rebase(&m->lh, c, n))
		return &m->lh;
	if (lhop_init(&m->lh, c, n)) {
		m->lh.k = -1;
		return NULL;
	}
	m->n = n;
	if (n <= 1)
		return &m->lh;
	m->alg = c->m->alg;
	m->sel = c->m->sel;
	m->len = c->len;
	m->ns = c->nsport;
	memcpy(m->off, c->sport_off, c->nsport * sizeof(*m->off));
	return &m->lh;
}

/* Adds "the hop gives member m" to s; false if inconsistent. */
static inline bool lhop_want(struct lsys *s, const struct lhop *l, int m)
{
	for (int b = 0; b < l->k; b++)
		if (!lsys_add(s, l->row[b], ((uint32_t)m ^ l->m0) >> b & 1))
			return false;
	return true;
}

/*
 * A hop's equations added to a system once for all its members: each rhs
 * is c ^ <y, m> for member m (y: the member bits it depends on), and rows
 * that cancel out leave conditions on m alone. Every member then costs a
 * few parities instead of its own k additions (the row operations do not
 * depend on the rhs, so the systems are the same as lhop_want()'s).
 */
struct lsym {
	struct lsys s;			/* rhs at m = 0 */
	uint32_t ry[RP_SPORT_BITS];	/* rhs bits' dependence on m */
	uint16_t fy[32];		/* the same by m's bit: rows it flips */
	int nz;
	uint32_t zy[32];		/* conditions <zy, m> = zc */
	uint8_t zc[32];
	bool none;			/* no member is consistent */
};

static inline void lsym_add(struct lsym *t, uint16_t row, int c, uint32_t y)
{
	struct lsys *s = &t->s;
	int p;

	for (int i = 0; i < s->n; i++)
		if (row >> s->piv[i] & 1) {
			row ^= s->row[i];
			c ^= s->rhs >> i & 1;
			y ^= t->ry[i];
		}
	if (!row) {
		if (y) {
			t->zy[t->nz] = y;
			t->zc[t->nz++] = c;
		} else if (c) {
			t->none = true;
		}
		return;
	}
	p = __builtin_ctz(row);
	for (int i = 0; i < s->n; i++)
		if (s->row[i] >> p & 1) {
			s->row[i] ^= row;
			s->rhs ^= (uint16_t)(c << i);
			t->ry[i] ^= y;
		}
	s->row[s->n] = row;
	s->rhs |= (uint16_t)(c << s->n);
	t->ry[s->n] = y;
	s->piv[s->n++] = p;
	s->pivots |= 1u << p;
}

/* t's rows by member bit (fy[]) from its member bits by row (ry[]). */
static inline void lsym_flips(struct lsym *t)
{
	memset(t->fy, 0, sizeof(t->fy));
	for (int i = 0; i < t->s.n; i++)
		for (uint32_t y = t->ry[i]; y; y &= y - 1)
			t->fy[__builtin_ctz(y)] |= (uint16_t)(1u << i);
}

/* lhop_want() of member m: false if inconsistent, else *out the system. */
static inline bool lsym_member(const struct lsym *t, uint32_t m,
			       struct lsys *out)
{
	if (t->none)
		return false;
	for (int z = 0; z < t->nz; z++)
		if ((__builtin_parity(t->zy[z] & m) ^ t->zc[z]) & 1)
			return false;
	*out = t->s;
	for (; m; m &= m - 1)
		out->rhs ^= t->fy[__builtin_ctz(m)];
	return true;
}

/*
 * lsym's reduction with the system's right-hand sides left open too: the
 * row operations that add a hop's equations to a system depend only on
 * the rows (the system's and the hop's), which a walker's aims meet again
 * and again (one leaf model, a few spine and superspine ones), while the
 * addresses only move the system's rhs and the hop's m0. Each rhs bit of
 * the result, and each condition (a hop row that reduces to nothing), is
 * the parity of some bits of the system's rhs and of the member's m ^ m0:
 * a word holds the result's rhs in its low bits and the conditions'
 * values from bit LFORM_ZBIT on (all clear: the member is consistent),
 * and bit j of the system's rhs flips fs[j] in it, bit b of m ^ m0 fm[b].
 * A system and m0 then cost a few XORs, and each member one more.
 */
#define LFORM_ZBIT	16	/* > the rhs bits (RP_SPORT_BITS rows at most) */

struct lform {
	struct lsys s;			/* the result's rows (rhs 0) */
	int k;				/* the hop's rows */
	uint64_t fs[RP_SPORT_BITS];
	uint64_t fm[32];
	uint64_t fstep[32];		/* fm[0] ^ .. ^ fm[b]: m - 1 to m */
};

/* f's word bit bit is the parity of bits y of in's rhs | m ^ m0 << 14. */
static inline void lform_spread(struct lform *f, uint64_t y, uint64_t bit)
{
	for (; y; y &= y - 1) {
		int j = __builtin_ctzll(y);

		if (j < RP_SPORT_BITS)
			f->fs[j] |= bit;
		else
			f->fm[j - RP_SPORT_BITS] |= bit;
	}
}

/* f for hop rows row[0..k) added to the rows of in (its rhs ignored). */
static inline void lform_init(struct lform *f, const struct lsys *in,
			      const uint16_t *row, int k)
{
	/* d[i], z[]: bits of in's rhs | m ^ m0 << RP_SPORT_BITS */
	uint64_t d[RP_SPORT_BITS], z[32], acc = 0;
	struct lsys *s = &f->s;
	int nz = 0;

	*s = *in;
	s->rhs = 0;
	for (int i = 0; i < s->n; i++)
		d[i] = 1ull << i;
	for (int b = 0; b < k; b++) {
		uint64_t y = 1ull << (RP_SPORT_BITS + b);
		uint16_t r = row[b];
		int p;

		for (int i = 0; i < s->n; i++)
			if (r >> s->piv[i] & 1) {
				r ^= s->row[i];
				y ^= d[i];
			}
		if (!r) {
			z[nz++] = y;
			continue;
		}
		p = __builtin_ctz(r);
		for (int i = 0; i < s->n; i++)
			if (s->row[i] >> p & 1) {
				s->row[i] ^= r;
				d[i] ^= y;
			}
		s->row[s->n] = r;
		d[s->n] = y;
		s->piv[s->n++] = p;
		s->pivots |= 1u << p;
	}
	f->k = k;
	memset(f->fs, 0, sizeof(f->fs));
	memset(f->fm, 0, k * sizeof(*f->fm));
	for (int i = 0; i < s->n; i++)
		lform_spread(f, d[i], 1ull << i);
	for (int i = 0; i < nz; i++)
		lform_spread(f, z[i], 1ull << (LFORM_ZBIT + i));
	for (int b = 0; b < k; b++)
		f->fstep[b] = acc ^= f->fm[b];
}

/* Member 0's word for a system with rhs r and a hop with m0. */
static inline uint64_t lform_word(const struct lform *f, uint32_t r,
				  uint32_t m0)
{
	uint64_t x = 0;

	for (; r; r &= r - 1)
		x ^= f->fs[__builtin_ctz(r)];
	for (; m0; m0 &= m0 - 1)
		x ^= f->fm[__builtin_ctz(m0)];
	return x;
}

/* Member m's word from member m - 1's (0 < m < 2^k). */
static inline uint64_t lform_next(const struct lform *f, uint64_t x,
				  uint32_t m)
{
	return x ^ f->fstep[__builtin_ctz(m)];
}

/* Whether word x's member is consistent; its system is f's rows, rhs x. */
static inline bool lform_holds(uint64_t x)
{
	return !(x >> LFORM_ZBIT);
}

/*
 * Equations <row[j], x> = bit j of an open y (n <= 32), reduced once and
 * kept: a caller that sees the same rows again with other right-hand
 * sides (the hops of a pair's flows) pays for a copy and an XOR per set
 * bit of y instead of the row operations.
 */
struct lsys_memo {
	int n;			/* -1: nothing kept */
	uint16_t row[32];
	struct lsym t;
};

/*
 * The system the equations make, as lsys_add() of each in turn would
 * make it; false if they are inconsistent.
 */
static inline bool lsys_memo_get(struct lsys_memo *m, const uint16_t *row,
				 int n, uint32_t y, struct lsys *out)
{
	if (m->n != n || memcmp(m->row, row, n * sizeof(*row))) {
		m->n = n;
		memcpy(m->row, row, n * sizeof(*row));
		memset(&m->t.s, 0, sizeof(m->t.s));
		m->t.nz = 0;
		m->t.none = false;
		for (int j = 0; j < n; j++)
			lsym_add(&m->t, row[j], 0, 1u << j);
		lsym_flips(&m->t);
	}
	return lsym_member(&m->t, y, out);
}

#endif /* ROCEPATH_PLAN_LSYS_H */
