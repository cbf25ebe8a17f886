/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: return probes on the RDMA core's modify-QP and destroy-QP paths.
 */
#ifndef _ROCEPATH_QP_PROBE_H
#define _ROCEPATH_QP_PROBE_H

#include <linux/types.h>

struct rocepath_probe_stats {
	u32 slots;	/* calls watched at once, per probe */
	u32 missed;	/* calls not seen because every slot was in use */
};

int rocepath_qp_probe_init(void);
void rocepath_qp_probe_exit(void);
void rocepath_qp_probe_stats(struct rocepath_probe_stats *s);

#endif /* _ROCEPATH_QP_PROBE_H */
