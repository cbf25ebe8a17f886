// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: DCQCN reaction point rate state (Zhu et al., SIGCOMM 2015),
 * driven by mlx5's cc_params. Rates are kept in kbit/s, alpha in 1/1024.
 *
 * Time-driven events (alpha decay every rp_dce_tcp_rtt, rate increase
 * every rp_time_reset) are evaluated lazily when a packet leaves or a CNP
 * arrives, so no timer runs per flow.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>

#include "dcqcn.h"

static unsigned int rp_line_rate_mbps = 10000;
module_param(rp_line_rate_mbps, uint, 0644);
MODULE_PARM_DESC(rp_line_rate_mbps,
		 "Rate ceiling of the soft-RoCE reaction point when rp_max_rate is 0 and the net device reports no speed, Mb/s (default 10000)");

static unsigned int rp_rate_floor_kbps = 100;
module_param(rp_rate_floor_kbps, uint, 0644);
MODULE_PARM_DESC(rp_rate_floor_kbps,
		 "Lowest rate the soft-RoCE reaction point paces to, kb/s, also when rp_min_rate is 0 (default 100)");

/*
 * Earliest-departure stamps are at most this far ahead of now, and the
 * pacing debt never grows past it: a QP whose packets sat in fq longer
 * than its RC timeout would retransmit, and fq drops stamps beyond its
 * horizon (10 s by default), so an unbounded debt at a low rate leaves
 * the QP unable to send at all. Keep it below the QPs' RC timeout
 * (4.096 us x 2^timeout; 4.3 s at ib_write_bw -u 20).
 */
static unsigned int rp_pace_max_delay_ms = 2000;
module_param(rp_pace_max_delay_ms, uint, 0644);
MODULE_PARM_DESC(rp_pace_max_delay_ms,
		 "Furthest a paced packet is stamped ahead, ms, at most 5000 (default 2000)");

/*
 * A CNP cuts from the flow's measured send rate when that is below the
 * current rate: a soft-RoCE flow sends far below the nominal ceiling, and
 * cutting from the ceiling leaves a rate the flow never reaches, so the
 * reaction point would never slow it down.
 */
static unsigned int rp_rate_window_ms = 20;
module_param(rp_rate_window_ms, uint, 0644);
MODULE_PARM_DESC(rp_rate_window_ms,
		 "Window over which a flow's send rate is measured, ms, 1..1000 (default 20)");

#define RPT_PACE_DELAY_LIMIT_MS	5000U	/* half of fq's default horizon */
#define RPT_RATE_WINDOW_LIMIT_MS	1000U
#define RPT_MAX_STEPS	64	/* increase events evaluated per packet */
#define ALPHA_ONE	1024

u32 rocepath_rpt_ceiling(const struct rocepath_dcqcn_dev *dd)
{
	u32 max = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_MAX_RATE);

	if (!max)
		max = READ_ONCE(dd->link_mbps);
	if (!max)
		max = READ_ONCE(rp_line_rate_mbps) ?: 10000;
	return min_t(u64, (u64)max * 1000, U32_MAX);
}

static u32 rpt_floor(const struct rocepath_dcqcn_dev *dd)
{
	u32 min = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_MIN_RATE) * 1000;

	return max3(min, READ_ONCE(rp_rate_floor_kbps), 1U);
}

void rocepath_rpt_init(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		       u64 now)
{
	spin_lock_init(&rpt->lock);
	rpt->rc = rocepath_rpt_ceiling(dd);
	rpt->rt = rpt->rc;
	rpt->alpha = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_INITIAL_ALPHA_VALUE);
	rpt->t_inc = now;
	rpt->t_alpha = now;
	rpt->next_tx = now;
	rpt->meas_t = now;
	rpt->t_last = now;
}

/*
 * Callers read the clock before they take the lock, so one CPU can arrive
 * with an earlier time than the last holder stored: the state never goes
 * back in time, or "now - then" would wrap.
 */
static u64 rpt_now(struct rocepath_rpt *rpt, u64 now)
{
	if (now < rpt->t_last)
		return rpt->t_last;
	rpt->t_last = now;
	return now;
}

static u64 rpt_window(void)
{
	return (u64)clamp(READ_ONCE(rp_rate_window_ms), 1U, RPT_RATE_WINDOW_LIMIT_MS) *
	       NSEC_PER_MSEC;
}

