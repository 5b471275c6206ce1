/* Launches from several host threads at once (issue 23: one lock held
 * across every launch made 8 threads 14x slower than native on an H200).
 * A launch that is only traced holds the gate shared while the driver
 * launches it, so such launches run side by side; a measured launch (a
 * range of its own) and a graph launch hold it exclusive, so no other
 * thread's kernel is launched into their range. td_g.lock stays the lock
 * of the collector's state, held only while our callbacks run (and across
 * a measured launch, as before). The gate is taken before td_g.lock,
 * never after. */
#ifndef TD_LAUNCH_GATE_H
#define TD_LAUNCH_GATE_H

void td_gate_init(void);
/* Shared (a traced launch) or exclusive (a measured or graph launch, the
 * context's end, exit); nested entries of one thread only count. */
void td_gate_enter_shared(void);
void td_gate_enter_exclusive(void);
/* From shared to exclusive; others may pass in between. -1 when it
 * cannot (held nested): the launch is then not measured. */
int td_gate_upgrade(void);
void td_gate_leave(void);
/* The end of a launch's (or graph launch's) exit callback: this thread's
 * launch forgotten, td_g.lock let go, then the gate. */
void td_gate_leave_launch(void);
/* A launch chosen to be measured (td_g.lock held): the gate exclusive,
 * td_g.lock let go while the traced launches in the driver finish. 0: it
 * cannot (nested); it is then only traced. */
int td_gate_measure_alone(void);

#endif
