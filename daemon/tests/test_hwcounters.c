// SPDX-License-Identifier: GPL-2.0
/* Proves a port's hardware counters are read from the core's sysfs copies: sorted, lifespan skipped, no directory no counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#include "hwcounters.h"
#include "test_files.h"

static void rm_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

TEST(read_sorted_without_lifespan)
{
	char root[] = "/tmp/rp-hwc-XXXXXX", dir[256], cmd[300];
	struct rp_dev d = { .port = 1 };

	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/rxe0/ports/1/hw_counters", root);
	snprintf(d.ibdev, sizeof(d.ibdev), "rxe0");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	ASSERT_EQ(0, system(cmd));
	test_put_file(dir, "rcvd_pkts", "7\n", 0644);
	test_put_file(dir, "ack_deferred", "18446744073709551615\n", 0644);
	test_put_file(dir, "lifespan", "10\n", 0644);
	ASSERT_EQ(0, rp_dev_hw_counters(&d, root));
	ASSERT_EQ(2, d.ncounters);
	EXPECT_STREQ("ack_deferred", d.counters[0].name);
	EXPECT_EQ(UINT64_MAX, d.counters[0].value);
	EXPECT_STREQ("rcvd_pkts", d.counters[1].name);
	EXPECT_EQ(7, d.counters[1].value);
	rp_dev_release(&d);
	rm_tree(root);
}

TEST(no_directory_no_counters)
{
	struct rp_dev d = { .port = 9 };

	snprintf(d.ibdev, sizeof(d.ibdev), "nosuchdev");
	ASSERT_EQ(0, rp_dev_hw_counters(&d, "/tmp/rp-hwc-does-not-exist"));
	EXPECT_EQ(0, d.ncounters);
	EXPECT_EQ(NULL, d.counters);
}

TEST_HARNESS_MAIN
