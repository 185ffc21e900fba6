/* show.h — `logt show FILE`: a results file's runs as a table, CSV or JSON. */
#ifndef LOGT_RUNNER_SHOW_H
#define LOGT_RUNNER_SHOW_H

/* argv as main's: argv[1] is "show" (or "info"). The exit status. */
int logt_cmd_show(int argc, char **argv);
/* Does an argument after argv[1] name a results file (ends in .h5, or is an existing
 * file)? Then `logt info ARGS` is `logt show ARGS`. */
int logt_show_names_file(int argc, char **argv);

#endif
