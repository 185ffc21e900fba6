/* mpi_sweep.c — MPI for `logt run --mpi` (see mpi_sweep.h): start, agree, end.
 *
 * Only the main thread calls MPI (the runner's fill threads never do), so the library
 * is asked for MPI_THREAD_FUNNELED. Communication errors keep MPI's default handler,
 * which ends the whole job: a rank that cannot talk to the others has nothing to add.
 */
#include "mpi_sweep.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#ifdef LOGT_HAVE_MPI
#include <mpi.h>

/* GPUs the NVIDIA driver lists, 0 when it lists none (or there is no driver). */
static int driver_gpus(void)
{
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d) return 0;
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

static void pick_gpu(logt_mpi *m)
{
    if (m->local_size < 2) return;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char pick[64] = "";
    if (visible && *visible) {
        logt_list l;
        if (logt_list_split(visible, ',', &l) != LOGT_OK || l.n < 2) return;   /* set for this rank */
        logt_strlcpy(pick, sizeof pick, l.v[m->local_rank % l.n]);
    } else {
        int n = driver_gpus();
        if (n < 2) return;
        snprintf(pick, sizeof pick, "%d", m->local_rank % n);
    }
    setenv("CUDA_VISIBLE_DEVICES", pick, 1);
    logt_strlcpy(m->gpu, sizeof m->gpu, pick);
}

/* The launcher's node-local rank and size (Open MPI's mpirun, MPICH's Hydra), known before
 * MPI_Init: 1 when found. */
static int local_rank_from_env(int *rank, int *size)
{
    static const char *const pairs[][2] = {{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                                           {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const char *r = getenv(pairs[i][0]), *n = getenv(pairs[i][1]);
        if (r && n && *r && *n) {
            *rank = atoi(r), *size = atoi(n);
            return *size > 0 && *rank >= 0 && *rank < *size;
        }
    }
    return 0;
}

logt_status logt_mpi_start(logt_mpi *m)
{
    memset(m, 0, sizeof *m);
    int provided, len;
    /* The GPU first where the launcher says the node-local rank: a CUDA-aware MPI may set up
     * CUDA inside MPI_Init, after which CUDA_VISIBLE_DEVICES is no longer read */
    const int early = local_rank_from_env(&m->local_rank, &m->local_size);
    if (early) pick_gpu(m);
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return LOGT_USER_FAIL(LOGT_EUNSUPPORTED, "MPI_Init failed: start logt with mpirun -np N");
    MPI_Comm local;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &m->local_rank);
    MPI_Comm_size(local, &m->local_size);
    MPI_Comm_free(&local);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    logt_strlcpy(m->host, sizeof m->host, host);
    if (!early) pick_gpu(m);
    return LOGT_OK;
}

int logt_mpi_all(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

void logt_mpi_end(void) { MPI_Finalize(); }

void logt_mpi_describe(char *buf, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n")] = '\0';
    snprintf(buf, n, "%s (logt run --mpi)", v);
}

#else

logt_status logt_mpi_start(logt_mpi *m)
{
    memset(m, 0, sizeof *m);
    return LOGT_USER_FAIL(LOGT_EUNSUPPORTED,
                          "this logt was built without MPI, so --mpi is not available. HINT: install "
                          "Open MPI (apt-get install libopenmpi-dev openmpi-bin; `make deps` does) "
                          "and rebuild (make clean && make); or run the shards without MPI: `logt "
                          "run EXP --shard I/N` for I = 0 .. N-1, then `logt merge`");
}

int logt_mpi_all(int ok) { return ok; }

void logt_mpi_end(void) {}

void logt_mpi_describe(char *buf, size_t n)
{
    snprintf(buf, n, "this build has no MPI (Open MPI was not found at build time): no --mpi");
}

#endif