/* Count @len bytes sent at @now into the send-rate measurement. */
static void rpt_measure(struct rocepath_rpt *rpt, u64 now, unsigned int len)
{
	u64 win = rpt_window(), el;

	rpt->meas_bytes += len;
	el = now - rpt->meas_t;
	if (el < win)
		return;
	/*
	 * A window stretched by an idle gap says nothing about the rate the
	 * flow sends at once it sends again: drop it.
	 */
	if (el <= 2 * win) {
		/* bytes * 8 bit over el ns, in kbit/s */
		u64 kbps = div64_u64(rpt->meas_bytes * 8 * NSEC_PER_MSEC, el);

		rpt->meas_rate = min_t(u64, kbps, U32_MAX) ?: 1;
	} else {
		rpt->meas_rate = 0;
	}
	rpt->meas_end = now;
	rpt->meas_t = now;
	rpt->meas_bytes = 0;
}

/* The rate a cut starts from: the current one, or the measured one if lower and recent. */
static void rpt_cut_from_measured(struct rocepath_rpt *rpt, u64 now)
{
	if (rpt->meas_rate && now - rpt->meas_end <= 2 * rpt_window() &&
	    rpt->meas_rate < rpt->rc)
		rpt->rc = rpt->meas_rate;
}

/* (m / 1024)^n in 1/1024, by squaring */
static u32 alpha_pow(u32 m, u64 n)
{
	u32 r = ALPHA_ONE;

	while (n && r) {
		if (n & 1)
			r = (r * m) >> 10;
		m = (m * m) >> 10;
		n >>= 1;
	}
	return r;
}

/* One recovery event, timer- or byte-triggered. */
static void rpt_increase(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
			 bool timer)
{
	u32 thr = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_THRESHOLD);
	u32 ceil = rocepath_rpt_ceiling(dd);
	u64 rt = rpt->rt;

	if (timer)
		rpt->t_stage = min_t(u32, rpt->t_stage + 1, U16_MAX);
	else
		rpt->b_stage = min_t(u32, rpt->b_stage + 1, U16_MAX);

	if (max(rpt->t_stage, rpt->b_stage) < thr) {
		/* fast recovery: towards the target */
	} else if (min(rpt->t_stage, rpt->b_stage) >= thr) {
		/* hyper increase */
		rt += (u64)(min(rpt->t_stage, rpt->b_stage) - thr + 1) *
		      rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_HAI_RATE) * 1000;
	} else {
		/* additive increase */
		rt += (u64)rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_AI_RATE) * 1000;
	}
	rpt->rt = min_t(u64, rt, ceil);
	rpt->rc = min_t(u32, ((u64)rpt->rt + rpt->rc) / 2 + 1, ceil);
}

/* Run the time-driven events up to @now. */
static void rpt_advance(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
			u64 now)
{
	u32 ceil = rocepath_rpt_ceiling(dd);
	u64 period, n;
	int i;

	/* A lower ceiling (rp_max_rate set, link speed read) applies at once. */
	rpt->rc = min(rpt->rc, ceil);
	rpt->rt = min(rpt->rt, ceil);

	period = (u64)rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_DCE_TCP_RTT) * NSEC_PER_USEC;
	if (now > rpt->t_alpha + period) {
		u32 g = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_DCE_TCP_G);

		n = div64_u64(now - rpt->t_alpha, period);
		rpt->alpha = (rpt->alpha * alpha_pow(g, n)) >> 10;
		rpt->t_alpha += n * period;
	}

	period = (u64)rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_TIME_RESET) * NSEC_PER_USEC;
	if (now > rpt->t_inc + period) {
		n = div64_u64(now - rpt->t_inc, period);
		rpt->t_inc += n * period;
		if (rpt->rc >= ceil)
			return;
		for (i = 0; i < min_t(u64, n, RPT_MAX_STEPS); i++)
			rpt_increase(rpt, dd, true);
	}
}

