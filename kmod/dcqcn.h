/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: DCQCN parameters per RDMA device and the software reaction
 * point rate state used on soft-RoCE (rxe).
 */
#ifndef _ROCEPATH_DCQCN_H
#define _ROCEPATH_DCQCN_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

/* enum rocepath_dcqcn_param and the defaults, generated from the spec */
#include "dcqcn-gen.h"

/**
 * struct rocepath_dcqcn_dev - DCQCN parameters of one RDMA device
 * @ibdev: the device
 * @soft: 1 for rxe, where the module's NP and RP run
 * @link_mbps: speed of the net device under a soft-RoCE device, Mb/s, 0
 *	if unknown; read by @link_work, which may take RTNL (the packet path
 *	cannot)
 * @link_work: reads @link_mbps when the device appears and on dcqcn set
 * @p: parameters, read locklessly with READ_ONCE(), written under the
 *	device registry's lock
 *
 * Part of the device's registry entry (dev.c), which lives as long as the
 * device is registered and is freed after an RCU grace period.
 */
struct rocepath_dcqcn_dev {
	struct ib_device *ibdev;
	bool soft;
	u32 link_mbps;
	struct work_struct link_work;
	u32 p[ROCEPATH_DCQCN_NPARAMS];
};

static inline u32 rocepath_dcqcn_param(const struct rocepath_dcqcn_dev *dd,
				       enum rocepath_dcqcn_param i)
{
	return READ_ONCE(dd->p[i]);
}

/**
 * struct rocepath_rpt - reaction point state of one flow (rates in kbit/s)
 * @lock: serializes CNP handling, increases and pacing
 * @rc: current rate
 * @rt: target rate
 * @alpha: congestion estimate, 0..1024 (1024 = 1.0)
 * @t_stage: timer-triggered increase events since the last decrease
 * @b_stage: byte-triggered increase events since the last decrease
 * @bytes: bytes sent since the last byte event
 * @t_inc: time of the last timer event (ns)
 * @t_alpha: time of the last alpha update (ns)
 * @t_dec: time of the last rate decrease (ns)
 * @t_cnp: time of the last CNP (ns)
 * @next_tx: earliest departure time of the next packet (ns)
 * @meas_t: start of the current send-rate window (ns)
 * @meas_bytes: bytes sent in the current window
 * @meas_rate: send rate over the last complete window (kbit/s), 0 if none
 * @meas_end: end of that window (ns)
 * @cnp_seen: a CNP arrived since the state was created
 */
struct rocepath_rpt {
	spinlock_t lock;	/* serializes the whole state */
	u32 rc;
	u32 rt;
	u32 alpha;
	u16 t_stage;
	u16 b_stage;
	u32 bytes;
	u64 t_inc;
	u64 t_alpha;
	u64 t_dec;
	u64 t_cnp;
	u64 next_tx;
	u64 meas_t;
	u64 meas_bytes;
	u32 meas_rate;
	u64 meas_end;
	u64 t_last;		/* latest time any caller brought */
	bool cnp_seen;
};

void rocepath_dcqcn_dev_stop(struct rocepath_dcqcn_dev *dd);
void rocepath_dcqcn_link_changed(struct rocepath_dcqcn_dev *dd);
void rocepath_dcqcn_dev_init(struct rocepath_dcqcn_dev *dd,
			     struct ib_device *ibdev);
/* The net device under a soft-RoCE device, held, or NULL. */
struct net_device *rocepath_dcqcn_netdev(const struct rocepath_dcqcn_dev *dd);
/* Every transmit queue of @ndev ends in fq, which honours EDT stamps. */
bool rocepath_dcqcn_fq_ok(struct net_device *ndev);

u32 rocepath_rpt_ceiling(const struct rocepath_dcqcn_dev *dd);
void rocepath_rpt_init(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		       u64 now);
void rocepath_rpt_cnp(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		      u64 now);
u32 rocepath_rpt_rate(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		      u64 now, u32 *alpha);
u64 rocepath_rpt_tx(struct rocepath_rpt *rpt, const struct rocepath_dcqcn_dev *dd,
		    u64 now, unsigned int len);

#endif /* _ROCEPATH_DCQCN_H */
