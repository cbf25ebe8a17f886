/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: per-CPU counters of the pinning hook.
 */
#ifndef _ROCEPATH_STATS_H
#define _ROCEPATH_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum rocepath_stat {
	ROCEPATH_STAT_HOOK_CALLS,
	ROCEPATH_STAT_QPS_SEEN,
	ROCEPATH_STAT_QPS_PINNED,
	ROCEPATH_STAT_QPS_SKIPPED,
	ROCEPATH_STAT_RULE_MISSES,
	ROCEPATH_STAT_FL_OVERRIDDEN,
	ROCEPATH_STAT_QPS_UNTRACKED,
	ROCEPATH_STAT_QPS_ROLLED_BACK,
	ROCEPATH_STAT_HOOK_MISSED,
	ROCEPATH_STAT_VERDICTS_INFERRED,
	ROCEPATH_STAT_MAX,
};

struct rocepath_pcpu_stats {
	u64 v[ROCEPATH_STAT_MAX];
};

extern struct rocepath_pcpu_stats __percpu *rocepath_stats;

static inline void rocepath_stat_inc(enum rocepath_stat s)
{
	this_cpu_inc(rocepath_stats->v[s]);
}

int rocepath_stats_init(void);
void rocepath_stats_exit(void);
u64 rocepath_stat_read(enum rocepath_stat s);

#endif /* _ROCEPATH_STATS_H */
