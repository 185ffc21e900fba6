/* peer.c — a peer adapter as a subprocess: its own process group (so that a timeout or a
 * Ctrl-C of the sweep kills the builds it started too), the request written to its stdin,
 * its stdout read whole, its stderr's tail kept for the message of a failure.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "run_internal.h"

#define STDERR_KEEP 1500   /* bytes of the adapter's stderr kept for a failure's message */

static const char *peers_dir(void)
{
    const char *d = getenv("LOGT_PEERS");
    return d && *d ? d : "peers";
}

static const char *python(void)
{
    const char *p = getenv("LOGT_PYTHON");
    return p && *p ? p : "python3";
}

const char *logt_peer_of(const char *model)
{
    const size_t n = strlen(LOGT_PEER_PREFIX);
    return strncmp(model, LOGT_PEER_PREFIX, n) ? NULL : model + n;
}

void logt_peer_names(char *buf, size_t n)
{
    buf[0] = '\0';
    DIR *d = opendir(peers_dir());
    if (!d) return;
    size_t used = 0;
    for (struct dirent *e; (e = readdir(d)) && used < n;) {
        const size_t len = strlen(e->d_name);
        /* adapters are NAME.py with a '-' or no '_' (common.py, torch_util.py are helpers) */
        if (len < 4 || strcmp(e->d_name + len - 3, ".py") || strchr(e->d_name, '_') ||
            !strcmp(e->d_name, "common.py"))
            continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? ", " : "", (int)(len - 3),
                                 e->d_name);
    }
    closedir(d);
}

logt_status logt_peer_check(const char *model)
{
    const char *name = logt_peer_of(model);
    if (!name) return LOGT_USER_FAIL(LOGT_EINVAL, "'%s' is not a peer (peer:NAME)", model);
    int word = *name != '\0';
    for (const char *p = name; *p; p++)
        word &= (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-';
    char path[1024], known[512];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s.py", peers_dir(), name);
    if (word && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) return LOGT_OK;
    logt_peer_names(known, sizeof known);
    return LOGT_USER_FAIL(LOGT_EINVAL,
                          "unknown peer '%s': no adapter %s (adapters in %s/: %s). HINT: run from "
                          "the repository's root, or set LOGT_PEERS to its peers folder",
                          model, path, peers_dir(), *known ? known : "none");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Grow *buf by what fd has; 0 at EOF, 1 when more may come. keep > 0: only the last keep
 * bytes stay. */
static int drain(int fd, char **buf, size_t *len, size_t *cap, size_t keep)
{
    char chunk[4096];
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0) return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (got == 0) return 0;
    if (*len + (size_t)got + 1 > *cap) {
        size_t c = *cap ? *cap : 8192;
        while (*len + (size_t)got + 1 > c) c *= 2;
        char *grown = realloc(*buf, c);
        if (!grown) return 0;
        *buf = grown, *cap = c;
    }
    memcpy(*buf + *len, chunk, (size_t)got);
    *len += (size_t)got;
    if (keep && *len > 2 * keep) {
        memmove(*buf, *buf + *len - keep, keep);
        *len = keep;
    }
    (*buf)[*len] = '\0';
    return 1;
}

/* The stderr tail for a message: its last lines, on one line. */
static void tail_of(const char *err, size_t len, char *out, size_t n)
{
    const char *p = len > 600 ? err + len - 600 : err;
    size_t w = 0;
    for (; *p && w + 1 < n; p++) out[w++] = *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p;
    while (w > 0 && out[w - 1] == ' ') w--;
    out[w] = '\0';
}

/* The adapter's answer, already read, into out. */
static void read_reply(const char *name, const char *text, int wstatus, const char *tail,
                       logt_peer_reply *out)
{
    json_object o;
    char err[160];
    out->outcome = PEER_FAIL;
    if (!text || json_parse_object(text, &o, err, sizeof err)) {
        snprintf(out->message, sizeof out->message,
                 "peer:%s printed no JSON response (%s; exit status %d)%s%s", name,
                 text && *text ? err : "nothing on stdout",
                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus),
                 *tail ? "; its stderr ends: " : "", tail);
        return;
    }
    const json_value *ok = json_get(&o, "ok"), *skip = json_get(&o, "skip"),
                     *msg = json_get(&o, "message"), *v;
    if (!ok || ok->type != JSON_BOOL) {
        snprintf(out->message, sizeof out->message, "peer:%s: its response has no \"ok\": true or false",
                 name);
    } else if (!ok->b) {
        out->outcome = skip && skip->type == JSON_BOOL && skip->b ? PEER_SKIP : PEER_FAIL;
        /* a failure keeps the end of the adapter's stderr: its traceback says why */
        const int with_tail = out->outcome == PEER_FAIL && *tail;
        snprintf(out->message, sizeof out->message, "peer:%s: %s%s%s", name,
                 msg && msg->type == JSON_STRING ? msg->str : "failed, and said nothing more",
                 with_tail ? "; its stderr ends: " : "", with_tail ? tail : "");
    } else {
        out->outcome = PEER_OK;
        if ((v = json_get(&o, "version")) && v->type == JSON_STRING)
            snprintf(out->version, sizeof out->version, "%s", v->str);
        if ((v = json_get(&o, "impl")) && v->type == JSON_STRING)
            snprintf(out->impl, sizeof out->impl, "%s", v->str);
        if ((v = json_get(&o, "peak_mem_bytes")) && v->type == JSON_NUMBER)
            out->peak_mem_bytes = (int64_t)v->num;
        const struct { const char *key; double **dst; int *n; } arrays[] = {
            {"times_ms", &out->times_ms, &out->ntimes}, {"copy_ms", &out->copy_ms, &out->ncopy}};
        for (size_t i = 0; i < 2; i++)
            if ((v = json_get(&o, arrays[i].key)) && v->type == JSON_NUMBERS && v->n > 0) {
                *arrays[i].dst = malloc((size_t)v->n * sizeof(double));
                if (*arrays[i].dst) memcpy(*arrays[i].dst, v->nums, (size_t)v->n * sizeof(double));
                *arrays[i].n = *arrays[i].dst ? v->n : 0;
            }
    }
    json_free(&o);
}

