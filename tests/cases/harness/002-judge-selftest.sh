#!/bin/bash
# The kernel-log judge flags a planted WARN (the harness's self-test).
# Kernel-log judge self-test: a test-only module WARNs on load. This scenario
# passes only if the judge flags that warning (the harness inverts the
# judge's verdict for it, from the expect-judge line below).
# expect-judge: WARNING: .*mptest_warn|mptest_warn: planted warning
# timeout: 60
source "${0%/*}/rc"

check "insmod the planted-WARN module" insmod "$KO_DIR/tests/modules/mptest_warn.ko"
check "the WARN reached the kernel log" sh -c 'dmesg | grep -q "mptest_warn: planted warning"'
check "rmmod it" rmmod mptest_warn
