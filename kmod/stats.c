// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: per-CPU counters of the pinning hook, summed on read
 * (stats-get, nl_stats.c, reports them with every table's size and limits).
 */
#include <linux/percpu.h>

#include "stats.h"

struct rocepath_pcpu_stats __percpu *rocepath_stats;

u64 rocepath_stat_read(enum rocepath_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rocepath_stats, cpu)->v[s]);
	return sum;
}

int rocepath_stats_init(void)
{
	rocepath_stats = alloc_percpu(struct rocepath_pcpu_stats);
	return rocepath_stats ? 0 : -ENOMEM;
}

void rocepath_stats_exit(void)
{
	free_percpu(rocepath_stats);
	rocepath_stats = NULL;
}
