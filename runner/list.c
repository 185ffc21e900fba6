/* list.c — `logt list` (the models and kernels with what each takes, the backends here, the
 * experiments) and `logt info` (the machine: GPU, driver, CUDA libraries, MPI). */
#include "list.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/ctx.h"
#include "../core/cuda.h"
#include "../models/kernels.h"
#include "../models/model.h"
#include "config.h"
#include "mpi_sweep.h"
#include "plot.h"
#include "run.h"
#include "util.h"

static const char *experiments_dir(char *buf, size_t n)
{
    struct stat sb;
    if (stat("experiments", &sb) == 0 && S_ISDIR(sb.st_mode)) return "experiments";
    char exe[PATH_MAX];
    logt_exe_dir(exe, sizeof exe);   /* build/bin -> the source tree */
    snprintf(buf, n, "%s/../../experiments", exe);
    if (stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode)) return buf;
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}


/* One model of `logt list`: its summary, then what it declares it takes (models/model.h). */
static void print_model(const logt_model_ops *m)
{
    char takes[160] = "";
    size_t used = 0;
    for (int d = LOGT_CPU; d <= LOGT_CUDA; d++) {
        if (!(m->devices & LOGT_BIT(d))) continue;
        used += (size_t)snprintf(takes + used, sizeof takes - used, "%s%s (", used ? ", " : "",
                                 logt_device_name((logt_device)d));
        int k = 0;
        for (int t = LOGT_F64; t < LOGT_NDTYPES; t++)
            if (m->dtypes[d] & LOGT_BIT(t) && used < sizeof takes)
                used += (size_t)snprintf(takes + used, sizeof takes - used, "%s%s", k++ ? " " : "",
                                         logt_dtype_name((logt_dtype)t));
        if (used < sizeof takes) used += (size_t)snprintf(takes + used, sizeof takes - used, ")");
    }
    char cells[96] = "";
    used = 0;
    for (int c = 0; m->cells && m->cells[c] && used < sizeof cells; c++)
        used += (size_t)snprintf(cells + used, sizeof cells - used, "%s%s", c ? " " : "", m->cells[c]);
    printf("  %-12s %s\n  %-12s %s; %s%s%s%s\n", m->name, m->summary ? m->summary : "", "", takes,
           m->heads ? "heads: head_dim divides D" : "one head", *cells ? "; cells: " : "", cells,
           m->segments ? "; segments: recompute, layers_wavefront" : "");
}

int logt_cmd_list(void)
{
    int cuda = logt_backend_available(LOGT_CUDA);
    printf("backends here: cpu, cuda %s\n\n",
#ifdef LOGT_HAVE_CUDA
           cuda ? "(available)" : "(not available: no GPU visible)"
#else
           "(not available: this build has no CUDA)"
#endif
    );
    (void)cuda;
    printf("models (what each takes: backends with their dtypes, heads, cells, and whether it runs\n"
           "in segments: the net's recompute and layers_wavefront, models/model.h):\n");
    for (int i = 0; i < logt_model_count(); i++) print_model(logt_model_at(i));
    printf("\nkernels (for kind = kernel experiments):\n");
    for (int i = 0; i < logt_kernel_count(); i++) {
        const logt_kernel *k = logt_kernel_at(i);
        char devs[32] = "";
        if (k->devices & (1u << LOGT_CPU)) strcat(devs, "cpu");
        if (k->devices & (1u << LOGT_CUDA)) strcat(devs, *devs ? ", cuda" : "cuda");
        printf("  %-14s %-10s %s\n", k->name, devs, k->summary);
    }
    char buf[PATH_MAX + 32];
    const char *dir = experiments_dir(buf, sizeof buf);
    if (!dir) {
        printf("\nno experiments/ directory here\n");
        return 0;
    }
    printf("\nexperiments (in %s):\n", dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256)
        if (de->d_name[0] != '.') names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 300], ini[PATH_MAX + 320];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(ini, sizeof ini, "%s/experiment.ini", path);
        if (!names[i] || stat(ini, &sb) != 0) {
            free(names[i]);
            continue;
        }
        logt_experiment *e;
        if (logt_exp_parse(path, NULL, 0, &e) != LOGT_OK) {
            printf("  %-16s (invalid: %s)\n", names[i], logt_user_msg());
        } else {
            const char *b = logt_exp_backend(e);
            if (logt_exp_resolve(e, !strcmp(b, "cuda") ? LOGT_CUDA : LOGT_CPU) != LOGT_OK) {
                printf("  %-16s (invalid: %s)\n", names[i], logt_user_msg());
            } else {
                char kinds[32] = "", models[256];
                for (int k = 0; k < e->nkinds; k++) {
                    if (k) strcat(kinds, ",");
                    strcat(kinds, logt_kind_names[e->kinds[k]]);
                }
                logt_list_join(&e->models, ",", models, sizeof models);
                printf("  %-16s %-11s backend %-4s  %s\n  %-16s %s\n", names[i], kinds, b,
                       models, "", e->description);
            }
            logt_exp_free(e);
        }
        free(names[i]);
    }
    return 0;
}

int logt_cmd_info(void)
{
    char commit[128], host[256], cpu[256];
    logt_git_commit(commit, sizeof commit);
    logt_hostname(host, sizeof host);
    logt_cpu_name(cpu, sizeof cpu);
    printf("logt %s (commit %s)\n", LOGT_VERSION, commit);
    printf("host:    %s\n", host);
    printf("cpu:     %s, %ld cores\n", cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("gnuplot: %s\n", logt_gnuplot_found() ? "found" : "missing (install gnuplot-nox)");
    char mpi[512];
    logt_mpi_describe(mpi, sizeof mpi);
    printf("mpi:     %s\n", mpi);
#ifdef LOGT_HAVE_CUDA
    int n = logt_cuda_device_count();
    if (n == 0) {
        printf("cuda:    built with CUDA, but no GPU is visible (no driver or no device)\n");
        return 0;
    }
    logt_device_info i;
    if (logt_cuda_info(&i) != LOGT_OK) {
        fprintf(stderr, "logt: error: %s\n", logt_user_msg());
        return 1;
    }
    logt_device_desc d;
    logt_describe_device(LOGT_CUDA, &d);
    printf("gpu:     %s (%d visible), compute capability %d.%d\n", i.name, n, i.cc_major, i.cc_minor);
    printf("         %d SMs, L2 %.1f MiB, memory %.1f GiB (%.1f GiB free)\n", i.sm_count,
           i.l2_bytes / 1048576.0, i.mem_total / 1073741824.0, i.mem_free / 1073741824.0);
    printf("         shared memory per block (opt-in) %zu KiB, %d registers per SM\n",
           i.smem_optin_per_block / 1024, i.regs_per_sm);
    printf("driver:  CUDA %s (%d)\n", d.driver, i.driver_version);
    printf("runtime: CUDA %s (%d)\n", d.runtime, i.runtime_version);
    printf("cuDNN:   %s (%zu)\n", d.cudnn, i.cudnn_version);
    printf("cuBLAS:  %s (%d)\n", d.cublas, i.cublas_version);
#else
    printf("cuda:    this build has no CUDA (nvcc was not found at build time): cpu backend only\n");
#endif
    return 0;
}
