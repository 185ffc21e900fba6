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
#include <sys/prctl.h>
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
    int word = *name != '\0' && strcmp(name, "common");   /* common.py is the adapters' helper */
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

#define STDOUT_MAX (16u << 20)   /* an answer is a few kB: more is a runaway adapter */

/* Grow *buf by what fd has: 1 when more may come, 0 at EOF, -1 out of memory or past
 * STDOUT_MAX. keep > 0: only the last keep bytes stay. */
static int drain(int fd, char **buf, size_t *len, size_t *cap, size_t keep)
{
    char chunk[4096];
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0) return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (got == 0) return 0;
    if (!keep && *len + (size_t)got > STDOUT_MAX) return -1;
    if (*len + (size_t)got + 1 > *cap) {
        size_t c = *cap ? *cap : 8192;
        while (*len + (size_t)got + 1 > c) c *= 2;
        char *grown = realloc(*buf, c);
        if (!grown) return -1;
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

/* s cut back to whole UTF-8 characters: a sequence its end cut short goes (the messages are
 * stored as UTF-8 attributes). */
static void utf8_whole(char *s)
{
    size_t n = strlen(s), k = n;
    while (k > 0 && k + 4 > n && ((unsigned char)s[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0 && (unsigned char)s[k - 1] >= 0xC0) {   /* a lead byte: does its sequence fit? */
        const unsigned char c = (unsigned char)s[k - 1];
        const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (n - (k - 1) < need) s[k - 1] = '\0';
    }
}

/* The stderr tail for a message: its last lines, on one line. */
static void tail_of(const char *err, size_t len, char *out, size_t n)
{
    const char *p = len > 600 ? err + len - 600 : err;
    while (((unsigned char)*p & 0xC0) == 0x80) p++;   /* not inside a character */
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
    } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        snprintf(out->message, sizeof out->message, "peer:%s answered, then %s %d%s%s", name,
                 WIFEXITED(wstatus) ? "exited with status" : "was killed by signal",
                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus),
                 *tail ? "; its stderr ends: " : "", tail);
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

/* The child: stdin, stdout, stderr from the pipes, its own process group, killed with logt,
 * the adapter. Only async-signal-safe calls after fork (logt may have threads): argv is made
 * before, and exec's errno goes back through the close-on-exec pipe ef. */
static void child(char *const argv[], int in, int outw, int errw, int ef)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in, 0), dup2(outw, 1), dup2(errw, 2);
    execvp(argv[0], argv);
    const int err = errno;
    (void)!write(ef, &err, sizeof err);
    _exit(127);
}

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0) close(p[i]), p[i] = -1;
}

/* Has the child exited? Not reaped (WNOWAIT): its process id, the group's id, stays taken
 * until the group is killed. */
