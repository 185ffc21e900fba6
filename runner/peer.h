/* peer.h — the original implementations run beside logt's own models: a model named
 * `peer:NAME` is the adapter peers/NAME.py, run as a subprocess that reads one JSON request
 * on stdin and prints one JSON response on stdout (the protocol: peers/README.md).
 *
 * Where the adapters are: $LOGT_PEERS, else peers/ under the working directory (the
 * repository's root, where logt runs from). The interpreter: $LOGT_PYTHON, else python3.
 * A call that gives no answer within $LOGT_PEER_TIMEOUT_S seconds (default 3600: a peer's
 * first call may build CUDA code for minutes) is killed, with its children.
 */
#ifndef LOGT_RUNNER_PEER_H
#define LOGT_RUNNER_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

#define LOGT_PEER_PREFIX "peer:"

/* NAME of a model called "peer:NAME", else NULL. */
const char *logt_peer_of(const char *model);
/* A model called peer:NAME whose adapter exists; else an error naming the adapters there are. */
logt_status logt_peer_check(const char *model);
/* "flashrnn, sru, ..." (the adapters in the peers folder) into buf. */
void logt_peer_names(char *buf, size_t n);

typedef enum { PEER_OK, PEER_SKIP, PEER_FAIL, PEER_INTERRUPTED } logt_peer_outcome;

typedef struct logt_peer_reply {
    logt_peer_outcome outcome;
    char message[1024];      /* skip, fail: what is missing or wrong                  */
    char version[256], impl[160];
    char command[1600];      /* how the adapter was run: "python3 peers/sru.py"       */
    double *times_ms, *copy_ms;   /* owned; copy_ms NULL unless the peer timed a copy */
    int ntimes, ncopy;
    int64_t peak_mem_bytes;  /* -1: the peer could not say                           */
} logt_peer_reply;

/* Run peer NAME's adapter on the request (a JSON object) and read its answer. An adapter
 * that cannot start (no interpreter) is PEER_SKIP; one that prints no valid response,
 * exits with an error or outlasts the timeout is PEER_FAIL, its stderr's last lines in the
 * message; a sweep's SIGINT or SIGTERM kills it and gives PEER_INTERRUPTED. Returns an
 * error only when the call could not be made at all (out of memory, no pipes). */
logt_status logt_peer_call(const char *name, const char *request, logt_peer_reply *out);
void logt_peer_reply_free(logt_peer_reply *r);

#endif
