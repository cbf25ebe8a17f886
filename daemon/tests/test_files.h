/* SPDX-License-Identifier: GPL-2.0 */
/* Scratch files for unit tests that read a directory tree. */
#ifndef RP_TEST_FILES_H
#define RP_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* DIR/NAME holds TEXT with permissions MODE; aborts the test on failure. */
static inline void test_put_file(const char *dir, const char *name,
				 const char *text, int mode)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

#endif
