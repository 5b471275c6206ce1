/* The rotation collector (rotation.c): the replay-free counter groups as
 * the passes of one configuration, a sampled launch a user range in its
 * group's session. */
#ifndef TD_ROTATION_H
#define TD_ROTATION_H

#include "topdown/inject/collector.h"

extern const td_collector td_rotation_collector;

#endif
