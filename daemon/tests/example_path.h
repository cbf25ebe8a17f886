/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests: files under examples/, found next to the binary's tree. */
#ifndef ROCEPATH_TEST_EXAMPLE_PATH_H
#define ROCEPATH_TEST_EXAMPLE_PATH_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* examples/DIR/FILE from tests/bin/../../..: the tree the binary was built in */
static inline void rp_test_example(char *buf, size_t len, const char *dir,
				   const char *file)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(buf, len, "%s/../../../examples/%s/%s", exe, dir, file);
}

#endif /* ROCEPATH_TEST_EXAMPLE_PATH_H */
