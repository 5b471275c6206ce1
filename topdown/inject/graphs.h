/* CUDA graph launches (graphs.c): their enter and exit callbacks. */
#ifndef TD_GRAPHS_H
#define TD_GRAPHS_H

#include <cupti.h>

void graph_enter(const CUpti_CallbackData *cb);
void graph_exit(void);

#endif