static int exited(pid_t pid)
{
    siginfo_t si = {0};
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

logt_status logt_peer_call(const char *name, const char *request, logt_peer_reply *out)
{
    memset(out, 0, sizeof *out);
    out->peak_mem_bytes = -1;
    char script[1024], py[512];
    snprintf(script, sizeof script, "%s/%s.py", peers_dir(), name);
    snprintf(py, sizeof py, "%s", python());
    snprintf(out->command, sizeof out->command, "%s %s", py, script);
    char *const argv[] = {py, script, NULL};
    const char *t = getenv("LOGT_PEER_TIMEOUT_S");
    const double limit = t && atof(t) > 0 ? atof(t) : 3600;
    int in[2] = {-1, -1}, o[2] = {-1, -1}, e[2] = {-1, -1}, ef[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(o, O_CLOEXEC) || pipe2(e, O_CLOEXEC) || pipe2(ef, O_CLOEXEC)) {
        const int err = errno;
        close_pair(in), close_pair(o), close_pair(e), close_pair(ef);
        return LOGT_FAIL(LOGT_EIO, "cannot make pipes for peer:%s: %s", name, strerror(err));
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) child(argv, in[0], o[1], e[1], ef[1]);
    close(in[0]), close(o[1]), close(e[1]), close(ef[1]);
    in[0] = o[1] = e[1] = ef[1] = -1;
    if (pid < 0) {
        const int err = errno;
        close_pair(in), close_pair(o), close_pair(e), close_pair(ef);
        return LOGT_FAIL(LOGT_EIO, "cannot start peer:%s: %s", name, strerror(err));
    }
    setpgid(pid, pid);   /* both sides, so that it holds whichever runs first */
    int exec_err = 0;    /* the pipe closes at a successful exec, or carries exec's errno */
    while (read(ef[0], &exec_err, sizeof exec_err) < 0 && errno == EINTR) {}
    close_pair(ef);
    /* The request is small (under a pipe's buffer): written whole, then EOF. */
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    const size_t n = strlen(request);
    for (size_t w = 0; !exec_err && w < n;) {
        const ssize_t k = write(in[1], request + w, n - w);
        if (k <= 0 && errno != EINTR) break;
        if (k > 0) w += (size_t)k;
    }
    close_pair(in);
    signal(SIGPIPE, old_pipe);

    /* Read until stdout closes and the adapter has exited (a child it left may hold stderr,
     * or even stdout: a second after the exit, what came is what there is), or until the
     * timeout, a signal to the sweep, or a runaway stdout. */
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, ocap = 0, elen = 0, ecap = 0;
    int open_o = 1, open_e = 1, timed_out = 0, stopped = 0, overflow = 0;
    double gone = -1;   /* when the adapter was seen to have exited */
    const double t0 = now_s();
    while (!exec_err) {
        struct pollfd p[2] = {{open_o ? o[0] : -1, POLLIN, 0}, {open_e ? e[0] : -1, POLLIN, 0}};
        if (poll(p, 2, 100) > 0) {
            int r;
            if (p[0].revents && (r = drain(o[0], &obuf, &olen, &ocap, 0)) <= 0) open_o = 0, overflow |= r < 0;
            if (p[1].revents && (r = drain(e[0], &ebuf, &elen, &ecap, STDERR_KEEP)) <= 0) open_e = 0;
        }
        if (gone < 0 && exited(pid)) gone = now_s();
        if (run_stop_requested) stopped = 1;
        else if (now_s() - t0 > limit) timed_out = 1;
        if (stopped || timed_out || overflow || (gone >= 0 && (!open_o || now_s() - gone > 1.0))) break;
    }
    kill(-pid, SIGKILL);   /* the group: whatever the adapter started goes with it */
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    close_pair(o), close_pair(e);
    char tail[640] = "";
    if (ebuf) tail_of(ebuf, elen, tail, sizeof tail);
    if (exec_err) {
        out->outcome = PEER_SKIP;
        snprintf(out->message, sizeof out->message,
                 "peer:%s: cannot run %s (%s): %s", name, py, strerror(exec_err),
                 exec_err == ENOENT ? "install Python 3 (apt-get install python3), or set LOGT_PYTHON "
                                      "to an interpreter"
                                    : "set LOGT_PYTHON to an interpreter this user may run");
    } else if (stopped) {
        out->outcome = PEER_INTERRUPTED;
        snprintf(out->message, sizeof out->message, "peer:%s stopped by a signal", name);
    } else if (timed_out) {
        out->outcome = PEER_FAIL;
        snprintf(out->message, sizeof out->message,
                 "peer:%s gave no answer in %.0f s and was killed (LOGT_PEER_TIMEOUT_S sets the "
                 "limit)%s%s", name, limit, *tail ? "; its stderr ends: " : "", tail);
    } else if (overflow) {
        out->outcome = PEER_FAIL;
        snprintf(out->message, sizeof out->message,
                 "peer:%s printed more than %u MiB on stdout (or logt ran out of memory reading it): "
                 "an adapter prints one JSON object there (peers/README.md)", name, STDOUT_MAX >> 20);
    } else {
        read_reply(name, obuf, wstatus, tail, out);
    }
    utf8_whole(out->message);
    free(obuf), free(ebuf);
    return LOGT_OK;
}

void logt_peer_reply_free(logt_peer_reply *r)
{
    free(r->times_ms), free(r->copy_ms);
    r->times_ms = r->copy_ms = NULL;
    r->ntimes = r->ncopy = 0;
}
