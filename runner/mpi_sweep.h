/* mpi_sweep.h — what `logt run EXP --mpi` needs of MPI: under `mpirun -np N`, rank r runs
 * shard r/N of the sweep and rank 0 merges the shards (the flow is in main.c).
 *
 * Built with Open MPI when the Makefile finds it (pkg-config ompi-c), the way the
 * cuda backend is built when it finds nvcc; without it logt_mpi_start fails saying
 * so and how to get it, and nothing else here is called.
 */
#ifndef LOGT_RUNNER_MPI_SWEEP_H
#define LOGT_RUNNER_MPI_SWEEP_H

#include <stddef.h>

#include "../core/status.h"

typedef struct logt_mpi {
    int rank, size;               /* in MPI_COMM_WORLD                                  */
    int local_rank, local_size;   /* among the ranks on this machine                    */
    char host[256];
    char gpu[64];                 /* CUDA_VISIBLE_DEVICES as set for this rank, "" when
                                   * left as it was                                     */
} logt_mpi;

/* MPI_Init, the rank's place, and its GPU: ranks on one machine take its GPUs in turn
 * (local rank modulo their number; from CUDA_VISIBLE_DEVICES when it lists several,
 * else the GPUs of /proc/driver/nvidia/gpus), so that two ranks' speed runs do not
 * share one. Call it before anything asks CUDA about devices. */
logt_status logt_mpi_start(logt_mpi *m);
/* A collective: every rank passes its own ok, every rank gets 1 when all were 1. */
int logt_mpi_all(int ok);
void logt_mpi_end(void);
/* "Open MPI v4.1.4, ..." or why there is none, for `logt info`. */
void logt_mpi_describe(char *buf, size_t n);

#endif