void rocepath_rpt_cnp(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		      u64 now)
{
	u32 g = ALPHA_ONE - rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_DCE_TCP_G);
	u32 first = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP);
	u64 monitor = (u64)rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD) *
		      NSEC_PER_USEC;
	u32 fac = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_MIN_DEC_FAC);
	u32 gd = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_GD);
	u32 floor = min(rpt_floor(dd), rocepath_rpt_ceiling(dd));
	u64 rc, cut;

	spin_lock_bh(&rpt->lock);
	now = rpt_now(rpt, now);
	rpt_advance(rpt, dd, now);

	/* alpha = (1 - g) alpha + g */
	rpt->alpha = min_t(u32, (rpt->alpha * (ALPHA_ONE - g) + ALPHA_ONE * g) >> 10,
			   ALPHA_ONE);
	rpt->t_alpha = now;

	if (!rpt->cnp_seen && first) {
		rpt_cut_from_measured(rpt, now);
		rpt->rt = rpt->rc;
		rpt->rc = min_t(u64, (u64)first * 1000, rpt->rc);
		rpt->t_dec = now;
	} else if (!rpt->cnp_seen || now - rpt->t_dec >= monitor) {
		rpt_cut_from_measured(rpt, now);
		/*
		 * The target follows the current rate only if the rate grew
		 * since the last cut; with rp_clamp_tgt_rate_ati (mlx5's
		 * default) only growth by the timer counts, so byte-counter
		 * growth alone cannot ratchet the target down.
		 */
		if (!rpt->cnp_seen || rpt->t_stage ||
		    (rpt->b_stage &&
		     !rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_CLAMP_TGT_RATE_ATI)) ||
		    rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_CLAMP_TGT_RATE))
			rpt->rt = rpt->rc;
		/*
		 * Rc (1 - alpha / 2^gd), alpha in 1/1024; below gd 10 the cut
		 * can exceed Rc: it takes at most all of it
		 */
		cut = ((u64)rpt->rc * rpt->alpha) >> gd;
		rc = rpt->rc - min_t(u64, cut, rpt->rc);
		/* rp_min_dec_fac: one CNP keeps at least this percentage */
		rc = max_t(u64, rc, div_u64((u64)rpt->rc * fac, 100));
		rpt->rc = max_t(u64, rc, floor);
		rpt->t_dec = now;
	}
	rpt->rc = max(rpt->rc, floor);
	rpt->t_stage = 0;
	rpt->b_stage = 0;
	rpt->bytes = 0;
	rpt->t_inc = now;
	rpt->t_cnp = now;
	rpt->cnp_seen = true;
	spin_unlock_bh(&rpt->lock);
}

/* Current rate (kbit/s) and alpha, with the time-driven events run. */
u32 rocepath_rpt_rate(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		      u64 now, u32 *alpha)
{
	u32 rc;

	spin_lock_bh(&rpt->lock);
	now = rpt_now(rpt, now);
	rpt_advance(rpt, dd, now);
	rc = rpt->rc;
	*alpha = min(rpt->alpha, ALPHA_ONE - 1);
	spin_unlock_bh(&rpt->lock);
	return rc;
}

u64 rocepath_rpt_tx(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		    u64 now, unsigned int len)
{
	u32 breset = rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_BYTE_RESET);
	u64 t = 0;
	int i = 0;

	spin_lock_bh(&rpt->lock);
	now = rpt_now(rpt, now);
	rpt_advance(rpt, dd, now);
	rpt_measure(rpt, now, len);
	if (breset && rpt->rc < rocepath_rpt_ceiling(dd)) {
		rpt->bytes += len;
		while (rpt->bytes >= breset && i++ < RPT_MAX_STEPS) {
			rpt->bytes -= breset;
			rpt_increase(rpt, dd, false);
		}
		if (rpt->bytes >= breset)
			rpt->bytes = 0;
	}
	if (rpt->rc < rocepath_rpt_ceiling(dd)) {
		u64 limit = now + (u64)min(READ_ONCE(rp_pace_max_delay_ms),
					   RPT_PACE_DELAY_LIMIT_MS) * NSEC_PER_MSEC;

		/* never stamped, nor in debt, beyond the limit */
		t = clamp(rpt->next_tx, now, limit);
		/* len bytes at rc kbit/s take len * 8e6 / rc ns */
		rpt->next_tx = min(t + div_u64((u64)len * 8 * NSEC_PER_MSEC, rpt->rc),
				   limit);
	} else {
		rpt->next_tx = now;
	}
	spin_unlock_bh(&rpt->lock);
	return t;
}
