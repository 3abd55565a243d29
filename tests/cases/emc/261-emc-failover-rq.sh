#!/bin/bash
# 252 on a request-based map (queue_mode rq): pg_init holds requests.
# Runs 252-emc-failover.sh with EMC_FEATURES="2 queue_mode rq": the map's
# requests wait in dm core's queue (put back, not held by the target) while
# SP B's pg_init trespasses the LUN, and none reaches B before that; fio
# sees no error; switch_group 1 trespasses it back, and A serves the same
# data.
# timeout: 600
# cross-kernel: yes
EMC_FEATURES="2 queue_mode rq"
source "${BASH_SOURCE[0]%/*}/252-emc-failover.sh"
