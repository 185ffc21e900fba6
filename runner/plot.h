/* plot.h — figures from a results file through gnuplot.
 *
 * For each [plot.NAME] of the experiment: OUTDIR/STEM-NAME.gp, a gnuplot
 * script holding its data inline (one datablock, one `index` per curve) that
 * renders OUTDIR/STEM-NAME.png (pngcairo) and .svg next to itself; then
 * gnuplot is run on it. Failed runs are left out.
 */
#ifndef LOGT_RUNNER_PLOT_H
#define LOGT_RUNNER_PLOT_H

#include "config.h"
#include "store.h"

/* Figures are named OUTDIR/STEM-NAME.{gp,png,svg}; STEM is the experiment's name for its
 * default results file, else the results file's own name (results/x-h200.h5 -> x-h200). */
logt_status logt_plot_experiment(const logt_experiment *e, logt_store *st, const char *outdir,
                                 const char *stem);
/* The figures of results file `path` (of experiment e, parsed, not yet resolved): e is resolved
 * for the backend the file was last run on. results/local/x.h5 draws plots/local/x-NAME.*,
 * results/x.h5 and any other x.h5 plots/x-NAME.*. A file of another experiment is refused. */
logt_status logt_plot_file(logt_experiment *e, const char *path);
/* Is `gnuplot` on the PATH? */
int logt_gnuplot_found(void);

#endif
