#!/usr/bin/env bash
# Start a small, real Slurm cluster on this one machine, for integration tests.
#
# Usage: tests/slurm/start-cluster.sh                          # the cluster testcluster
#        TESTCLUSTER=testcluster2 tests/slurm/start-cluster.sh    # a second, independent one
#        TESTCLUSTER=testcluster3 tests/slurm/start-cluster.sh    # a third
#        TESTCLUSTER=testcluster4 tests/slurm/start-cluster.sh    # a fourth
#
#   cluster  testcluster, partition "debug" (default): cn[1-4] (Feature=mc), gn[1-2] (Feature=gpu, gpu:2)
#   daemons  munged, mariadb (own instance, 127.0.0.1:13306), slurmdbd, slurmctld, one slurmd per node
#   state    everything under $TESTCLUSTER_DIR (default /var/lib/campaign-testcluster);
#            the generated slurm.conf, slurmdbd.conf and gres.conf go to /etc/slurm where Debian expects them
#
# A second cluster (TESTCLUSTER=testcluster2) has the same nodes and partition, its own slurmctld and
# slurmds (ports 6827, 17011-17016), configuration (/etc/slurm-testcluster2: point SLURM_CONF at its
# slurm.conf) and state (/var/lib/campaign-testcluster2), and shares munged, MariaDB and slurmdbd with
# the first; a third (testcluster3) and a fourth (testcluster4) likewise (ports 6837, 17021-17026 and
# 6847, 17031-17036): the test suite runs four Slurm tests at once, one per cluster (tests/integration).
# tests/slurm/env.sh sets SLURM_CONF and TESTCLUSTER_DIR from TESTCLUSTER.
#
# Must run as root on Debian 12 (Slurm 22.05); works without systemd. Installs missing packages with apt-get.
# Idempotent: every daemon is started only if its pid file does not point to a live process, so running the
# script again on a healthy cluster just re-checks it and returns. Stop with stop-cluster.sh.
# The script returns only when every node is up (idle when the cluster is fresh) and sacct answers.
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail
# One start at a time: two tests starting the two clusters at once on a fresh machine would both run
# apt-get and both start the shared daemons. The lock is held by flock(1), the script's parent; the
# loop below closes the script's copy of it, so no daemon started here inherits it.
if [[ -z ${TESTCLUSTER_START_LOCKED:-} ]]; then
    TESTCLUSTER_START_LOCKED=1 exec flock /run/lock/campaign-testcluster-start.lock bash "$0" "$@"
fi
unset TESTCLUSTER_START_LOCKED
# The daemons started here outlive the script: they must not inherit a descriptor of its caller's.
# Under `flock /tmp/campaign-testcluster.lock ...` (what the helpers of a shared machine run) they
# would otherwise hold that lock for as long as they run. Bash reads this script from fd 255.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if ((fd > 2 && fd < 255)); then eval "exec $fd>&-"; fi
done

source "$(dirname "$0")/env.sh"
CLUSTER=$TESTCLUSTER
BASE=$TESTCLUSTER_DIR
SHARED=$TESTCLUSTER_SHARED_DIR   # the first cluster's: munged, MariaDB and slurmdbd serve both
DB_PORT=13306            # our own MariaDB instance; does not touch a system one on 3306
DB_NAME=slurm_acct_db
DB_USER=slurm
DB_PASS=testcluster-slurmdbd
NODES=(cn1 cn2 cn3 cn4 gn1 gn2)
READY_TIMEOUT=${TESTCLUSTER_READY_TIMEOUT:-120}   # seconds to wait for each readiness step

