/* plot: the loss curves of two training logs (tiny_trainer train --log)
 * as one SVG: training loss (mean of 10 steps) and validation loss, with
 * and without freezing. */
#ifndef TINY_PLOT_H
#define TINY_PLOT_H

/* 0 on success, 1 with a message on stderr. */
int plot_losses(const char *no_freeze_csv, const char *freeze_csv, const char *svg_path);

#endif
