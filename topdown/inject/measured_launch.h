/* A measured launch or graph launch (measured_launch.c): into its
 * configuration's window, and what it costs from its enter callback to its
 * exit callback. */
#ifndef TD_MEASURED_LAUNCH_H
#define TD_MEASURED_LAUNCH_H

#include "topdown/inject/state.h"

/* Measures a chosen launch, its clock running from t0: 1 when it is. */
int profile_launch(ctx_state *c, launch_rec *l, double t0);
/* Its cost charged, less the waits for the app's own GPU work. */
void end_profiled_launch(void);

#endif
