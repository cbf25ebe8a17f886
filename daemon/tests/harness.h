/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's kselftest harness, as the unit tests include it.
 *
 * The harness gives each TEST() 30 s (alarm()), a figure for a test alone
 * on a machine. make check runs these tests under valgrind at nice 19,
 * beside the VM tests that keep the cores busy, where a test of 10 s can
 * take several times that without being stuck: a TEST fails on time only
 * after 300 s.
 */
#ifndef ROCEPATH_TESTS_HARNESS_H
#define ROCEPATH_TESTS_HARNESS_H

/* kselftest_harness.h is not -Wextra clean. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

/* TEST() expands it where a test is defined, after this point. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#endif