/* The child: stdin, stdout, stderr from the pipes, its own process group, the adapter. */
static void child(const char *script, int in, int outw, int errw)
{
    setpgid(0, 0);
    dup2(in, 0), dup2(outw, 1), dup2(errw, 2);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    execlp(python(), python(), script, (char *)NULL);
    dprintf(2, "logt-peer-exec-failed: %s", strerror(errno));
    _exit(127);
}

logt_status logt_peer_call(const char *name, const char *request, logt_peer_reply *out)
{
    memset(out, 0, sizeof *out);
    out->peak_mem_bytes = -1;
    char script[1024];
    snprintf(script, sizeof script, "%s/%s.py", peers_dir(), name);
    snprintf(out->command, sizeof out->command, "%s %s", python(), script);
    const char *t = getenv("LOGT_PEER_TIMEOUT_S");
    const double limit = t && atof(t) > 0 ? atof(t) : 3600;
    int in[2] = {-1, -1}, o[2] = {-1, -1}, e[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(o, O_CLOEXEC) || pipe2(e, O_CLOEXEC)) {
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0) close(in[i]);
            if (o[i] >= 0) close(o[i]);
            if (e[i] >= 0) close(e[i]);
        }
        return LOGT_FAIL(LOGT_EIO, "cannot make pipes for peer:%s: %s", name, strerror(errno));
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) child(script, in[0], o[1], e[1]);
    close(in[0]), close(o[1]), close(e[1]);
    if (pid < 0) {
        close(in[1]), close(o[0]), close(e[0]);
        return LOGT_FAIL(LOGT_EIO, "cannot start peer:%s: %s", name, strerror(errno));
    }
    setpgid(pid, pid);   /* both sides, so that it holds whichever runs first */
    /* The request is small (under a pipe's buffer): written whole, then EOF. */
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    const size_t n = strlen(request);
    for (size_t w = 0; w < n;) {
        const ssize_t k = write(in[1], request + w, n - w);
        if (k <= 0 && errno != EINTR) break;
        if (k > 0) w += (size_t)k;
    }
    close(in[1]);
    signal(SIGPIPE, old_pipe);

    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, ocap = 0, elen = 0, ecap = 0;
    int open_o = 1, open_e = 1, timed_out = 0, stopped = 0;
    const double t0 = now_s();
    while (open_o || open_e) {
        struct pollfd p[2] = {{open_o ? o[0] : -1, POLLIN, 0}, {open_e ? e[0] : -1, POLLIN, 0}};
        const int r = poll(p, 2, 200);
        if (r > 0) {
            if (p[0].revents) open_o = drain(o[0], &obuf, &olen, &ocap, 0);
            if (p[1].revents) open_e = drain(e[0], &ebuf, &elen, &ecap, STDERR_KEEP);
        }
        if (run_stop_requested) stopped = 1;
        else if (now_s() - t0 > limit) timed_out = 1;
        if (stopped || timed_out) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
    }
    close(o[0]), close(e[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    char tail[640] = "";
    if (ebuf) tail_of(ebuf, elen, tail, sizeof tail);
    if (stopped) {
        out->outcome = PEER_INTERRUPTED;
        snprintf(out->message, sizeof out->message, "peer:%s stopped by a signal", name);
    } else if (timed_out) {
        out->outcome = PEER_FAIL;
        snprintf(out->message, sizeof out->message,
                 "peer:%s gave no answer in %.0f s and was killed (LOGT_PEER_TIMEOUT_S sets the "
                 "limit)%s%s", name, limit, *tail ? "; its stderr ends: " : "", tail);
    } else if (ebuf && strstr(ebuf, "logt-peer-exec-failed")) {
        out->outcome = PEER_SKIP;
        snprintf(out->message, sizeof out->message,
                 "peer:%s: cannot run %s (%s): install Python 3 (apt-get install python3), or set "
                 "LOGT_PYTHON to an interpreter", name, python(),
                 strstr(ebuf, "logt-peer-exec-failed: ") + strlen("logt-peer-exec-failed: "));
    } else {
        read_reply(name, obuf, wstatus, tail, out);
    }
    free(obuf), free(ebuf);
    return LOGT_OK;
}

void logt_peer_reply_free(logt_peer_reply *r)
{
    free(r->times_ms), free(r->copy_ms);
    r->times_ms = r->copy_ms = NULL;
    r->ntimes = r->ncopy = 0;
}
