/* util.h — small helpers the runner shares: lists of words, the clock, the
 * machine's name, the git commit of the code, paths.
 *
 * Like every runner header this one stays free of HDF5 and libinih types.
 */
#ifndef LOGT_RUNNER_UTIL_H
#define LOGT_RUNNER_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

#define LOGT_VERSION "0.1.0"

/* A failure whose message already says where (a path, or FILE:LINE of an
 * experiment.ini): no source location is added. logt_user_msg() returns the
 * current message of either kind, without that empty location. */
#define LOGT_USER_FAIL(code, ...) logt_fail_at((code), "", 0, __VA_ARGS__)
const char *logt_user_msg(void);

#define LOGT_LIST_MAX 64    /* values in one comma list  */
#define LOGT_WORD 64        /* longest value in a list   */

/* A comma list from experiment.ini: "16, 32, 64" -> {"16", "32", "64"}. */
typedef struct logt_list {
    int n;
    char v[LOGT_LIST_MAX][LOGT_WORD];
} logt_list;

/* Split s at `sep` into l, trimming blanks around each item. Empty items are
 * an error, as are more than LOGT_LIST_MAX items or items of LOGT_WORD or more
 * characters; the message says which. */
logt_status logt_list_split(const char *s, char sep, logt_list *l);
int logt_list_find(const logt_list *l, const char *word);   /* index or -1 */
void logt_list_join(const logt_list *l, const char *sep, char *buf, size_t n);

/* Copy src into dst[n], cut to fit, always NUL-terminated. */
void logt_strlcpy(char *dst, size_t n, const char *src);
/* Trim blanks in place; returns s. */
char *logt_trim(char *s);
/* Parse a whole string as an integer / number; 0 on success, -1 otherwise. */
int logt_parse_i64(const char *s, int64_t *out);
int logt_parse_u64(const char *s, uint64_t *out);
int logt_parse_f64(const char *s, double *out);

/* "2025-01-31T12:34:56Z" (UTC). */
void logt_iso8601(char *buf, size_t n);
void logt_hostname(char *buf, size_t n);
/* The CPU's model name from /proc/cpuinfo ("unknown CPU" elsewhere). */
void logt_cpu_name(char *buf, size_t n);
/* The git commit of the code: $LOGT_COMMIT if set, else `git rev-parse --short HEAD`
 * in the directory of the logt binary (+ "-dirty" when `git status --porcelain`
 * prints anything), else "unknown". */
void logt_git_commit(char *buf, size_t n);
/* The directory holding the running executable ("" when unknown). */
void logt_exe_dir(char *buf, size_t n);

/* mkdir -p of path's parent directory (or of path itself when whole = 1). */
logt_status logt_mkdirs(const char *path, int whole);

/* Read a whole file into a malloc'd, NUL-terminated string. */
logt_status logt_read_file(const char *path, char **out);

/* "12.3 s", "4 min 05 s", "1 h 02 min". */
void logt_fmt_duration(double s, char *buf, size_t n);
/* "512 B", "912.0 KiB", "16.3 MiB", "1.25 GiB". */
void logt_fmt_bytes(double b, char *buf, size_t n);

#endif
