/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: kprobes on the RDMA core's modify-QP and destroy-QP paths.
 */
#ifndef _ROCEPATH_HOOK_H
#define _ROCEPATH_HOOK_H

#include <linux/types.h>

/**
 * struct rocepath_hook_stats - counters of the modify-QP return probe
 * @rollback_missed: modify calls whose return could not be watched
 * @rollback_slots: modify calls watched at once (kretprobe maxactive)
 */
struct rocepath_hook_stats {
	u64 rollback_missed;
	u32 rollback_slots;
};

int rocepath_hook_init(void);
void rocepath_hook_exit(void);
void rocepath_hook_get_stats(struct rocepath_hook_stats *s);

#endif /* _ROCEPATH_HOOK_H */
