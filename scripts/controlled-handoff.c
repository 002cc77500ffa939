// One hand-off of the controlled scheduler's run token, alone: two threads
// pass the token back and forth through the scheduler's own batons
// (stress_baton_pass / stress_baton_wait from Sources/CStressSupport), with
// the spin budget the scheduler would use, and nothing else. Built and run
// by scripts/controlled-speed.sh; prints ns a hand-off.
//
//   controlled-handoff HANDOFFS SPINS [YIELDS]
#include "CStressSupport.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static stress_baton batons[2];
static volatile int token;  // who holds the run token (0 or 1)
static long handoffs;
static int spins, yields;

static void *player(void *arg) {
    int me = (int)(long)arg;
    for (long i = me; i < handoffs; i += 2) {
        while (__atomic_load_n(&token, __ATOMIC_ACQUIRE) != me) {
            uint32_t seen = stress_baton_turn(&batons[me]);
            if (__atomic_load_n(&token, __ATOMIC_ACQUIRE) == me) break;
            stress_baton_wait(&batons[me], seen, spins, yields);
        }
        __atomic_store_n(&token, 1 - me, __ATOMIC_RELEASE);
        stress_baton_pass(&batons[1 - me]);
    }
    return NULL;
}

int main(int argc, char **argv) {
    handoffs = argc > 1 ? atol(argv[1]) : 1000000;
    spins = argc > 2 ? atoi(argv[2]) : 2000;
    yields = argc > 3 ? atoi(argv[3]) : 0;
    struct timespec t0, t1;
    pthread_t a, b;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_create(&a, NULL, player, (void *)0L);
    pthread_create(&b, NULL, player, (void *)1L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    printf("%ld hand-offs, spins %d, yields %d: %.0f ns a hand-off\n", handoffs, spins, yields, ns / handoffs);
    return 0;
}
