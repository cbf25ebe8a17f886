// SPDX-License-Identifier: GPL-2.0
/*
 * MPI_Allreduce as a training job's gradient exchange does it, for the
 * mpi_allreduce selftest: ITERS rounds of a sum over COUNT 64-bit
 * integers, each checked against the closed form, with PAUSE_MS between
 * rounds so that the test can act (rmmod) while the job runs.
 * Rank 0 prints "round N ok" after each round (the test waits on these)
 * and "sums ok ROUNDS" at the end; any wrong element fails the job.
 * With HOLD_FILE the ITERS rounds are those after HOLD_FILE appears: the
 * job runs until the test has done what it must do while the job runs,
 * however long that takes (rmmod on a debug kernel outlasted 13 rounds).
 * Rank 0 looks for the file before each round and tells the others.
 *
 * Usage: mpi_allreduce ITERS COUNT PAUSE_MS [HOLD_FILE]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long arg(char **argv, int i, long lo, long hi)
{
	char *end;
	long v = strtol(argv[i], &end, 10);

	if (*argv[i] == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "mpi_allreduce: argument %d must be %ld..%ld\n", i, lo, hi);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int rank, size, bad = 0, go;
	long iters, count, pause_ms, it, done = 0;
	const char *hold;
	int64_t *in, *out;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4 && argc != 5) {
		if (!rank)
			fprintf(stderr, "usage: mpi_allreduce ITERS COUNT PAUSE_MS [HOLD_FILE]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	iters = arg(argv, 1, 1, 1000000);
	count = arg(argv, 2, 1, 1 << 24);
	pause_ms = arg(argv, 3, 0, 60000);
	hold = argc == 5 ? argv[4] : NULL;
	go = !hold;
	in = malloc(count * sizeof(*in));
	out = malloc(count * sizeof(*out));
	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 3);

	for (it = 0; done < iters && !bad; it++) {
		const struct timespec ts = {
			.tv_sec = pause_ms / 1000, .tv_nsec = pause_ms % 1000 * 1000000,
		};

		if (!go) {
			go = !rank && access(hold, F_OK) == 0;
			MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
		done += go;

		/* Rank r gives r + 1 + it + j: the sum is size * (size + 1) / 2 + size * (it + j). */
		for (long j = 0; j < count; j++)
			in[j] = rank + 1 + it + j;
		if (MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 4);
		for (long j = 0; j < count && !bad; j++) {
			int64_t want = (int64_t)size * (size + 1) / 2 + (int64_t)size * (it + j);

			if (out[j] != want) {
				fprintf(stderr, "rank %d round %ld: element %ld is %lld, not %lld\n",
					rank, it, j, (long long)out[j], (long long)want);
				bad = 1;
			}
		}
		MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		if (!rank && !bad) {
			printf("round %ld ok\n", it + 1);
			fflush(stdout);
		}
		if (pause_ms)
			nanosleep(&ts, NULL);
	}
	if (!rank && !bad)
		printf("sums ok %ld rounds of %ld on %d ranks\n", it, count, size);
	free(in);
	free(out);
	MPI_Finalize();
	return bad;
}
