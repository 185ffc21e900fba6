/* reproduce.h — `logt reproduce`: an experiment run here, plotted, its claims judged. */
#ifndef LOGT_RUNNER_REPRODUCE_H
#define LOGT_RUNNER_REPRODUCE_H

/* argv as main's: argv[1] is "reproduce". The exit status. */
int logt_cmd_reproduce(int argc, char **argv);

#endif
