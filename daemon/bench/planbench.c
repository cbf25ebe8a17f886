// SPDX-License-Identifier: GPL-2.0
/*
 * planbench: time and measure the planner on a topology and placement.
 *
 *   planbench TOPOLOGY PLACEMENT [LINK_GBPS [BYTES_PER_CONN]]
 *   planbench run COMMAND [ARG...]
 *   planbench stable TOPOLOGY BEFORE AFTER
 *
 * Prints one line of "key=value" pairs: parse, plan and output time (CPU
 * seconds of this process, one thread; output = the -j plan written to
 * /dev/null), peak RSS, the summary, and the max-min fair completion time
 * of the collectives for the plan, ECMP on default ports and
 * destination-slice pinning.
 *
 * "run" runs COMMAND with its standard output on /dev/null and prints its
 * wall_s, cpu_s (user + system) and maxrss_mib: the end-to-end figures of
 * a whole command, without depending on time(1).
 *
 * "stable" plans placement BEFORE, then AFTER (one job more or less) both
 * from scratch and as a stable re-plan of BEFORE, and prints the flows the
 * two placements share (common), how many keep their port in each case
 * (same_plain, same_stable), both max link loads and the re-plan's time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"
#include "plan_fair.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(char **argv)
{
	struct rusage ru;
	double w0 = wall();
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "planbench: %s failed\n", argv[0]);
		return 1;
	}
	printf("wall_s=%.3f cpu_s=%.3f maxrss_mib=%.1f\n", wall() - w0,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       ru.ru_maxrss / 1024.0);
	return 0;
}

static int stable(char **argv)
{
	struct rp_plan *before = NULL, *plain = NULL, *st = NULL;
	struct rp_place *pb = NULL, *pa = NULL;
	unsigned int common, same_plain, same_stable;
	struct rp_topo *t = NULL;
	struct rp_err err;
	char buf[1200];
	double t0, t1;
	int ret;

	ret = rp_topo_load(argv[0], &t, &err);
	if (!ret)
		ret = rp_place_load(argv[1], t, &pb, &err);
	if (!ret)
		ret = rp_place_load(argv[2], t, &pa, &err);
	if (!ret)
		ret = rp_plan_compute(t, pb, &before, &err);
	if (!ret)
		ret = rp_plan_compute(t, pa, &plain, &err);
	t0 = now();
	if (!ret)
		ret = rp_plan_compute_stable(t, pa, before, &st, &err);
	t1 = now();
	if (!ret)
		ret = rp_plan_stability(before, plain, &common, &same_plain);
	if (!ret)
		ret = rp_plan_stability(before, st, &common, &same_stable);
	if (ret) {
		fprintf(stderr, "planbench: %s\n", err.msg[0] ?
			rp_err_str(&err, buf, sizeof(buf)) : "stability failed");
		return 1;
	}
	printf("common=%u same_plain=%u same_stable=%u max_plain=%u "
	       "max_stable=%u lb=%u replan_s=%.3f\n", common, same_plain,
	       same_stable, rp_plan_summary(plain)->max_link_flows,
	       rp_plan_summary(st)->max_link_flows,
	       rp_plan_summary(st)->lower_bound, t1 - t0);
	rp_plan_free(st);
	rp_plan_free(plain);
	rp_plan_free(before);
	rp_place_free(pa);
	rp_place_free(pb);
	rp_topo_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	double gbps = argc > 3 ? atof(argv[3]) : 400;
	double bytes = argc > 4 ? atof(argv[4]) : 1 << 30;
	double t0, t1, t2, t3, tp, te, ts;
	const struct rp_plan_summary *s;
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	struct rp_plan *plan;
	struct rusage ru;
	struct rp_err err;
	char buf[1200];
	int ret;

	FILE *null;

	if (argc > 2 && !strcmp(argv[1], "run"))
		return run(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "stable"))
		return stable(argv + 2);
	if (argc < 3) {
		fprintf(stderr, "usage: %s TOPOLOGY PLACEMENT [GBPS [BYTES]]\n"
			"       %s run COMMAND [ARG...]\n", argv[0], argv[0]);
		return 2;
	}
	t0 = now();
	ret = rp_topo_load(argv[1], &t, &err);
	if (!ret)
		ret = rp_place_load(argv[2], t, &p, &err);
	t1 = now();
	if (!ret)
		ret = rp_plan_compute(t, p, &plan, &err);
	t2 = now();
	if (ret) {
		fprintf(stderr, "planbench: %s\n",
			rp_err_str(&err, buf, sizeof(buf)));
		return 1;
	}
	null = fopen("/dev/null", "w");
	if (!null || rp_plan_write(plan, NULL, RP_PLAN_JSON, null)) {
		fprintf(stderr, "planbench: writing the plan failed\n");
		return 1;
	}
	fclose(null);
	t3 = now();
	getrusage(RUSAGE_SELF, &ru);
	s = rp_plan_summary(plan);
	if (rp_plan_fair_time(plan, RP_MODE_PLAN, gbps, bytes, &tp) ||
	    rp_plan_fair_time(plan, RP_MODE_ECMP, gbps, bytes, &te) ||
	    rp_plan_fair_time(plan, RP_MODE_SLICE, gbps, bytes, &ts)) {
		fprintf(stderr, "planbench: fair-share model failed\n");
		return 1;
	}
	printf("parse_s=%.3f plan_s=%.3f out_s=%.3f maxrss_mib=%.1f flows=%u unplaced=%u "
	       "max=%u lb=%u ecmp=%u slice=%u t_plan_ms=%.2f t_ecmp_ms=%.2f "
	       "t_slice_ms=%.2f\n",
	       t1 - t0, t2 - t1, t3 - t2, ru.ru_maxrss / 1024.0, s->flows, s->unplaced,
	       s->max_link_flows, s->lower_bound, s->ecmp_max_link_flows,
	       s->slice_max_link_flows, tp * 1e3, te * 1e3, ts * 1e3);
	rp_plan_free(plan);
	rp_place_free(p);
	rp_topo_free(t);
	return 0;
}