ETC=$(dirname "$SLURM_CONF")
RUN=$BASE/run            # pid files (slurmctld, slurmd-<node>; in $SHARED: munged, mysqld_safe, slurmdbd)
LOG=$BASE/log
SHARED_RUN=$SHARED/run
SHARED_LOG=$SHARED/log
SHARED_ETC=/etc/slurm   # slurmdbd.conf
MYSQL_DIR=$SHARED/mysql  # datadir + socket of the MariaDB instance (owned by mysql)
CTLD_PORT=$((6817 + 10 * (TESTCLUSTER_INDEX - 1)))
SLURMD_PORT=$((17001 + 10 * (TESTCLUSTER_INDEX - 1)))  # cn1's; the next nodes count up
STATE=$BASE/slurmctld    # StateSaveLocation: jobs survive a slurmctld restart
SPOOL=$BASE/spool        # SlurmdSpoolDir=$SPOOL/%n, one per virtual node

say() { printf '[start-cluster] %s\n' "$*"; }
die() { printf '[start-cluster] ERROR: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"

# pid_alive PIDFILE REGEX: true if PIDFILE names a live process whose command name matches REGEX.
# A pid file that fails the test is stale and is removed.
pid_alive() {
    local file=$1 re=$2 pid comm
    [[ -s $file ]] || return 1
    pid=$(tr -dc '0-9' <"$file")
    if [[ -n $pid ]] && comm=$(cat "/proc/$pid/comm" 2>/dev/null) && [[ $comm =~ $re ]]; then
        return 0
    fi
    rm -f "$file"
    return 1
}

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.5 s until it succeeds.
wait_for() {
    local timeout=$1 what=$2 deadline
    shift 2
    deadline=$((SECONDS + timeout))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            say "timed out after ${timeout}s waiting for: $what"
            return 1
        fi
        sleep 0.5
    done
}

# fail_with_log LOGFILE MESSAGE: show the end of a daemon's log and stop.
fail_with_log() {
    echo "----- last lines of $1 -----" >&2
    tail -n 30 "$1" >&2 2>/dev/null || true
    die "$2"
}

# ---------------------------------------------------------------------------------------------------------
# 1. Packages
# ---------------------------------------------------------------------------------------------------------
install_packages() {
    local missing=() cmd
    for cmd in slurmctld slurmd slurmdbd sbatch sacct sacctmgr munged mysqld_safe mysql mariadb-install-db; do
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
    done
    ((${#missing[@]} == 0)) && return 0
    say "installing packages (missing: ${missing[*]})"
    # Keep the packages' maintainer scripts from starting daemons of their own: we start ours below.
    local policy=/usr/sbin/policy-rc.d made_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        made_policy=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    local rc=0
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        slurm-wlm slurm-client slurmdbd munge mariadb-server mariadb-client >/dev/null; } || rc=$?
    ((made_policy)) && rm -f "$policy"
    ((rc == 0)) || die "apt-get failed (exit $rc)"
}

# ---------------------------------------------------------------------------------------------------------
# 2. Configuration (regenerated on every run; identical content when nothing changed)
# ---------------------------------------------------------------------------------------------------------
# write_if_changed FILE MODE: write stdin to FILE if its content differs; sets CONFIG_CHANGED=1 then.
CONFIG_CHANGED=0
write_if_changed() {
    local file=$1 mode=$2 tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if [[ -f $file ]] && cmp -s "$tmp" "$file"; then
        rm -f "$tmp"
    else
        # Keep a system configuration that is not ours, once.
        if [[ -f $file ]] && ! grep -q 'generated by tests/slurm/start-cluster.sh' "$file" && [[ ! -e $file.before-testcluster ]]; then
            cp -p "$file" "$file.before-testcluster"
        fi
        mv "$tmp" "$file"
        CONFIG_CHANGED=1
    fi
    chmod "$mode" "$file"
}

write_configs() {
    mkdir -p "$ETC" "$SHARED_ETC" "$RUN" "$LOG" "$SHARED_RUN" "$SHARED_LOG" "$STATE" "$SHARED/munge" "$BASE/dev" "$MYSQL_DIR"
    for n in "${NODES[@]}"; do mkdir -p "$SPOOL/$n"; done
    local host
    host=$(hostname -s)

    write_if_changed "$ETC/slurm.conf" 644 <<EOF
# generated by tests/slurm/start-cluster.sh -- a virtual test cluster on one machine; do not edit
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
StateSaveLocation=$STATE
SlurmdSpoolDir=$SPOOL/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info

# Several slurmd on one host; nodes may claim more CPUs than the machine has.
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu

# Accounting through slurmdbd, so sacct shows State, ExitCode, Start and End of finished jobs.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6819
AccountingStorageEnforce=associations,limits
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/none
MailProg=/bin/true

# Responsive for tests: schedule quickly, kill quickly, keep finished jobs visible to scontrol for 5 min.
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,sched_min_interval=100000,bf_interval=2,batch_sched_delay=1,default_queue_depth=200
MinJobAge=300
KillWait=5
OverTimeLimit=0
InactiveLimit=0
ReturnToService=2
SlurmdTimeout=30
SlurmctldTimeout=30
Waittime=0

NodeName=DEFAULT Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN
NodeName=cn[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$SLURMD_PORT-$((SLURMD_PORT + 3)) Feature=mc
NodeName=gn[1-2] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((SLURMD_PORT + 4))-$((SLURMD_PORT + 5)) Feature=gpu Gres=gpu:2 RealMemory=8000
PartitionName=debug Nodes=cn[1-4],gn[1-2] Default=YES MaxTime=1-00:00:00 State=UP
EOF

    # Fake GPUs: character devices (copies of /dev/null) stand in for the GPUs' device files (Count= without
    # File= makes slurmd report 0 GPUs and the node INVAL; a plain file is "not a valid character or block
    # device" and steps get no CUDA_VISIBLE_DEVICES). Enough for --gpus/--gres requests to be scheduled,
    # bound per step and accounted.
    for g in 0 1; do
      [ -c "$BASE/dev/gpu$g" ] || { rm -f "$BASE/dev/gpu$g" && mknod -m 666 "$BASE/dev/gpu$g" c 1 3 && CONFIG_CHANGED=1; }
    done
    write_if_changed "$ETC/gres.conf" 644 <<EOF
# generated by tests/slurm/start-cluster.sh
NodeName=gn[1-2] Name=gpu File=$BASE/dev/gpu[0-1]
EOF

    write_if_changed "$SHARED_ETC/slurmdbd.conf" 600 <<EOF
# generated by tests/slurm/start-cluster.sh
AuthType=auth/munge
DbdHost=$host
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=root
LogFile=$SHARED_LOG/slurmdbd.log
PidFile=$SHARED_RUN/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=$DB_USER
StoragePass=$DB_PASS
StorageLoc=$DB_NAME
EOF

    write_if_changed "$SHARED/my.cnf" 644 <<EOF
# generated by tests/slurm/start-cluster.sh: the MariaDB instance behind slurmdbd
[mysqld]
user=mysql
datadir=$MYSQL_DIR/data
socket=$MYSQL_DIR/mysqld.sock
pid-file=$MYSQL_DIR/mysqld.pid
log-error=$MYSQL_DIR/mysqld.log
port=$DB_PORT
bind-address=127.0.0.1
skip-name-resolve
innodb_buffer_pool_size=256M
innodb_log_file_size=64M
innodb_lock_wait_timeout=900
[mysqld_safe]
pid-file=$MYSQL_DIR/mysqld.pid
EOF
}

# ---------------------------------------------------------------------------------------------------------
# 3. Daemons, in dependency order; each one is started only if it is not already running
# ---------------------------------------------------------------------------------------------------------
munge_ok() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    if munge_ok; then return 0; fi
    if [[ ! -s /etc/munge/munge.key ]]; then
        say "creating munge key"
        mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key 2>/dev/null || true
        chmod 400 /etc/munge/munge.key
    fi
    say "starting munged"
    mkdir -p /run/munge
    # --force: run as root and take over a stale socket of an earlier run.
    munged --force --pid-file="$SHARED_RUN/munged.pid" --log-file="$SHARED_LOG/munged.log" --seed-file="$SHARED/munge/munged.seed"
    wait_for 20 "munged" munge_ok || fail_with_log "$SHARED_LOG/munged.log" "munged did not start"
}

mysql_root() { mysql --no-defaults --protocol=socket --socket="$MYSQL_DIR/mysqld.sock" -uroot "$@"; }

start_mariadb() {
    if pid_alive "$MYSQL_DIR/mysqld.pid" '^(mysqld|mariadbd)$' && mysql_root -e 'select 1' >/dev/null 2>&1; then
        return 0
    fi
    chown mysql:mysql "$MYSQL_DIR"
    if [[ ! -d $MYSQL_DIR/data/mysql ]]; then
        say "initialising MariaDB data directory"
        rm -rf "$MYSQL_DIR/data"
        mariadb-install-db --defaults-file="$SHARED/my.cnf" --skip-test-db \
            --auth-root-authentication-method=socket >"$SHARED_LOG/mariadb-install-db.log" 2>&1 ||
            fail_with_log "$SHARED_LOG/mariadb-install-db.log" "mariadb-install-db failed"
    fi
    if ! pid_alive "$SHARED_RUN/mysqld_safe.pid" '^mysqld_safe$'; then
        rm -f "$MYSQL_DIR/mysqld.sock" "$MYSQL_DIR/mysqld.sock.lock"   # stale socket of a killed server
        say "starting MariaDB (mysqld_safe, 127.0.0.1:$DB_PORT)"
        setsid mysqld_safe --defaults-file="$SHARED/my.cnf" </dev/null >>"$SHARED_LOG/mysqld_safe.log" 2>&1 &
        echo $! >"$SHARED_RUN/mysqld_safe.pid"
    fi
    wait_for 60 "MariaDB" mysql_root -e 'select 1' || fail_with_log "$MYSQL_DIR/mysqld.log" "MariaDB did not start"
    mysql_root <<EOF
CREATE DATABASE IF NOT EXISTS $DB_NAME;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'127.0.0.1';
GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'localhost';
EOF
}

dbd_ok() { sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1; }

start_slurmdbd() {
    if pid_alive "$SHARED_RUN/slurmdbd.pid" '^slurmdbd$'; then
        wait_for "$READY_TIMEOUT" "slurmdbd" dbd_ok || fail_with_log "$SHARED_LOG/slurmdbd.log" "slurmdbd does not answer"
        return 0
    fi
    say "starting slurmdbd"
    # slurmdbd reads slurmdbd.conf beside SLURM_CONF: the shared one in /etc/slurm.
    SLURM_CONF=$SHARED_ETC/slurm.conf slurmdbd || fail_with_log "$SHARED_LOG/slurmdbd.log" "slurmdbd failed to start"
    wait_for "$READY_TIMEOUT" "slurmdbd" dbd_ok || fail_with_log "$SHARED_LOG/slurmdbd.log" "slurmdbd does not answer"
}

# Cluster, accounts and user must exist before slurmctld registers (AccountingStorageEnforce=associations):
#   testaccount  root's default account, no limits
#   testlimited  MaxSubmitJobs=1 for root: "sbatch -A testlimited" with one job of it queued is refused
ensure_associations() {
    local out
    out=$(sacctmgr -n -P show assoc cluster=$CLUSTER user=root format=account,maxsubmit 2>/dev/null || true)
    [[ $out == *testaccount* && $out == *"testlimited|1"* ]] && return 0
    say "adding cluster, accounts and user to the accounting database"
    sacctmgr -i add cluster $CLUSTER >/dev/null 2>&1 || true
    sacctmgr -i add account testaccount,testlimited cluster=$CLUSTER description=tests organization=tests \
        >/dev/null 2>&1 || true
    sacctmgr -i add user root account=testaccount,testlimited cluster=$CLUSTER defaultaccount=testaccount \
        >/dev/null 2>&1 || true
    sacctmgr -i modify user root where account=testlimited cluster=$CLUSTER set MaxSubmitJobs=1 >/dev/null 2>&1 || true
    out=$(sacctmgr -n -P show assoc cluster=$CLUSTER user=root format=account,maxsubmit)
    [[ $out == *testaccount* && $out == *"testlimited|1"* ]] || die "could not create the associations for root"
}

ctld_ok() { scontrol ping 2>/dev/null | grep -q 'is UP'; }

start_slurmctld() {
    if ! pid_alive "$RUN/slurmctld.pid" '^slurmctld$'; then
        say "starting slurmctld"
        # Without -c: jobs of an earlier run are recovered from StateSaveLocation.
        slurmctld || fail_with_log "$LOG/slurmctld.log" "slurmctld failed to start"
    fi
    wait_for "$READY_TIMEOUT" "slurmctld" ctld_ok || fail_with_log "$LOG/slurmctld.log" "slurmctld does not answer"
}

start_slurmds() {
    local n started=()
    for n in "${NODES[@]}"; do
        if ! pid_alive "$RUN/slurmd-$n.pid" '^slurmd$'; then
            slurmd -N "$n" || fail_with_log "$LOG/slurmd-$n.log" "slurmd -N $n failed to start"
            started+=("$n")
        fi
    done
    ((${#started[@]} == 0)) || say "started slurmd for: ${started[*]}"
}

# ---------------------------------------------------------------------------------------------------------
# 4. Readiness: every node up and responding, sacct answering from slurmdbd
# ---------------------------------------------------------------------------------------------------------
# Node states that count as healthy: idle on a fresh cluster; allocated/mixed/completing when jobs run.
# A suffix (e.g. "down*", "idle*": not responding) makes a state unhealthy.
nodes_ready() {
    local states
    states=$(sinfo -h -N -o '%N %T' 2>/dev/null) || return 1
    [[ $(wc -l <<<"$states") -eq ${#NODES[@]} ]] || return 1
    ! grep -vqE ' (idle|allocated|mixed|completing)$' <<<"$states"
}

# Nodes set DOWN or DRAIN by hand (e.g. a fault test) whose slurmd responds are put back into service.
resume_nodes() {
    local bad
    bad=$(sinfo -h -N -o '%N %T' 2>/dev/null |
        awk '$2 ~ /^(down|drain|drained|draining|fail|failing)$/ {print $1}' | paste -sd, -)
    if [[ -n $bad ]]; then
        say "resuming nodes: $bad"
        scontrol update nodename="$bad" state=resume 2>/dev/null || true
    fi
}

sacct_ok() {
    sacct -n -X -S now-1hours -o JobID >/dev/null 2>&1 &&
        [[ -n $(sacctmgr -n -P show cluster $CLUSTER format=ControlHost 2>/dev/null) ]]
}

wait_ready() {
    local deadline=$((SECONDS + READY_TIMEOUT))
    until nodes_ready; do
        if ((SECONDS >= deadline)); then
            sinfo -N -o '%N %T %E' >&2 || true
            fail_with_log "$LOG/slurmctld.log" "nodes not ready after ${READY_TIMEOUT}s"
        fi
        resume_nodes
        sleep 1
    done
    wait_for "$READY_TIMEOUT" "slurmctld to register with slurmdbd" sacct_ok ||
        fail_with_log "$LOG/slurmctld.log" "sacct does not work"
}

main() {
    local t0=$SECONDS
    install_packages
    write_configs
    # A changed configuration (new version of this script, new hostname): restart whatever runs.
    if ((CONFIG_CHANGED)) && compgen -G "$RUN/*.pid" >/dev/null; then
        say "configuration changed: restarting the daemons"
        "$(dirname "$0")/stop-cluster.sh"
    fi
    start_munge
    start_mariadb
    start_slurmdbd
    ensure_associations
    start_slurmctld
    start_slurmds
    wait_ready
    say "cluster $CLUSTER ready in $((SECONDS - t0))s:"
    sinfo -N -o '%N %T %f %c' | sed 's/^/    /'
}

main "$@"
