/* SPDX-License-Identifier: MIT */
/* The single Check runner: every suite of tests/unit/ (see Makefile). */
#include <check.h>
#include <stdlib.h>

extern Suite *(*const cp_test_suites[])(void);

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; cp_test_suites[i]; i++)
        srunner_add_suite(sr, cp_test_suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
