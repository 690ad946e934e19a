#!/usr/bin/env bash
# The Slurm back end alone (slurm_backend_test, Catch2) against the virtual Slurm cluster, started
# here like for the other Slurm tests.
#
#   bash slurm_backend.sh CAMPAIGN_BINARY SOURCE_DIR SLURM_BACKEND_TEST    (label slurm; about 30 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster
check "slurm_backend_test" "$3"
