/* Flushing at exit and on deadly signals (exit.c). */
#ifndef TD_EXIT_H
#define TD_EXIT_H

void at_exit(void);
void install_signal_handlers(void);

#endif
