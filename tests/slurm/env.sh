# Which test cluster the Slurm commands of a script talk to (sourced by start-cluster.sh,
# stop-cluster.sh and tests/integration/lib.sh). From TESTCLUSTER (testcluster, the default,
# testcluster2, testcluster3 or testcluster4) it sets and exports:
#   TESTCLUSTER_INDEX       1 to 4
#   TESTCLUSTER_DIR         the cluster's state, logs and pid files
#   TESTCLUSTER_SHARED_DIR  the first cluster's directory: munged, MariaDB and slurmdbd serve all
#   SLURM_CONF              the cluster's slurm.conf, read by every Slurm command and daemon
TESTCLUSTER=${TESTCLUSTER:-testcluster}
case $TESTCLUSTER in
  testcluster)
    TESTCLUSTER_INDEX=1
    TESTCLUSTER_DIR=${TESTCLUSTER_DIR:-/var/lib/campaign-testcluster}
    TESTCLUSTER_SHARED_DIR=$TESTCLUSTER_DIR
    SLURM_CONF=/etc/slurm/slurm.conf
    ;;
  testcluster2 | testcluster3 | testcluster4)
    TESTCLUSTER_INDEX=${TESTCLUSTER#testcluster}
    TESTCLUSTER_DIR=/var/lib/campaign-$TESTCLUSTER
    TESTCLUSTER_SHARED_DIR=/var/lib/campaign-testcluster
    SLURM_CONF=/etc/slurm-$TESTCLUSTER/slurm.conf
    ;;
  *)
    echo "TESTCLUSTER=$TESTCLUSTER: the test clusters are testcluster, testcluster2, testcluster3 and testcluster4" >&2
    return 2
    ;;
esac
export TESTCLUSTER TESTCLUSTER_INDEX TESTCLUSTER_DIR TESTCLUSTER_SHARED_DIR SLURM_CONF
