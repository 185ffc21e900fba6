/* list.h — the `logt list` and `logt info` commands; each returns the exit status. */
#ifndef LOGT_RUNNER_LIST_H
#define LOGT_RUNNER_LIST_H

int logt_cmd_list(void);
int logt_cmd_info(void);

#endif
