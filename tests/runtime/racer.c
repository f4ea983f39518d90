/* SPDX-License-Identifier: MIT */
/* The racer of tests/sh/runtime-race.sh: another session's process that
 * swaps two names in a directory it may write (renameat2 RENAME_EXCHANGE,
 * atomic), for at most SECONDS seconds or until killed.  With DWELL
 * (microseconds), each state is kept for a random time up to DWELL, so
 * that a state lasts across a whole step of a launch; without, it swaps
 * as fast as it can.
 * Usage: racer DIR NAME1 NAME2 SECONDS [DWELL] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: racer DIR NAME1 NAME2 SECONDS [DWELL]\n");
        return 2;
    }
    int dfd = open(argv[1], O_PATH | O_DIRECTORY);
    if (dfd < 0) {
        perror(argv[1]);
        return 1;
    }
    time_t end = time(NULL) + atoi(argv[4]);
    long dwell = argc == 6 ? atol(argv[5]) : 0;
    srand((unsigned)getpid());
    for (unsigned long n = 0;; n++) {
        if (syscall(SYS_renameat2, dfd, argv[2], dfd, argv[3],
                    RENAME_EXCHANGE) < 0) {
            perror("renameat2");
            return 1;
        }
        if (dwell > 0)
            usleep((useconds_t)(rand() % dwell));
        if ((dwell > 0 || (n & 1023) == 0) && time(NULL) >= end)
            return 0;
    }
}
